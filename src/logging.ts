import pino, { type Logger } from 'pino';
import type { LogFormat, LogLevel } from './config.ts';
import { stdoutLines } from './stdout-lines.ts';

/**
 * The service's logger: JSON lines with ISO times for collectors, or, on a terminal, one
 * readable line per event (LOG_FORMAT). Both say the same things; the readable form is
 * written by a few lines here rather than a formatter package and its dependencies.
 */
export function createLogger({
  logLevel,
  logFormat,
}: {
  logLevel: LogLevel;
  logFormat: LogFormat;
}): Logger {
  const options = { level: logLevel, timestamp: isoTime };
  const pretty = logFormat === 'pretty' || (logFormat === 'auto' && process.stdout.isTTY === true);
  const out = stdoutLines();
  if (!pretty) return pino(options, out);
  const colour = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
  // pino calls `flushSync` after a fatal line, on a destination that has one.
  const readable = {
    write: (line: string) => out.write(readableOf(line, colour)),
    flushSync: () => out.flushSync(),
  };
  return pino(options, readable);
}

let formattedMs = -1;
let formatted = '';
/**
 * pino's ISO time (`,"time":"2026-11-22T17:01:20.123Z"`), formatted once per millisecond:
 * under load a line per request makes tens of lines share each one.
 */
function isoTime(): string {
  const now = Date.now();
  if (now !== formattedMs) {
    formattedMs = now;
    formatted = `,"time":"${new Date(now).toISOString()}"`;
  }
  return formatted;
}

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
const COLOURS: Record<number, string> = { 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[31m' };
/** Said by the line itself, or noise on a terminal. */
const SHOWN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId']);

/** `2026-11-22T17:01:20.123Z INFO  GET /terms/5 200 1.2 ms from 127.0.0.1` and the like. */
export function readableLine(record: Record<string, unknown>, colour = false): string {
  const level = Number(record.level);
  let text: string;
  if (record.msg === 'request completed') {
    text = `${record.method} ${record.url} ${record.statusCode} ${record.responseTimeMs} ms from ${record.remoteAddress}`;
  } else {
    const rest = Object.entries(record)
      .filter(([key]) => !SHOWN.has(key))
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    text = [record.msg, ...rest].filter(Boolean).join(' ');
  }
  const label = LEVELS[level] ?? String(level);
  const shown = colour && COLOURS[level] ? `${COLOURS[level]}${label}\x1b[0m` : label;
  return `${record.time} ${shown} ${text}\n`;
}

/** pino's JSON line as a readable one (a line that is not JSON as it is). */
function readableOf(line: string, colour: boolean): string {
  try {
    return readableLine(JSON.parse(line) as Record<string, unknown>, colour);
  } catch {
    return line;
  }
}
