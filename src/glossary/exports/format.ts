import type { Term } from '../term.ts';

/**
 * What every export format is (terminology-and-docs.md, "Exports"): one renderer per format in
 * this folder, shared by the service (`GET /exports/{format}`) and the CLI (`glossary export`).
 * A renderer only turns terms into text; it knows nothing of HTTP, files or zips.
 */

/**
 * The terms to export, in chunks in creation order. Each call reads them again from the start,
 * so a renderer that needs to know every id before it writes (cross references to terms in the
 * file only) reads twice rather than holding the glossary in memory.
 */
export type TermSource = () => AsyncIterable<readonly Term[]>;

interface FormatInfo {
  /** As `--format` and `/exports/{format}` name it. */
  name: string;
  /** One line, for `--help` and the OpenAPI document. */
  description: string;
}

/** A format that is one file, its text written piece by piece as the terms are read. */
export interface FileFormat extends FormatInfo {
  kind: 'file';
  /** The `Content-Type` the service answers, charset included where text. */
  mediaType: string;
  /** The name a download is saved under, e.g. `glossary.tbx`. */
  fileName: string;
  render(terms: TermSource): AsyncIterable<string>;
}

/** One file of a folder format, its path relative to the folder (`/`-separated). */
export interface FolderFile {
  path: string;
  content: string;
}

/**
 * A format that is a folder: its files one at a time. The service sends them as one `.zip`
 * (`{folderName}.zip`), the CLI writes them under `--out DIR`.
 */
export interface FolderFormat extends FormatInfo {
  kind: 'folder';
  folderName: string;
  render(terms: TermSource): AsyncIterable<FolderFile>;
}

export type ExportFormat = FileFormat | FolderFormat;
