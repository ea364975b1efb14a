import fs from 'node:fs';
import path from 'node:path';
import type { FolderFormat, TermSource } from '../glossary/exports/format.ts';
import { EXPORT_FORMATS, exportFormat } from '../glossary/exports/formats.ts';
import { CliError } from './cli-error.ts';
import type { ServiceClient } from './service-client.ts';

/**
 * `glossary export --format F [--out PATH]`: a file format to standard output or to `--out
 * FILE`; a folder format into `--out DIR`. A folder is written beside DIR first and moved into
 * place whole, so a failure never leaves half an export. DIR must not exist, be empty, or hold a
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

export async function exportCommand(client: ServiceClient, options: ExportOptions): Promise<void> {
  const format = exportFormat(options.format);
  if (!format) {
    throw new CliError(
      `unknown format '${options.format}'; one of ${EXPORT_FORMATS.join(', ')}`,
      USAGE_ERROR,
    );
  }
  const source: TermSource = () => client.streamTerms({ category: options.category, q: options.q });
  if (format.kind === 'folder') {
    if (options.out === undefined) {
      throw new CliError(
        `--format ${format.name} is a folder: give --out DIR to write it into`,
        USAGE_ERROR,
      );
    }
    await writeFolder(format, source, options.out);
    return;
  }
  if (options.out === undefined) {
    for await (const piece of format.render(source)) await write(process.stdout, piece);
    return;
  }
  const file = fs.createWriteStream(options.out);
  const opened = new Promise<void>((resolve, reject) => {
    file.once('open', () => resolve());
    file.once('error', reject);
  });
  try {
    await opened;
    for await (const piece of format.render(source)) await write(file, piece);
    await new Promise<void>((resolve, reject) =>
      file.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    file.destroy();
    throw ioError(error, options.out);
  }
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

function ioError(error: unknown, where: string): Error {
  if (error instanceof CliError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return code ? new CliError(`cannot write ${where}: ${code}`) : (error as Error);
}

/** Writes, waiting while a slower reader catches up. */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(text)) resolve();
    else stream.once('drain', resolve);
  });
}
