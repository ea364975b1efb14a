// The Vale export's patterns through Go's own regexp package (RE2 syntax, the engine Vale is
// built on), assembled as Vale 3 assembles them. Reads a JSON request on stdin, writes a JSON
// answer on stdout; test/exports/vale.test.ts runs it with `go run`.
package main

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
)

type request struct {
	Accept      []string          `json:"accept"`
	AcceptNames []string          `json:"acceptNames"`
	Reject      []string          `json:"reject"`
	RejectTexts []string          `json:"rejectTexts"`
	Swap        map[string]string `json:"swap"`
	Ignorecase  bool              `json:"ignorecase"`
	Nonword     bool              `json:"nonword"`
	SwapTexts   []string          `json:"swapTexts"`
}

type alert struct {
	Observed string `json:"observed"`
	Expected string `json:"expected"`
}

type answer struct {
	Errors          []string  `json:"errors"`
	AcceptUnmatched []string  `json:"acceptUnmatched"`
	RejectFound     []string  `json:"rejectFound"`
	SwapAlerts      [][]alert `json:"swapAlerts"`
}

func compile(pattern string, out *answer) *regexp.Regexp {
	re, err := regexp.Compile(pattern)
	if err != nil {
		out.Errors = append(out.Errors, err.Error())
		return nil
	}
	return re
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		panic(err)
	}
	out := answer{Errors: []string{}, AcceptUnmatched: []string{}, RejectFound: []string{}, SwapAlerts: [][]alert{}}

	// Each vocabulary entry on its own, then all of them in one alternation, as Vale adds them to
	// every rule's exceptions.
	full := []*regexp.Regexp{}
	for _, entry := range req.Accept {
		if re := compile(`^(?:`+entry+`)$`, &out); re != nil {
			full = append(full, re)
		}
	}
	compile(`(?:`+strings.Join(req.Accept, "|")+`)`, &out)
	for _, name := range req.AcceptNames {
		matched := false
		for _, re := range full {
			if re.MatchString(name) {
				matched = true
				break
			}
		}
		if !matched {
			out.AcceptUnmatched = append(out.AcceptUnmatched, name)
		}
	}

	// Vale.Avoid: an existence rule, its tokens between word boundaries, case as written.
	for _, entry := range req.Reject {
		compile(entry, &out)
	}
	if len(req.Reject) > 0 {
		if avoid := compile(`(?m)\b(?:`+strings.Join(req.Reject, "|")+`)\b`, &out); avoid != nil {
			for _, text := range req.RejectTexts {
				out.RejectFound = append(out.RejectFound, avoid.FindString(text))
			}
		}
	}

	// The substitution rule: one capture group per swap key, longest key first.
	keys := make([]string, 0, len(req.Swap))
	for key := range req.Swap {
		keys = append(keys, key)
		compile(key, &out)
	}
	sort.SliceStable(keys, func(p, q int) bool { return len(keys[p]) > len(keys[q]) })
	groups := make([]string, len(keys))
	for i, key := range keys {
		if strings.Count(key, "(") != strings.Count(key, "(?")+strings.Count(key, `\(`) {
			out.Errors = append(out.Errors, "capture group in "+key)
		}
		groups[i] = "(" + key + ")"
	}
	template := `(?m)\b(?:%s)\b`
	if req.Nonword {
		template = `(?m)(?:%s)`
	}
	if req.Ignorecase {
		template = `(?i)` + template
	}
	if len(keys) > 0 {
		sub := compile(strings.Replace(template, "%s", strings.Join(groups, "|"), 1), &out)
		for _, text := range req.SwapTexts {
			alerts := []alert{}
			if sub != nil {
				for _, submatch := range sub.FindAllStringSubmatchIndex(text, -1) {
					for idx := 2; idx < len(submatch); idx += 2 {
						if submatch[idx] != -1 {
							alerts = append(alerts, alert{text[submatch[idx]:submatch[idx+1]], req.Swap[keys[idx/2-1]]})
						}
					}
				}
			}
			out.SwapAlerts = append(out.SwapAlerts, alerts)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
