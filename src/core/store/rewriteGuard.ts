// Guards in front of every write to an existing session file (Part C §3).
//
// Why "live" matters (Part B §9): the agent keeps its session file open with O_APPEND. An atomic
// rewrite replaces the file by rename, and the running agent keeps appending to the orphaned
// inode — those entries are lost. So we refuse while the file looks live: a guess (modified in
// the last few seconds, named by a terminal breadcrumb) the user may overrule with `force`, and
// a fact (another process holds it open for writing, seen through /proc) that nothing overrules.
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import * as fsp from 'node:fs/promises';
import { processesWritingTo } from './openWriters';
import { tempPathFor } from './tempFiles';
import { RewriteRefusedError } from './writeRefusal';
import { LIVE_WINDOW_MS } from './liveWindow';

export { RewriteRefusedError, type RewriteRefusal } from './writeRefusal';

export interface FileFingerprint {
  size: number;
  mtimeMs: number;
}

export interface GuardOptions {
  /** size + mtime of the file when it was read (LoadedSession.stat). */
  expected: FileFingerprint;
  /**
   * Overrides the live-file GUESSES only: "modified in the last few seconds" and "named by a
   * terminal breadcrumb". Never: changed since read (except where an operation says so),
   * held open for writing by another process, read-only, damaged, dsh, an unwritable version.
   */
  force?: boolean;
  now?: () => number;
  /** Default `~/.xcsh/agent/terminal-sessions`. */
  breadcrumbsDir?: string;
  /** A file modified within this window counts as live. Default 5000 ms. */
  liveWindowMs?: number;
}

export { LIVE_WINDOW_MS };

export function defaultBreadcrumbsDir(): string {
  return join(homedir(), '.xcsh', 'agent', 'terminal-sessions');
}

/** At most this much of a breadcrumb is read: two short lines. */
const BREADCRUMB_CAP = 8192;
// Non-blocking, and never through a symlink: a FIFO or a link planted in the folder must not hang
// or redirect every write command.
const BREADCRUMB_OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

/** The text of a breadcrumb, or null when `file` is not a regular file (FIFO, socket, folder, symlink). */
async function readBreadcrumb(file: string): Promise<string | null> {
  const ls = await fsp.lstat(file).catch(() => null);
  if (!ls?.isFile()) return null;
  const fh = await fsp.open(file, BREADCRUMB_OPEN_FLAGS).catch(() => null);
  if (!fh) return null;
  try {
    if (!(await fh.stat()).isFile()) return null; // swapped after the lstat
    const buf = Buffer.alloc(BREADCRUMB_CAP);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.toString('utf8', 0, bytesRead);
  } catch {
    return null;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * Breadcrumbs (Part A "Layout on disk"): one file per terminal, line 1 the cwd, line 2 the session
 * file path. Returns the breadcrumb files that name `path` — compared as files (device + inode),
 * so a breadcrumb still protects the session reached through a symlinked folder or another
 * spelling of its path; by resolved path where either side cannot be stat'ed. Only regular files
 * are read, at most 8 KB each. A missing directory means none.
 */
export async function breadcrumbsNaming(path: string, dir: string = defaultBreadcrumbsDir()): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const target = await fsp.stat(path).catch(() => null);
  const targetPath = resolve(path);
  const hits: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const named = (await readBreadcrumb(file))?.split('\n')[1]?.trim();
    if (!named) continue;
    const st = target ? await fsp.stat(named).catch(() => null) : null;
    if (target && st ? st.dev === target.dev && st.ino === target.ino : resolve(named) === targetPath) hits.push(file);
  }
  return hits;
}

/**
 * Throws a forceable `live` when the file was modified in the last few seconds or a breadcrumb
 * names it: both are guesses that an agent may have it open, which the user may overrule.
 */
export async function assertNotLive(path: string, mtimeMs: number, opts: Omit<GuardOptions, 'expected'>): Promise<void> {
  if (opts.force) return;
  const now = (opts.now ?? Date.now)();
  const window = opts.liveWindowMs ?? LIVE_WINDOW_MS;
  const age = now - mtimeMs;
  if (age < window) {
    throw new RewriteRefusedError('live', path, `it was modified ${Math.max(0, Math.round(age))} ms ago and may be open in a running agent`, true);
  }
  const crumbs = await breadcrumbsNaming(path, opts.breadcrumbsDir);
  if (crumbs.length > 0) {
    throw new RewriteRefusedError('live', path, `a terminal breadcrumb (${crumbs[0]}) names it, so an agent may have it open`, true);
  }
}

