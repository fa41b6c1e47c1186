// The reference (test-only, issue 23): the session listings of the agent's SessionManager (spec
// Part A "Session discovery"): the newest sessions of one folder or project, and every session
// under the roots. The product lists with listAllWithSkipped (src/core/discovery/discovery.ts),
// which these share their session info with.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { cwdDirNames } from '../../src/core/formats/xcsh/cwd';
import { byNewest, defaultSessionRoots, isSessionFileName, listAllWithSkipped, readSessionInfo, type SessionInfo } from '../../src/core/discovery/discovery';

async function jsonlFilesIn(dir: string): Promise<{ path: string; mtimeMs: number }[]> {
  let names;
  try {
    names = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: { path: string; mtimeMs: number }[] = [];
  for (const d of names) {
    if (!d.isFile() || !isSessionFileName(d.name)) continue;
    const p = join(dir, d.name);
    try {
      out.push({ path: p, mtimeMs: (await stat(p)).mtimeMs });
    } catch {
      // vanished between readdir and stat
    }
  }
  return out;
}

/** Session files directly in `dir`, newest first (by mtime), with metadata; at most `limit`. */
export async function getRecentSessions(dir: string, limit = 20): Promise<SessionInfo[]> {
  const files = (await jsonlFilesIn(dir)).sort(byNewest).slice(0, Math.max(0, limit));
  const infos = await Promise.all(files.map((f) => readSessionInfo(f.path)));
  return infos.filter((x): x is SessionInfo => x !== null);
}

/** The newest session file in `dir` by mtime, or null. */
export async function findMostRecentSession(dir: string): Promise<string | null> {
  const files = (await jsonlFilesIn(dir)).sort(byNewest);
  return files[0]?.path ?? null;
}

/**
 * Sessions of one project scope, newest first. With `sessionDir`, that folder; otherwise the
 * folders named for `cwd` (both encodings) under every default root.
 */
export async function list(cwd: string, sessionDir?: string, roots: string[] = defaultSessionRoots()): Promise<SessionInfo[]> {
  const dirs = sessionDir ? [sessionDir] : roots.flatMap((r) => cwdDirNames(cwd).map((n) => join(r, n)));
  const files = (await Promise.all(dirs.map(jsonlFilesIn))).flat().sort(byNewest);
  const infos = await Promise.all(files.map((f) => readSessionInfo(f.path)));
  return infos.filter((x): x is SessionInfo => x !== null);
}

/**
 * Every session under the roots, recursively (so subagent sessions under their parent's folder
 * are found), newest first. Symlinked folders are not followed (no loops).
 */
export async function listAll(root?: string | string[]): Promise<SessionInfo[]> {
  return (await listAllWithSkipped(root)).sessions;
}
