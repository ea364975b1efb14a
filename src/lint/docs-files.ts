import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { markupOf } from './markup/markups.ts';

/** Folders never linted: a repository's own data and installed packages. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

/**
 * The files `glossary lint` reads under `paths`, as paths relative to `cwd` with `/` between
 * folders (how reports name them), in a stable order: sorted, each once. A folder gives its
 * Markdown, MDX, reStructuredText, AsciiDoc and text files (by extension), skipping `.git`,
 * `node_modules` and what an `ignore` glob matches (a glob without a `/` matches a file or
 * folder name anywhere, as in .gitignore); a file named outright is read whatever its extension
 * (as plain text when it is none of those), unless an `ignore` glob matches it.
 * Links to folders are not followed, so a link cycle cannot loop; a file reached by two names
 * (a link to it) is read once, by the first. A path that cannot be read is an error, and the
 * others are still listed.
 */
export function docsFiles(
  paths: readonly string[],
  ignore: readonly string[],
  cwd: string,
): { files: string[]; errors: string[] } {
  const ignored = ignoreMatcher(ignore);
  /** Each file's name in reports → the file it is (links resolved). */
  const found = new Map<string, string>();
  const errors: string[] = [];
  const add = (absolute: string) => {
    let real = absolute;
    try {
      real = fs.realpathSync(absolute);
    } catch {}
    found.set(shown(absolute), real);
  };
  const failed = (where: string, error: unknown) => {
    errors.push(`cannot read ${where}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  };
  const shown = (absolute: string) => {
    const relative = path.relative(cwd, absolute);
    return (relative === '' ? '.' : relative).split(path.sep).join('/');
  };
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      failed(shown(dir), error);
      return;
    }
    for (const entry of entries) {
      const absolute = path.join(dir, entry.name);
      const name = shown(absolute);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !ignored(name)) walk(absolute);
      } else if (
        (entry.isFile() || entry.isSymbolicLink()) &&
        markupOf(entry.name) &&
        !ignored(name)
      ) {
        if (entry.isSymbolicLink() && !isFile(absolute)) continue;
        add(absolute);
      }
    }
  };
  for (const given of paths.length > 0 ? paths : ['.']) {
    const absolute = path.resolve(cwd, given);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(absolute);
    } catch (error) {
      failed(given, error);
      continue;
    }
    if (stat.isDirectory()) walk(absolute);
    else if (!ignored(shown(absolute))) add(absolute);
  }
  const files: string[] = [];
  const seen = new Set<string>();
  for (const name of [...found.keys()].sort()) {
    const real = found.get(name) as string;
    if (seen.has(real)) continue;
    seen.add(real);
    files.push(name);
  }
  return { files, errors };
}

/**
 * A glob with a `/` matches the path from the current folder; one without matches a file or
 * folder name at any depth, as in .gitignore.
 */
function ignoreMatcher(globs: readonly string[]): (file: string) => boolean {
  const paths = globs.filter((glob) => glob.includes('/'));
  const names = globs.filter((glob) => !glob.includes('/'));
  const byPath = paths.length > 0 ? picomatch(paths, { dot: true }) : () => false;
  const byName = names.length > 0 ? picomatch(names, { dot: true }) : () => false;
  return (file) => byPath(file) || byName(file.slice(file.lastIndexOf('/') + 1));
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
