/** Bodies of the size asked for, made once: a JSON array's brackets around filler bytes. */
const bodies = new Map<number, Buffer>();

export function body(size: number): Buffer {
  let buffer = bodies.get(size);
  if (!buffer) {
    buffer = Buffer.alloc(size, 'x');
    if (size >= 2) {
      buffer[0] = 0x5b; // [
      buffer[size - 1] = 0x5d; // ]
    }
    bodies.set(size, buffer);
  }
  return buffer;
}
