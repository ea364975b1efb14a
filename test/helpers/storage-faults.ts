import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { tempDir } from './backends.ts';

/**
 * Real storage faults for the fault suites: a small tmpfs that can be filled to the last byte,
 * and the immutable file attribute (which refuses writes even to root, even through a file
 * descriptor that is already open). Both need root; where they are not available the tests
 * skip with a notice, except under CI=true, where that is a failure.
 */

function unavailable(t: TestContext, what: string, error: unknown): void {
  const reason = `${what} is not available here (${(error as Error).message.split('\n')[0]})`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI must run the storage-fault tests`);
  t.skip(reason);
}

export interface SmallDisk {
  dir: string;
  /** Writes a filler file until the file system refuses even one more byte. */
  fill(): void;
  /** Deletes the filler: the space is free again. */
  free(): void;
}

/**
 * A tmpfs of `bytes` mounted on a fresh folder, or null (test skipped) where mount fails.
 * `owner` (a user name) owns its root, for a server process running as that user.
 */
export function mountSmallDisk(t: TestContext, bytes: number, owner?: string): SmallDisk | null {
  const dir = tempDir('glossary-disk-');
  try {
    const options = [`size=${bytes}`];
    if (owner) {
      const uid = execFileSync('id', ['-u', owner], { encoding: 'utf8' }).trim();
      const gid = execFileSync('id', ['-g', owner], { encoding: 'utf8' }).trim();
      options.push(`uid=${uid}`, `gid=${gid}`, 'mode=0700');
    }
    execFileSync('mount', ['-t', 'tmpfs', '-o', options.join(','), 'tmpfs', dir], {
      stdio: 'pipe',
    });
  } catch (error) {
    unavailable(t, 'mounting a tmpfs', error);
    return null;
  }
  // Unmounted after the test whatever happens in it (and after its own clean-up).
  t.after(() => {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = fs.openSync(filler, 'a');
      try {
        for (const size of [1 << 16, 1 << 12, 1 << 8, 1]) {
          const chunk = Buffer.alloc(size, 1);
          for (;;) {
            try {
              fs.writeSync(fd, chunk);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    },
    free() {
      fs.rmSync(filler, { force: true });
    },
  };
}

/** Sets or clears the immutable attribute; false (test skipped) where chattr is refused. */
export function setImmutable(t: TestContext, files: string[], on: boolean): boolean {
  try {
    execFileSync('chattr', [on ? '+i' : '-i', ...files], { stdio: 'pipe' });
    return true;
  } catch (error) {
    unavailable(t, 'chattr +i', error);
    return false;
  }
}
