// One process at a time writes an index directory (the VFS takes no SQLite locks, see
// src/core/store/nodeFsVfs.ts). The owner holds `index.lock`, created exclusively, holding its
// pid; a lock whose process is gone (a crash, a killed window) is taken over.
import { closeSync, constants, fstatSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class IndexLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`the search index in ${dir} is in use by another process (pid ${pid})`);
    this.name = 'IndexLockedError';
  }
}

/**
 * The lock's text. Opened without blocking and checked to be a regular file first: a FIFO (or a
 * device) put there would otherwise hang the reader forever.
 */
function readLock(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${path} is not a regular file; remove it to use this search index`);
    const buf = Buffer.alloc(64);
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock of `dir` (which must exist); returns its release, and whether a dead process's lock
 * was taken over (its last write may have been cut short: the caller checks the index). Throws
 * IndexLockedError.
 */
export function lockIndexDir(dir: string): { release: () => void; tookOver: boolean } {
  const path = join(dir, 'index.lock');
  let tookOver = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        try {
          if (readLock(path).trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
      return { release, tookOver };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let pid = NaN;
      try {
        pid = Number(readLock(path).trim());
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed in between: try again
        throw err;
      }
      if (pid === process.pid || !alive(pid)) {
        tookOver ||= pid !== process.pid;
        try {
          unlinkSync(path);
        } catch {
          // someone else took it over first
        }
        continue;
      }
      throw new IndexLockedError(dir, pid);
    }
  }
  throw new IndexLockedError(dir, NaN);
}
