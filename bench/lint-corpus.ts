import fs from 'node:fs';
import path from 'node:path';

/**
 * The corpus `glossary lint` is measured on (bench/lint-bench.ts): a glossary export of N terms,
 * each with a name and three names to avoid, and a docs tree of F files of about 5 KB that use
 * the names in prose and, in one file in three, 1-3 names to avoid. Names to avoid also sit where
 * they must never be reported (code fences, inline code, URLs, link targets, front matter, HTML
 * comments, literal blocks), so a reader that lets them through shows up as findings beyond the
 * planted ones. Everything comes from one seed: the same options give the same bytes.
 *
 * The names are made of invented syllables ("bexfum", "tav mir"), so no name is an English word
 * of the prose around it and the planted count is exact.
 */

export interface CorpusOptions {
  files: number;
  terms: number;
  seed?: number;
}

export interface CorpusTerm {
  id: number;
  term: string;
  definition: string;
  category: string;
  avoid: string[];
}

export interface Corpus {
  /** The glossary export (`--glossary`). */
  glossaryFile: string;
  /** The docs tree: `docs/section-NNN/page-NNNNN.EXT` under the corpus folder. */
  docsDir: string;
  /** The docs files relative to the corpus folder, sorted as `glossary lint` orders them. */
  files: string[];
  bytes: number;
  terms: CorpusTerm[];
  /** Names to avoid planted in prose, by file: what a correct lint finds, no more, no less. */
  planted: Map<string, Planted[]>;
}

export interface Planted {
  found: string;
  use: string;
  term: number;
  /** A plural of the name to avoid ("bex fums"): the same finding, its plural replacement. */
  plural: boolean;
  /** A two-word name whose words a line break separates. */
  acrossLines: boolean;
}

/** mulberry32: small, fast and good enough to pick words. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROSE = `the a of to and in is for that with as on by this it be are from or an can when
you your each which not its if one all more than into their them they then use uses used using
service request response server client page guide setup step value option default file folder
project team docs build release version change update changes updates read write reads writes
runs run start stops stop returns return checks check sends send keeps keep holds hold after
before while where every other same new first last only also both most some any many time times
data record records list lists field fields name names system systems process user users table
configure configured configuration deploy deployed network storage cluster node nodes queue
message messages event events error errors limit limits access key keys path paths header
headers token tokens cache caches index search results result query queries flag flags test
tests job jobs pipeline pipelines worker workers thread threads memory disk second seconds
minute minutes hour hours retry retries timeout timeouts batch batches upload download
install installed package packages module modules command commands line lines editor review
reviews author authors reader readers writer section sections example examples note notes
should must may will would could often usually always never sometimes quickly safely again
here there how what why who these those such own well just still even much less few`
  .split(/\s+/)
  .filter(Boolean);
const PROSE_SET = new Set(PROSE);
const JOIN = '\u0001';

const CATEGORIES = ['frontend', 'backend', 'devops', 'docs-as-code'];

/** Invented words: two consonant-vowel-consonant syllables, in an order the seed shuffles. */
function inventedWords(count: number, rand: () => number): string[] {
  const syllables: string[] = [];
  for (const c of 'bdfgklmnprstvz')
    for (const v of 'aeiou') for (const e of 'rnlxs') syllables.push(c + v + e);
  for (let i = syllables.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [syllables[i], syllables[j]] = [syllables[j] as string, syllables[i] as string];
  }
  const n = syllables.length;
  const words: string[] = [];
  for (let k = 0; words.length < count; k++) {
    // Two syllables for the first n² words, spread by a multiplier prime to n² (a permutation,
    // so neighbours differ in both syllables); three after. No word has two spellings.
    let rest = k < n * n ? (k * 7919) % (n * n) : k;
    let word = '';
    for (let s = 0; s < (k < n * n ? 2 : 3); s++) {
      word += syllables[rest % n];
      rest = Math.floor(rest / n);
    }
    if (!PROSE_SET.has(word) && !PROSE_SET.has(word.slice(0, -1))) words.push(word);
  }
  return words;
}

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * The terms, in three shapes: a compound ("bexfum", to avoid "bex fum", "bex-fum" and a synonym
 * "tavmir"), a brand with its own capitals ("BexFum", to avoid "Bexfum", "bex fum" and "Tavmir"),
 * and two words ("bex fum", to avoid "bexfum", "tavmir fum" and "bex tavmir").
 */
export function corpusTerms(count: number, seed = 1): CorpusTerm[] {
  const rand = random(seed);
  const words = inventedWords(count * 3, rand);
  const terms: CorpusTerm[] = [];
  for (let i = 0; i < count; i++) {
    const [a, b, c] = [words[3 * i], words[3 * i + 1], words[3 * i + 2]] as [
      string,
      string,
      string,
    ];
    const shape = i % 5;
    let term: string;
    let avoid: string[];
    if (shape < 3) {
      term = a + b;
      avoid = [`${a} ${b}`, `${a}-${b}`, c];
    } else if (shape === 3) {
      term = capital(a) + capital(b);
      avoid = [capital(a) + b, `${a} ${b}`, capital(c)];
    } else {
      term = `${a} ${b}`;
      avoid = [a + b, `${c} ${b}`, `${a} ${c}`];
    }
    terms.push({
      id: i + 1,
      term,
      definition: `The ${term} of a ${PROSE[i % PROSE.length]} ${PROSE[(i * 7) % PROSE.length]}.`,
      category: CATEGORIES[i % CATEGORIES.length] as string,
      avoid,
    });
  }
  return terms;
}

