// A content-addressed file (an xcsh blob, a dsh attachment: its name is the SHA-256 of its bytes),
// read safely: a regular file, never followed through a link, no larger than its reader allows,
// read for exactly its size, and its SHA-256 must be its name. Every failure is a typed answer,
// never an exception.
import { createHash } from 'node:crypto';
import { constants as fsConstants, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { readRange } from './fileHead';

// O_NOFOLLOW closes the window between the lstat check and the open (a file swapped for a link);
// O_NONBLOCK makes opening a FIFO return at once instead of waiting forever for a writer. Both
// are POSIX only: on Windows the lstat check alone decides.
const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0);

export type OpenProblem = { reason: 'missing' } | { reason: 'symlink' } | { reason: 'unreadable'; code: string };

/** Why a file could not be looked at or opened. */
export function openProblemOf(e: unknown): OpenProblem {
  const code = (e as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'ENOENT' || code === 'ENOTDIR') return { reason: 'missing' };
  // what O_NOFOLLOW answers for a link (Linux and macOS: ELOOP; FreeBSD: EMLINK)
  if (code === 'ELOOP' || code === 'EMLINK') return { reason: 'symlink' };
  return { reason: 'unreadable', code };
}

export type HashedFileRead<P> = { ok: true; bytes: Buffer } | { ok: false; problem: P | OpenProblem | { reason: 'hash-mismatch'; actual: string } };

/**
 * The bytes of the file at `path`, whose SHA-256 must be `sha256` (lowercase hex). `statProblem`
 * judges its own metadata (not followed) before the open, and the fstat of what was opened after
 * it (the name may have been swapped in between): a link, not a regular file, too large.
 */
export async function readHashedFile<P>(path: string, sha256: string, statProblem: (st: Stats) => P | null): Promise<HashedFileRead<P>> {
  try {
    const before = statProblem(await lstat(path));
    if (before) return { ok: false, problem: before };
  } catch (e) {
    return { ok: false, problem: openProblemOf(e) };
  }
  let fh;
  try {
    fh = await open(path, OPEN_FLAGS);
  } catch (e) {
    return { ok: false, problem: openProblemOf(e) };
  }
  try {
    const st = await fh.stat();
    const problem = statProblem(st);
    if (problem) return { ok: false, problem };
    // Exactly st.size bytes: never "read until end", which a device or a growing file never reaches.
    const bytes = await readRange(fh, 0, st.size);
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== sha256) return { ok: false, problem: { reason: 'hash-mismatch', actual } };
    return { ok: true, bytes };
  } catch (e) {
    return { ok: false, problem: openProblemOf(e) };
  } finally {
    await fh.close().catch(() => undefined);
  }
}
