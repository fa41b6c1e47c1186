// One process at a time writes an index directory (the VFS takes no SQLite locks, see
// src/core/store/nodeFsVfs.ts). The owner holds `index.lock`, created exclusively, holding its
// pid; a lock whose process is gone (a crash, a killed window) is taken over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
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

/** Takes the lock of `dir` (which must exist); returns its release. Throws IndexLockedError. */
export function lockIndexDir(dir: string): () => void {
  const path = join(dir, 'index.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let pid = NaN;
      try {
        pid = Number(readFileSync(path, 'utf8').trim());
      } catch {
        continue; // removed in between: try again
      }
      if (pid === process.pid || !alive(pid)) {
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