/** A name's plural as the lint's English gives it for these invented names. */
function plural(name: string): string {
  return /(?:s|x|z|ch|sh)$/i.test(name) ? `${name}es` : `${name}s`;
}

/** One file's text, and the names to avoid planted in its prose. */
class Page {
  private readonly out: string[] = [];
  readonly planted: Planted[] = [];

  constructor(
    private readonly rand: () => number,
    private readonly terms: readonly CorpusTerm[],
    /** The terms this page is about, mentioned by name again and again. */
    private readonly topic: readonly CorpusTerm[],
  ) {}

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)] as T;
  }

  private word(): string {
    return this.pick(PROSE);
  }

  private topicTerm(): CorpusTerm {
    return this.pick(this.topic);
  }

  /** A name to avoid of any term: the text hidden places hold (code, URLs) and never report. */
  anyAvoided(): string {
    return this.pick(this.pick(this.terms).avoid);
  }

  line(text = ''): void {
    this.out.push(text);
  }

  /**
   * A sentence of 8-20 words, about one in fifteen a glossary name; `plant` puts a name to avoid
   * in it, never first (so its case is the name's own, not a sentence's capital).
   */
  sentence(plant: boolean): string {
    const words: string[] = [];
    const length = 8 + Math.floor(this.rand() * 13);
    const at = plant ? 1 + Math.floor(this.rand() * (length - 1)) : -1;
    for (let i = 0; i < length; i++) {
      if (i === at) {
        const term = this.topicTerm();
        const avoided = this.pick(term.avoid);
        const isPlural = this.rand() < 0.2;
        // JOIN keeps a planted name's words together until the paragraph is wrapped.
        words.push((isPlural ? plural(avoided) : avoided).replaceAll(' ', JOIN));
        this.planted.push({
          found: isPlural ? plural(avoided) : avoided,
          use: isPlural ? plural(term.term) : term.term,
          term: term.id,
          plural: isPlural,
          acrossLines: false,
        });
      } else if (this.rand() < 0.07) {
        const name = this.topicTerm().term;
        words.push(this.rand() < 0.15 ? plural(name) : name);
      } else {
        words.push(this.word());
      }
    }
    const first = words[0] as string;
    // A name keeps its own case at the start of a sentence; a prose word takes a capital.
    if (PROSE_SET.has(first)) words[0] = capital(first);
    return `${words.join(' ')}${this.pick(['.', '.', '.', '?', ':'])}`;
  }

  /**
   * Sentences wrapped at 88 columns, as docs are; `plants` names to avoid among them. A planted
   * name of two words that does not fit is split over two lines, as an editor would: its finding
   * is still one.
   */
  paragraph(plants: number): void {
    const sentences: string[] = [];
    const count = 3 + Math.floor(this.rand() * 4);
    const planting = new Set<number>();
    while (planting.size < Math.min(plants, count)) {
      planting.add(Math.floor(this.rand() * count));
    }
    const before = this.planted.length;
    for (let i = 0; i < count; i++) sentences.push(this.sentence(planting.has(i)));
    const twoWords = this.planted.slice(before).filter((p) => p.found.includes(' '));
    let next = 0;
    let current = '';
    for (const token of sentences.join(' ').split(' ')) {
      const parts = token.split(JOIN);
      if (parts.length > 1) next++;
      const word = parts.join(' ');
      if (current.length + word.length + 1 <= 88 || current === '') {
        current += current === '' ? word : ` ${word}`;
      } else if (parts.length > 1 && current.length + (parts[0] as string).length + 1 <= 88) {
        this.out.push(`${current} ${parts[0]}`);
        current = parts.slice(1).join(' ');
        const planted = twoWords[next - 1];
        if (planted) planted.acrossLines = true;
      } else {
        this.out.push(current);
        current = word;
      }
    }
    this.out.push(current);
  }

  /** A heading of 2-6 words. */
  heading(): string {
    const words = Array.from({ length: 2 + Math.floor(this.rand() * 5) }, () =>
      this.rand() < 0.2 ? this.topicTerm().term : this.word(),
    );
    return capital(words.join(' '));
  }

  text(): string {
    return `${this.out.join('\n')}\n`;
  }
}

type Kind = 'md' | 'rst' | 'adoc' | 'txt';

/** Mostly Markdown; one file in twenty each reStructuredText, AsciiDoc and plain text. */
function kindOf(i: number): Kind {
  const r = i % 20;
  return r === 7 ? 'rst' : r === 13 ? 'adoc' : r === 17 ? 'txt' : 'md';
}

const TARGET_BYTES = 5000;

