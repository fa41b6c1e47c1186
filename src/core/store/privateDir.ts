// Folders the product makes for itself (caches, records of its own writes) are private to the
// user, 0700, whatever the umask (issue 22 §7), and are made one level at a time: Node 20's
// recursive `mkdir` never returns under /proc (`--index /proc/nonexistent/x` hung), while a walk
// up to the first folder that exists, then one `mkdir` per missing level, fails at once there.
import { chmodSync, mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A folder's mode: the user alone may read, write and enter it. */
export const PRIVATE_DIR_MODE = 0o700;
/** A file's mode: the user alone may read and write it. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` (and each missing folder above it, each 0700) and sets `dir` itself to 0700 even
 * when it existed (a folder of ours an older version made with the umask's mode). Throws an
 * ENOTDIR error when `dir` or a folder above it is a file, and mkdir's own error (ENOENT, EACCES,
 * EROFS…) when a level cannot be made.
 */
export function makePrivateDirSync(dir: string): void {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let at = target; ; ) {
    // ENOTDIR: a folder above is a file; going up finds which.
    let st: Stats | undefined;
    try {
      st = statSync(at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
    }
    if (st !== undefined) {
      if (!st.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, ${at}`), { code: 'ENOTDIR', path: at });
      break;
    }
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (let k = missing.length - 1; k >= 0; k--) {
    try {
      mkdirSync(missing[k]!, { mode: PRIVATE_DIR_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  // The umask may have taken bits from a level just made (0700 & ~umask), or the folder existed.
  chmodSync(target, PRIVATE_DIR_MODE);
}

/** makePrivateDirSync, for callers that await (a few system calls: no thread pool round trips). */
export async function makePrivateDir(dir: string): Promise<void> {
  makePrivateDirSync(dir);
}
