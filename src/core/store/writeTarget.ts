// The file a write lands in, and whether writing it keeps what the file IS (issue 15 §3).
//
// - A symlinked session stays a symlink: every write resolves the real path once and writes
//   there (the temp goes next to the real file), so the target gets the new bytes.
// - A rewrite replaces the file by rename. That keeps owner, group and mode only if we copy them
//   onto the temp (writeFileAtomicStream does; a failed chown refuses rather than hand the file
//   to us — its agent could no longer append). It cannot keep hard links: the other names would
//   keep the old bytes, so a file with more than one link is refused, never silently split.
//   (An append keeps every link: it writes into the same inode.)
// - A file without its owner-write bit is read-only and refused, also for root, whose
//   access(W_OK) says yes to everything: the mode bits are what the user set.
// - Only regular files: opening a FIFO would hang, a device is not a session.
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { RewriteRefusedError } from './writeRefusal';

export type WriteKind = 'replace' | 'append';

/** Why writing a file with these stats would break its identity or its permissions, or null. */
export function writeTargetRefusal(path: string, st: fs.Stats, kind: WriteKind): RewriteRefusedError | null {
  if (!st.isFile()) return new RewriteRefusedError('identity', path, 'it is not a regular file (a FIFO, device or directory is never written)');
  if ((st.mode & 0o200) === 0) {
    const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
    return new RewriteRefusedError('read-only', path, `its permissions (${mode}) have no owner write bit: a read-only file is never written (chmod u+w to allow it)`);
  }
  if (kind === 'replace' && st.nlink > 1) {
    return new RewriteRefusedError('identity', path, `it has ${st.nlink} hard links; a rewrite replaces the file, so the other ${st.nlink - 1} name(s) would keep the old bytes (copy it to a file of its own first)`);
  }
  return null;
}

/** An existing file opened for reading where it really is, with its stats at that moment. */
export interface OpenOriginal {
  /** As the caller named it (for messages). */
  path: string;
  /** Symlinks resolved: where the bytes are read and written. */
  realPath: string;
  fh: fsp.FileHandle;
  st: fs.Stats;
}

// O_NONBLOCK: a FIFO swapped in after the stat still cannot hang the open. O_NOFOLLOW: the real
// path has no symlink left to follow; one appearing there now is someone else's swap.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

/**
 * Resolves and opens `path` for a write of `kind`, refusing (RewriteRefusedError) a missing
 * file, a non-regular one, a read-only one and, for a rewrite, a hard-linked one.
 */
export async function openOriginal(path: string, kind: WriteKind): Promise<OpenOriginal> {
  let realPath: string;
  try {
    realPath = await fsp.realpath(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new RewriteRefusedError('missing', path, 'the file does not exist');
    throw e;
  }
  // stat before open: never open something that is not a regular file
  const pre = await fsp.stat(realPath);
  const before = writeTargetRefusal(path, pre, kind);
  if (before) throw before;
  const fh = await fsp.open(realPath, OPEN_FLAGS);
  try {
    const st = await fh.stat();
    if (st.dev !== pre.dev || st.ino !== pre.ino) throw new RewriteRefusedError('changed', path, 'it was replaced while being opened; reload it first');
    const refusal = writeTargetRefusal(path, st, kind);
    if (refusal) throw refusal;
    return { path, realPath, fh, st };
  } catch (e) {
    await fh.close();
    throw e;
  }
}
