/**
 * Names for the statements of a kind, one per text: a named statement is parsed once per
 * pooled connection, and after five runs PostgreSQL plans it once for all values (a generic
 * plan) when that plan costs no more than those it made for each run's values. A ranking's
 * statement otherwise spends about half of PostgreSQL's time in planning, while a broad word,
 * whose own plan is a
 * scan that stops at the limit, keeps its own plan (the generic one, through the word index,
 * costs more). A ranking's text has a shape for each number of query words, which have typos
 * and which filters are given: the first `most` texts are named, the rest are planned each
 * time, so no connection holds an unbounded number of prepared statements.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  constructor(
    readonly kind: string,
    readonly most: number,
  ) {}
  nameOf(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < this.most) {
      name = `${this.kind}-${this.#names.size}`;
      this.#names.set(text, name);
    }
    return name;
  }
}
