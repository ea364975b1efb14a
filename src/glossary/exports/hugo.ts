import type { Term } from '../term.ts';
import type { FolderFile, FolderFormat, TermSource } from './format.ts';
import { firstSentence, textLines, yamlList, yamlString } from './names.ts';

/**
 * A folder for Hugo, after the Kubernetes website's glossary (content/en/docs/reference/glossary):
 * one Markdown page per term with YAML front matter `title`, `id`, `aka` (its aliases; Hugo
 * keeps `aliases` for redirects), `tags` (its category) and `short_description`, plus `avoid`
 * and `see_also`. Unlike Kubernetes, whose entries are resources of one page bundle, each term
 * is a page of the section `glossary` (`content/glossary/{id}.md`, a later term with an id
 * already used `{id}-2.md`, ...), so each has its own address. Section layouts
 * (`layouts/glossary/`) show a page and the list with a `term-{file}` anchor per entry, and
 * `hugo.toml` builds the folder on its own. Every front matter value is a double-quoted YAML
 * string or a number; the body is escaped Markdown, so no shortcode (`{{<`) or HTML starts.
 */

/**
 * A definition line as Goldmark (Hugo's Markdown) shows it exactly: a backslash before every
 * ASCII punctuation character (CommonMark escapes them all), so no markup, no HTML, no
 * shortcode, no summary divider, and no typographer quotes or dashes (on by default in Hugo);
 * unindented, since an indent is a code block.
 */
function escapeLine(line: string): string {
  return line.trim().replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

const SINGLE = `<!DOCTYPE html>
<html lang="{{ site.LanguageCode | default "en" }}">
<head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body>
<main>
<h1 id="term-{{ .File.ContentBaseName }}">{{ .Title }}</h1>
{{- with .Params.aka }}
<p>Also: {{ range $i, $name := . }}{{ if $i }}, {{ end }}{{ $name }}{{ end }}</p>
{{- end }}
{{- with .Params.avoid }}
<p>Avoid: {{ range $i, $name := . }}{{ if $i }}, {{ end }}{{ $name }}{{ end }}</p>
{{- end }}
{{ .Content }}
{{- with .Params.see_also }}
<p>See also: {{ range $i, $id := . }}{{ if $i }}, {{ end }}
{{- with site.GetPage (printf "/glossary/%v" $id) }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>
{{- else }}ID {{ $id }} (not in this glossary){{ end }}{{ end }}</p>
{{- end }}
{{- with .Params.tags }}
<p>Category: {{ range $i, $tag := . }}{{ if $i }}, {{ end }}{{ $tag }}{{ end }}</p>
{{- end }}
</main>
</body>
</html>
`;

const LIST = `<!DOCTYPE html>
<html lang="{{ site.LanguageCode | default "en" }}">
<head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body>
<main>
<h1>{{ .Title }}</h1>
<dl>
{{- range .Pages.ByTitle }}
<dt id="term-{{ .File.ContentBaseName }}"><a href="{{ .RelPermalink }}">{{ .Title }}</a></dt>
<dd>{{ .Params.short_description }}</dd>
{{- end }}
</dl>
</main>
</body>
</html>
`;

const HUGO_TOML = `# Written by \`glossary export --format hugo\` (docs/docs-pipeline.md): builds the glossary
# section on its own; in a site of your own, copy content/glossary and layouts/glossary.
baseURL = "/"
title = "Glossary"
disableKinds = ["home", "taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
`;

function page(term: Term): string {
  const front = [
    '---',
    `title: ${yamlString(term.term)}`,
    `id: ${term.id}`,
    `aka: ${yamlList(term.aliases ?? [])}`,
    `tags: ${yamlList([term.category])}`,
    `avoid: ${yamlList(term.avoid ?? [])}`,
    `see_also: [${term.see_also.join(', ')}]`,
    `short_description: ${yamlString(firstSentence(term.definition))}`,
    '---',
  ];
  return `${[...front, ...textLines(term.definition).map(escapeLine)].join('\n')}\n`;
}

export const hugoFormat: FolderFormat = {
  kind: 'folder',
  name: 'hugo',
  description:
    'A Hugo folder: one page per term (front matter title, id, aka, tags) in a glossary section, its layouts, hugo.toml.',
  folderName: 'glossary-hugo',
  async *render(source: TermSource): AsyncIterable<FolderFile> {
    yield { path: 'hugo.toml', content: HUGO_TOML };
    yield { path: 'layouts/glossary/single.html', content: SINGLE };
    yield { path: 'layouts/glossary/list.html', content: LIST };
    yield {
      path: 'content/glossary/_index.md',
      content: '---\ntitle: "Glossary"\n---\n',
    };
    // Streamed: a page per term as it is read; a repeated id gets the next free file name.
    const seen = new Map<number, number>();
    for await (const chunk of source()) {
      for (const term of chunk) {
        const count = (seen.get(term.id) ?? 0) + 1;
        seen.set(term.id, count);
        const file = count === 1 ? `${term.id}` : `${term.id}-${count}`;
        yield { path: `content/glossary/${file}.md`, content: page(term) };
      }
    }
  },
};
