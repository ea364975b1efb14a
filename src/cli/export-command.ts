import fs from 'node:fs';
import path from 'node:path';
import type { FolderFormat, TermSource } from '../glossary/exports/format.ts';
import { EXPORT_FORMATS, exportFormat } from '../glossary/exports/formats.ts';
import { CliError } from './cli-error.ts';
import type { ServiceClient } from './service-client.ts';

/**
 * `glossary export --format F [-o PATH]`: a file format to standard output or to `-o FILE`
 * (`--output`, `--out`), written whole or not at all; a folder format into `-o DIR`. A folder
 * is written beside DIR first and moved into place whole, so a failure never leaves half an
 * export. DIR must not exist, be empty, or hold a
 * previous export (it has the marker file `.glossary-export`): only then is it replaced;
 * anything else there is never touched.
 */
export const EXPORT_MARKER = '.glossary-export';

export interface ExportOptions {
  format: string;
  out?: string | undefined;
  category?: string | undefined;
  q?: string | undefined;
}

const USAGE_ERROR = 2;

export async function exportCommand(client: ServiceClient, given: ExportOptions): Promise<void> {
  // `-o -` is standard output, as `-` is standard input to `import` (not a file named `-`).
  const options = given.out === '-' ? { ...given, out: undefined } : given;
  const format = exportFormat(options.format);
  if (!format) {
    throw new CliError(
      `unknown format '${options.format}'; one of ${EXPORT_FORMATS.join(', ')}`,
      USAGE_ERROR,
    );
  }
  if (format.kind === 'folder' && options.out === undefined) {
    throw new CliError(
      `--format ${format.name} is a folder: give -o DIR (--output DIR) to write it into`,
      USAGE_ERROR,
    );
  }
  // Asked before anything is written: a refusal (a bad token, a wrong --url) leaves no `[`
  // on standard output.
  const source = await primed(() =>
    client.streamTerms({ category: options.category, q: options.q }),
  );
  if (format.kind === 'folder') {
    if (options.out === undefined) return;
    await writeFolder(format, source, options.out);
    return;
  }
  if (options.out === undefined) {
    for await (const piece of format.render(source)) await write(process.stdout, piece);
    return;
  }
  await writeFile(format.render(source), options.out);
}

/**
 * A file format into `out`: written to a new file beside it and renamed over it only once
 * complete, so a failure (the service refusing, a full disk) leaves `out` as it was, never half
 * an export.
 */
async function writeFile(pieces: AsyncIterable<string>, out: string): Promise<void> {
  const target = followLink(path.resolve(out));
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}-${process.pid}-${Date.now().toString(36)}.tmp`,
  );
  let file: fs.WriteStream | undefined;
  try {
    file = fs.createWriteStream(temporary, { flags: 'wx' });
    const stream = file;
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    // A write that fails after it was accepted is told by an event: kept, and thrown below.
    let failure: Error | undefined;
    stream.on('error', (error) => {
      failure ??= error;
    });
    for await (const piece of pieces) {
      await write(stream, piece);
      if (failure) throw failure;
    }
    await new Promise<void>((resolve, reject) =>
      stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    if (failure) throw failure;
    keepMode(target, temporary);
    fs.renameSync(temporary, target);
  } catch (error) {
    file?.destroy();
    removeIfThere(temporary);
    throw ioError(error, out);
  }
}

/** Where a symbolic link at `target` leads, so the link stays and its file is replaced. */
function followLink(target: string): string {
  try {
    return fs.realpathSync(target);
  } catch {
    return target; // no file there yet (or a dangling link: written as a new file)
  }
}

/** An export replacing a file keeps its permissions (a `chmod 600` export stays private). */
function keepMode(target: string, temporary: string): void {
  let mode: number;
  try {
    mode = fs.statSync(target).mode & 0o7777;
  } catch {
    return;
  }
  fs.chmodSync(temporary, mode);
}

/**
 * `source` with its first batch already read (so its request answered); a second reading of
 * it asks again.
 */
async function primed(source: TermSource): Promise<TermSource> {
  const terms = source()[Symbol.asyncIterator]();
  const first = await terms.next();
  let taken = false;
  return () => {
    if (taken) return source();
    taken = true;
    return (async function* () {
      if (first.done) return;
      yield first.value;
      for (let next = await terms.next(); !next.done; next = await terms.next()) yield next.value;
    })();
  };
}

async function writeFolder(format: FolderFormat, source: TermSource, out: string): Promise<void> {
  const target = path.resolve(out);
  const previous = replaceable(target);
  let staging: string;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    staging = fs.mkdtempSync(path.join(path.dirname(target), `.${path.basename(target)}-`));
  } catch (error) {
    throw ioError(error, out);
  }
  try {
    for await (const file of format.render(source)) {
      const where = path.join(staging, ...file.path.split('/'));
      if (!where.startsWith(staging + path.sep))
        throw new CliError(`bad path in export: ${file.path}`);
      fs.mkdirSync(path.dirname(where), { recursive: true });
      fs.writeFileSync(where, file.content);
    }
    fs.writeFileSync(
      path.join(staging, EXPORT_MARKER),
      `A glossary export (--format ${format.name}); glossary export replaces this folder whole.\n`,
    );
    if (previous) fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(staging, target);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw ioError(error, out);
  }
}

/** Whether DIR holds a previous export; refuses a folder with anything else in it. */
function replaceable(dir: string): boolean {
  let entries: string[];
  try {
    if (!fs.statSync(dir).isDirectory()) throw new CliError(`${dir} exists and is not a folder`);
    entries = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw ioError(error, dir);
  }
  if (entries.length === 0) return true;
  if (entries.includes(EXPORT_MARKER)) return true;
  throw new CliError(
    `${dir} is not empty and holds no previous export (${EXPORT_MARKER}); give a new or empty folder`,
  );
}

/**
 * Removes a temporary file that may never have been created: `rmSync`'s `force` forgives only
 * a missing file, not a path through a file (`-o notes.txt/x.json`, ENOTDIR), which would
 * otherwise crash the command in place of its one-line error.
 */
function removeIfThere(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // Nothing was created there.
  }
}

/** The common reasons in words; any other by its code. */
const REASONS: Record<string, string> = {
  ENOENT: 'its folder does not exist',
  ENOTDIR: 'a part of its path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder',
  ENOSPC: 'the disk is full',
  EROFS: 'the file system is read-only',
};

function ioError(error: unknown, where: string): Error {
  if (error instanceof CliError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (!code) return error as Error;
  return new CliError(`cannot write ${where}: ${REASONS[code] ?? code} (${code})`);
}

/** Writes, waiting while a slower reader catches up (or until the stream fails). */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.write(text)) {
      resolve();
      return;
    }
    const drained = () => {
      stream.off('error', failed);
      resolve();
    };
    const failed = (error: Error) => {
      stream.off('drain', drained);
      reject(error);
    };
    stream.once('drain', drained);
    stream.once('error', failed);
  });
}