function writePage(kind: Kind, page: Page, rand: () => number, plants: number): string {
  const title = page.heading();
  const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  // Which paragraphs get the names to avoid; the rest of the page is the same whatever it holds.
  const paragraphs = 7;
  const perParagraph = new Array<number>(paragraphs).fill(0);
  for (let p = 0; p < plants; p++) {
    const at = Math.floor(rand() * paragraphs);
    perParagraph[at] = (perParagraph[at] ?? 0) + 1;
  }
  let paragraph = 0;
  const prose = () => page.paragraph(perParagraph[paragraph++] ?? 0);
  const hidden = () => page.anyAvoided();
  if (kind === 'md') {
    page.line('---');
    page.line(`title: ${title}`);
    page.line(`tags: [${hidden()}, ${hidden()}]`);
    page.line('---');
    page.line();
    page.line(`# ${title}`);
    page.line();
    prose();
    page.line();
    page.line(`<!-- TODO: say more about ${hidden()} here -->`);
    page.line();
    page.line(`## ${page.heading()}`);
    page.line();
    prose();
    page.line();
    page.line('```sh');
    page.line(`glossary run --name "${hidden()}" --mode ${slug(hidden())}`);
    page.line(`export SETTING="${hidden()}"`);
    page.line('```');
    page.line();
    prose();
    page.line();
    page.line(`- Set \`${hidden()}\` before the first run.`);
    page.line(
      `- See [the guide](../${slug(hidden())}/guide.md) and https://docs.example.com/${slug(hidden())}/.`,
    );
    page.line(`- ${page.sentence(false)}`);
    page.line();
    page.line(`## ${page.heading()}`);
    page.line();
    prose();
    page.line();
    page.line(`    ${hidden()} = true  # an indented code block`);
    page.line();
    prose();
    page.line();
    page.line(`> ${page.sentence(false)}`);
    page.line();
  } else if (kind === 'rst') {
    page.line(title);
    page.line('='.repeat(title.length));
    page.line();
    prose();
    page.line();
    page.line('.. code-block:: sh');
    page.line();
    page.line(`   glossary run --name "${hidden()}"`);
    page.line();
    prose();
    page.line();
    page.line(
      `Set \`\`${hidden()}\`\` first, as \`the guide <https://docs.example.com/${slug(hidden())}/>\`_ says::`,
    );
    page.line();
    page.line(`   ${hidden()} = true`);
    page.line();
    prose();
    page.line();
    page.line(`.. ${hidden()}: a comment`);
    page.line();
    prose();
    page.line();
    prose();
    page.line();
  } else if (kind === 'adoc') {
    page.line(`= ${title}`);
    page.line();
    prose();
    page.line();
    page.line('[source,sh]');
    page.line('----');
    page.line(`glossary run --name "${hidden()}"`);
    page.line('----');
    page.line();
    prose();
    page.line();
    page.line(
      `Set \`${hidden()}\` first, as https://docs.example.com/${slug(hidden())}[the guide] says.`,
    );
    page.line();
    prose();
    page.line();
    page.line(`// ${hidden()}: a comment`);
    page.line();
    prose();
    page.line();
    prose();
    page.line();
  } else {
    page.line(title);
    page.line();
    for (let i = 0; i < 5; i++) {
      prose();
      page.line();
    }
    page.line(`More at https://docs.example.com/${slug(hidden())}/ .`);
    page.line();
  }
  // Prose to the page's size, planting what is left.
  let text = page.text();
  while (text.length < TARGET_BYTES || paragraph < paragraphs) {
    prose();
    page.line();
    text = page.text();
  }
  return text;
}

/**
 * Writes the corpus under `dir` (which must exist): glossary.json and docs/. One file in three
 * has 1-3 names to avoid in its prose.
 */
export function writeLintCorpus(dir: string, options: CorpusOptions): Corpus {
  const seed = options.seed ?? 1;
  const terms = corpusTerms(options.terms, seed);
  const glossaryFile = path.join(dir, 'glossary.json');
  fs.writeFileSync(glossaryFile, JSON.stringify(terms));
  const docsDir = path.join(dir, 'docs');
  const rand = random(seed + 1);
  const files: string[] = [];
  const planted = new Map<string, Planted[]>();
  let bytes = 0;
  for (let i = 0; i < options.files; i++) {
    const section = `section-${String(Math.floor(i / 100)).padStart(3, '0')}`;
    if (i % 100 === 0) fs.mkdirSync(path.join(docsDir, section), { recursive: true });
    const kind = kindOf(i);
    const file = `docs/${section}/page-${String(i).padStart(5, '0')}.${kind}`;
    const topic = Array.from(
      { length: 8 },
      () => terms[Math.floor(rand() * terms.length)] as CorpusTerm,
    );
    const page = new Page(rand, terms, topic);
    const plants = rand() < 1 / 3 ? 1 + Math.floor(rand() * 3) : 0;
    const text = writePage(kind, page, rand, plants);
    fs.writeFileSync(path.join(dir, file), text);
    bytes += Buffer.byteLength(text);
    files.push(file);
    if (page.planted.length > 0) planted.set(file, page.planted);
  }
  files.sort();
  return { glossaryFile, docsDir, files, bytes, terms, planted };
}
