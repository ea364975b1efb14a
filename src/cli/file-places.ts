/**
 * Where things are in a terms file, for messages a person can follow to the spot: lines and
 * columns count from 1; a line ends at `\n`, `\r\n` or `\r`; columns count characters (code
 * points).
 */

/**
 * The line each CSV record starts on, the header's included, as RFC 4180 reads them (a line
 * break inside quotes is part of the field), empty lines skipped as the parser skips them.
 */
export function csvRecordLines(text: string): number[] {
  const starts: number[] = [];
  let line = 1;
  let inQuotes = false;
  let atRecordStart = true;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const lineBreak = char === '\n' || char === '\r';
    if (atRecordStart && !lineBreak) {
      starts.push(line);
      atRecordStart = false;
    }
    if (char === '"') inQuotes = !inQuotes;
    else if (lineBreak) {
      if (char === '\r' && text[i + 1] === '\n') i++;
      line++;
      if (!inQuotes) atRecordStart = true;
    }
  }
  return starts;
}

/**
 * The line and column of a JSON.parse error, from the position V8 names (`... in JSON at
 * position 17`), or just past the last character when it names none (`Unexpected end of JSON
 * input`);
 * `reason` is the message without the position.
 */
export function jsonPosition(
  text: string,
  message: string,
): { line: number; column: number; reason: string } {
  const match = /\s+in JSON at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
  // A position in the white space the text ends with is the end of the input: point just past
  // its last character, not at a blank line after it.
  const end = text.trimEnd().length;
  const offset = match ? Math.min(Number(match[1]), end) : end;
  const before = text.slice(0, offset);
  const lines = before.split(/\r\n|\r|\n/);
  const last = lines.at(-1) ?? '';
  const reason = (match ? message.replace(match[0], '') : message).replace(/^JSON\.parse: /, '');
  return { line: lines.length, column: [...last].length + 1, reason };
}
