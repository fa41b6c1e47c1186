// Guards in front of every write to an existing session file (Part C §3).
//
// Why "live" matters (Part B §9): the agent keeps its session file open with O_APPEND. An atomic
// rewrite replaces the file by rename, and the running agent keeps appending to the orphaned
// inode — those entries are lost. So we refuse while the file looks live, unless forced.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import * as fsp from 'node:fs/promises';

export type RewriteRefusal = 'changed' | 'live' | 'read-only' | 'exists' | 'missing';

export class RewriteRefusedError extends Error {
  readonly reason: RewriteRefusal;
  readonly path: string;
  constructor(reason: RewriteRefusal, path: string, detail: string) {
    super(`refusing to write ${path}: ${detail}`);
    this.name = 'RewriteRefusedError';
    this.reason = reason;
    this.path = path;
  }
}

export interface FileFingerprint {
  size: number;
  mtimeMs: number;
}

export interface GuardOptions {
  /** size + mtime of the file when it was read (LoadedSession.stat). */
  expected: FileFingerprint;
  /** Overrides the "live" guard only (see each operation for what else it may override). */
  force?: boolean;
  now?: () => number;
  /** Default `~/.xcsh/agent/terminal-sessions`. */
  breadcrumbsDir?: string;
  /** A file modified within this window counts as live. Default 5000 ms. */
  liveWindowMs?: number;
}

export const LIVE_WINDOW_MS = 5000;

export function defaultBreadcrumbsDir(): string {
  return join(homedir(), '.xcsh', 'agent', 'terminal-sessions');
}

/**
 * Breadcrumbs (Part A "Layout on disk"): one file per terminal, line 1 the cwd, line 2 the session
 * file path. Returns the breadcrumb files that name `path`. A missing directory means none.
 */
export async function breadcrumbsNaming(path: string, dir: string = defaultBreadcrumbsDir()): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const target = resolve(path);
  const hits: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      const fh = await fsp.open(file, 'r');
      let text: string;
      try {
        // two short lines: never read more than a few KB of something that may not be a breadcrumb
        const buf = Buffer.alloc(8192);
        const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
        text = buf.toString('utf8', 0, bytesRead);
      } finally {
        await fh.close();
      }
      const second = text.split('\n')[1]?.trim();
      if (second && resolve(second) === target) hits.push(file);
    } catch {
      // a directory or unreadable entry is not a breadcrumb
    }
  }
  return hits;
}

/** Throws `live` when the file was modified in the last few seconds or a breadcrumb names it. */
export async function assertNotLive(path: string, mtimeMs: number, opts: Omit<GuardOptions, 'expected'>): Promise<void> {
  if (opts.force) return;
  const now = (opts.now ?? Date.now)();
  const window = opts.liveWindowMs ?? LIVE_WINDOW_MS;
  const age = now - mtimeMs;
  if (age < window) {
    throw new RewriteRefusedError('live', path, `it was modified ${Math.max(0, Math.round(age))} ms ago and may be open in a running agent (retry later, or force)`);
  }
  const crumbs = await breadcrumbsNaming(path, opts.breadcrumbsDir);
  if (crumbs.length > 0) {
    throw new RewriteRefusedError('live', path, `a terminal breadcrumb (${crumbs[0]}) names it, so an agent may have it open (close that agent, or force)`);
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
  if (st.size !== expected.size || st.mtimeMs !== expected.mtimeMs) {
    throw new RewriteRefusedError(
      'changed',
      path,
      `it changed since it was read (size ${expected.size} → ${st.size}, mtime ${new Date(expected.mtimeMs).toISOString()} → ${new Date(st.mtimeMs).toISOString()}); reload it first`,
    );
  }
  return { size: st.size, mtimeMs: st.mtimeMs };
}

export function backupPathFor(path: string, now: number): string {
  return `${path}.bak-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
}

/** Copies the original bytes next to the file; never overwrites an existing backup. */
export async function writeBackup(path: string, now: number): Promise<string> {
  let target = backupPathFor(path, now);
  for (let n = 1; ; n++) {
    try {
      await fsp.copyFile(path, target, fsp.constants.COPYFILE_EXCL);
      return target;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n > 100) throw e;
      target = `${backupPathFor(path, now)}-${n}`;
    }
  }
}
