import fs from 'node:fs';

/**
 * Where the log's lines go: standard output, written on the main thread, in the order logged,
 * never blocking it.
 *
 * - Lines logged in one turn are written together once the turn ends (`setImmediate`), in
 *   writes of whole lines of at most `CHUNK` characters: on a pipe such a write (of ASCII
 *   lines) is atomic, so the lines of `WORKERS` processes sharing one pipe do not interleave
 *   (a single longer line, written alone, may).
 * - A reader that stops reading (a full pipe: `EAGAIN`) never blocks a request: the lines wait
 *   in memory and are tried again every `RETRY_MS`.
 * - As the process exits (`exit`, also after an uncaught exception, and at every `fatal` line)
 *   what is left is written synchronously, after everything written before it. A stalled
 *   reader holds the exit at most `EXIT_PATIENCE_MS` without taking a byte; then the rest is
 *   dropped and the process exits.
 * - A reader that has gone (`EPIPE`) ends the writing, quietly. Any other failed write (a full
 *   disk under a redirected file) loses that write's lines, not the process.
 *
 * pino's default destination (sonic-boom) wrote from libuv's thread pool instead. At exit it
 * wrote the queued lines while an earlier write could still be in flight, so a turn's first
 * lines could arrive after later ones (or never), and with a stalled reader it retried forever,
 * so the process never exited.
 */
export class LineWriter {
  readonly #fd: number;
  /** Lines logged and not yet taken into a write, from `#head` on. */
  #lines: string[] = [];
  #head = 0;
  /** What the descriptor has not taken yet of the write under way. */
  #rest: string | Buffer | undefined;
  #scheduled = false;
  #retry: NodeJS.Timeout | undefined;
  #gone = false;
  #tookAt = 0;

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(line: string): boolean {
    if (this.#gone) return true;
    this.#lines.push(line);
    if (!this.#scheduled && this.#retry === undefined) {
      this.#scheduled = true;
      setImmediate(this.#writeLater);
    }
    return true;
  }

  /** Writes everything logged so far before returning, or gives up on a stalled reader. */
  flushSync(): void {
    this.#tookAt = performance.now();
    while (!this.#writeWhatFits()) {
      if (performance.now() - this.#tookAt > EXIT_PATIENCE_MS) {
        this.#drop();
        return;
      }
      Atomics.wait(SLEEPER, 0, 0, RETRY_MS);
    }
  }

  readonly #writeLater = (): void => {
    this.#scheduled = false;
    this.#retry = undefined;
    // The timer is unref'd: a process with nothing else to do exits, and `flushSync` writes.
    if (!this.#writeWhatFits()) this.#retry = setTimeout(this.#writeLater, RETRY_MS).unref();
  };

  /** Writes until everything is written (true) or the descriptor takes no more (false). */
  #writeWhatFits(): boolean {
    for (;;) {
      const chunk = this.#rest ?? this.#nextChunk();
      if (chunk === undefined) return true;
      let written: number;
      try {
        written =
          typeof chunk === 'string' ? fs.writeSync(this.#fd, chunk) : fs.writeSync(this.#fd, chunk);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          this.#rest = chunk;
          return false;
        }
        this.#rest = undefined;
        if (code === 'EPIPE') {
          this.#gone = true;
          this.#drop();
          return true;
        }
        continue;
      }
      this.#tookAt = performance.now();
      if (typeof chunk !== 'string')
        this.#rest = written < chunk.length ? chunk.subarray(written) : undefined;
      else if (written < Buffer.byteLength(chunk))
        this.#rest = Buffer.from(chunk).subarray(written);
      else this.#rest = undefined;
    }
  }

  /** Whole lines from the front, at most `CHUNK` characters (or one longer line alone). */
  #nextChunk(): string | undefined {
    const lines = this.#lines;
    if (this.#head === lines.length) return undefined;
    let chunk = lines[this.#head++] as string;
    while (this.#head < lines.length) {
      const line = lines[this.#head] as string;
      if (chunk.length + line.length > CHUNK) break;
      chunk += line;
      this.#head += 1;
    }
    if (this.#head === lines.length) {
      this.#lines = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > lines.length) {
      lines.splice(0, this.#head);
      this.#head = 0;
    }
    return chunk;
  }

  #drop(): void {
    this.#lines = [];
    this.#head = 0;
    this.#rest = undefined;
  }
}

/** PIPE_BUF on Linux. */
const CHUNK = 4096;
const RETRY_MS = 5;
const EXIT_PATIENCE_MS = 2000;
const STDOUT = 1;
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

let stdout: LineWriter | undefined;

/** The process's one writer of standard output's log lines, shared by every logger. */
export function stdoutLines(): LineWriter {
  if (stdout === undefined) {
    // A full pipe or socket must answer EAGAIN, not stop the event loop. Node opens them
    // non-blocking behind `process.stdout`, but the mode belongs to the open file, which the
    // parent shares and may have changed: said here again (a file or a terminal stays as it
    // is, and its writes never wait on a reader).
    const out = process.stdout as NodeJS.WriteStream & {
      _handle?: { setBlocking?(on: boolean): number };
    };
    if (!out.isTTY) out._handle?.setBlocking?.(false);
    const writer = new LineWriter(STDOUT);
    process.on('exit', () => writer.flushSync());
    stdout = writer;
  }
  return stdout;
}