/** How often, and how far apart, a writer found holding the file is looked for again. */
const CONFIRM_LOOKS = 3;
const CONFIRM_GAP_MS = 25;

/**
 * Throws `live` — NOT forceable — when another process holds the file open for writing (Linux;
 * elsewhere the scan finds nothing). A rewrite renames a new file into place; that process would
 * go on appending to the old, orphaned inode and everything it writes would be lost (Part B §9).
 */
export async function assertNoOtherWriters(path: string, realPath: string, st: { dev: number; ino: number }): Promise<void> {
  let writers = await processesWritingTo(realPath, st.dev, st.ino);
  // A writer that opens, appends and closes per record (pi's appendFileSync) holds the file for
  // microseconds — longer when descheduled — and a rewrite carries its records over (tailCarry.ts).
  // Only a process that still holds the same fd a moment later, every time we look, holds it open.
  for (let look = 0; look < CONFIRM_LOOKS && writers.length > 0; look++) {
    await new Promise((r) => setTimeout(r, CONFIRM_GAP_MS));
    const again = await processesWritingTo(realPath, st.dev, st.ino);
    writers = writers.filter((w) => again.some((a) => a.pid === w.pid && a.fd === w.fd));
  }
  if (writers.length === 0) return;
  const who = writers.map((w) => `pid ${w.pid}${w.command ? ` (${w.command})` : ''}`);
  throw new RewriteRefusedError(
    'live',
    path,
    `${[...new Set(who)].join(', ')} has it open for writing; a rewrite would orphan everything it appends from now on, so --force does not override this (close that program first)`,
  );
}

/**
 * Throws `changed` when a file's current size+mtime (`actual`) differ from what was read;
 * `forceable` when the caller's `force` would write the current bytes anyway.
 */
export function assertFingerprint(path: string, expected: FileFingerprint, actual: FileFingerprint, forceable = false): void {
  if (actual.size !== expected.size || actual.mtimeMs !== expected.mtimeMs) {
    throw new RewriteRefusedError(
      'changed',
      path,
      `it changed since it was read (size ${expected.size} → ${actual.size}, mtime ${new Date(expected.mtimeMs).toISOString()} → ${new Date(actual.mtimeMs).toISOString()}); reload it first`,
      forceable,
    );
  }
}

/** Throws `changed` when the file's size or mtime differ from what was read; `missing` when gone. */
export async function assertUnchanged(path: string, expected: FileFingerprint): Promise<FileFingerprint> {
  let st;
  try {
    st = await fsp.stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new RewriteRefusedError('missing', path, 'the file no longer exists');
    throw e;
  }
  const actual = { size: st.size, mtimeMs: st.mtimeMs };
  assertFingerprint(path, expected, actual);
  return actual;
}

export function backupPathFor(path: string, now: number): string {
  return `${path}.bak-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
}

/**
 * Copies the original bytes next to the (real) file; never overwrites an existing backup, and
 * never leaves a partial one under a backup name: the copy goes to a temp name, is fsynced, then
 * hard-linked to the first free backup name (link fails if the name exists). A kill midway leaves
 * only the temp, which the next write removes once stale (tempFiles.ts). Returns the backup path.
 */
export async function writeBackup(path: string, now: number): Promise<string> {
  const real = await fsp.realpath(path);
  const tmp = tempPathFor(real);
  try {
    await fsp.copyFile(real, tmp, fsp.constants.COPYFILE_EXCL);
    const fh = await fsp.open(tmp, 'r+');
    try {
      const st = await fsp.stat(real);
      // best effort: the backup is the owner's, not root's (a failure only leaves it ours)
      await fh.chown(st.uid, st.gid).catch(() => undefined);
      await fh.sync();
    } finally {
      await fh.close();
    }
    for (let n = 0; ; n++) {
      const target = n === 0 ? backupPathFor(real, now) : `${backupPathFor(real, now)}-${n}`;
      try {
        await fsp.link(tmp, target);
        return target;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (n >= 100) throw e;
        if (code === 'EEXIST') continue;
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
        // no hard links on this file system: rename the complete copy into the name, if free
        if (await fsp.access(target).then(() => true, () => false)) continue;
        await fsp.rename(tmp, target);
        return target;
      }
    }
  } finally {
    await fsp.unlink(tmp).catch(() => undefined);
  }
}
