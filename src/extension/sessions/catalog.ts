// What the Sessions view lists: the roots, their project folders and the session files in them,
// with the metadata a row needs read from a small prefix of each file (Part A "Discovery":
// listings never read whole files). Subagent sessions live at `<session file without .jsonl>/…`
// (Part B §13) and are attached to their parent session.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeCwd } from '../../core/formats/xcsh/cwd';
import { defaultSessionRoots, isSessionFileName, readSessionInfo } from '../../core/discovery/discovery';
import type { SessionFormat } from '../../core/formats/detect';
import { DSH_LOG_NAMES } from '../../core/formats/dsh/paths';
import { listDshDatabaseSessions } from '../../core/formats/dsh/sqliteStore';
import { CURRENT_SESSION_VERSION } from '../../core/formats/xcsh/schemas';

export function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** The configured roots, or the xcsh default plus the omp and pi defaults that exist. */
export function resolveRoots(configured: readonly string[]): string[] {
  if (configured.length > 0) return [...new Set(configured.map(expandHome).map((p) => path.resolve(p)))];
  return defaultSessionRoots(os.homedir());
}

export type SessionState = 'current' | 'needs-migration' | 'damaged' | 'too-new';

export interface SessionMeta {
  file: string;
  root: string;
  /** The project folder (the directory under the root). */
  projectDir: string;
  id: string;
  cwd: string | undefined;
  title: string | undefined;
  /** Header timestamp (ISO), if any. */
  created: string | undefined;
  modifiedMs: number;
  size: number;
  /** Header version before migration (absent = 1); undefined without a header. */
  version: number | undefined;
  state: SessionState;
  firstUserMessage: string | undefined;
  /** The first user message that says what the session is about (not a bare slash command or id). */
  firstPrompt: string | undefined;
  parentSession: string | undefined;
  /** Subagent sessions found in `<file without .jsonl>/`. */
  subagents: SessionMeta[];
  isSubagent: boolean;
  /** Which agent wrote it (by content): dsh logs are shown read-only and never written. */
  format: SessionFormat;
  /**
   * A session of a dsh SQLite store: the store's path and the session's id. `file` is then a key
   * (`<store>#session=<id>`), not a path; the store is what is read.
   */
  store?: { path: string; session: string };
}

/** The key of a store session (its `file`): unique per store and session, never a real path. */
export function storeSessionKey(store: string, session: string): string {
  return `${store}#session=${encodeURIComponent(session)}`;
}

/**
 * The sessions of a dsh SQLite store (a `sessionLoom.dshStores` entry), as one project row named
 * by the store; subagents nest under their parent. A store that cannot be read is a project row
 * with no sessions and the reason, so the view says why.
 */
export async function listStore(storePath: string): Promise<ProjectInfo & { problem?: string }> {
  const name = path.basename(storePath);
  try {
    const st = await fs.stat(storePath);
    const rows = await listDshDatabaseSessions(storePath);
    const metas: SessionMeta[] = rows.map((r) => ({
      file: storeSessionKey(storePath, r.id),
      root: storePath,
      projectDir: storePath,
      id: r.id,
      cwd: r.cwd ?? undefined,
      title: r.title ?? undefined,
      created: r.createdAt > 0 ? new Date(r.createdAt).toISOString() : undefined,
      modifiedMs: st.mtimeMs,
      size: st.size,
      version: undefined,
      state: r.problem ? 'damaged' : 'current',
      firstUserMessage: undefined,
      firstPrompt: undefined,
      parentSession: r.parentSession ?? undefined,
      subagents: [],
      isSubagent: false,
      format: 'dsh',
      store: { path: storePath, session: r.id },
    }));
    return { root: storePath, dir: storePath, name, label: storePath, sessions: nestDsh(metas).sort(byNewest) };
  } catch (e) {
    return { root: storePath, dir: storePath, name, label: storePath, sessions: [], problem: e instanceof Error ? e.message : String(e) };
  }
}

const SESSION_FILE = /\.jsonl$/;
/** The metadata of one session file, from the core's prefix reader. Undefined when unreadable. */
export async function readSessionMeta(file: string, root: string, projectDir: string, isSubagent = false): Promise<SessionMeta | undefined> {
  const info = await readSessionInfo(file);
  if (!info) return undefined;
  const version = info.version ?? undefined;
  const state: SessionState =
    info.damaged || version === undefined ? (info.size === 0 ? 'current' : 'damaged') : version > CURRENT_SESSION_VERSION ? 'too-new' : version < CURRENT_SESSION_VERSION ? 'needs-migration' : 'current';
  return {
    file,
    root,
    projectDir,
    id: info.id,
    cwd: info.cwd ?? undefined,
    title: info.title?.trim() ? info.title : undefined,
    created: info.created ?? undefined,
    modifiedMs: info.mtimeMs,
    size: info.size,
    version,
    state,
    firstUserMessage: info.firstUserMessage ?? undefined,
    firstPrompt: info.firstPrompt ?? undefined,
    parentSession: info.parentSession ?? undefined,
    subagents: [],
    isSubagent: isSubagent || (info.format === 'dsh' && info.isSubagent),
    format: info.format,
  };
}

/** dsh's layout: `<project>/<encodeSegment(id)>/session.jsonl[.zstd]` (dsh-format.md §1). */
async function dshLogIn(dir: string): Promise<string | undefined> {
  for (const name of DSH_LOG_NAMES) {
    const p = path.join(dir, name);
    if ((await fs.stat(p).catch(() => null))?.isFile()) return p;
  }
  return undefined;
}

/** dsh subagent sessions nest under the session their header names (`parentSession`). */
function nestDsh(sessions: SessionMeta[]): SessionMeta[] {
  const byId = new Map(sessions.filter((s) => s.format === 'dsh').map((s) => [s.id, s]));
  const top: SessionMeta[] = [];
  for (const s of sessions) {
    const parent = s.format === 'dsh' && s.parentSession !== undefined ? byId.get(s.parentSession) : undefined;
    if (parent && parent !== s) {
      s.isSubagent = true;
      parent.subagents.push(s);
    } else top.push(s);
  }
  for (const s of sessions) s.subagents.sort(byNewest);
  return top;
}

/** Session files of one project folder, newest first, with their subagent sessions attached. */
export async function listProjectSessions(root: string, projectDir: string): Promise<SessionMeta[]> {
  let names: string[];
  try {
    names = await fs.readdir(projectDir);
  } catch {
    return [];
  }
  const files = names.filter((n) => isSessionFileName(n)).map((n) => path.join(projectDir, n));
  // A folder beside `<name>.jsonl` holds that session's xcsh subagents; any other folder may be a
  // dsh session's (`<id>/session.jsonl[.zstd]`).
  const stems = new Set(names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -'.jsonl'.length)));
  const dshLogs = await Promise.all(names.filter((n) => !stems.has(n) && !isSessionFileName(n)).map((n) => dshLogIn(path.join(projectDir, n))));
  for (const log of dshLogs) if (log) files.push(log);
  const metas = await Promise.all(files.map((f) => readSessionMeta(f, root, projectDir)));
  const sessions = metas.filter((m): m is SessionMeta => m !== undefined);
  await Promise.all(
    sessions.map(async (s) => {
      if (s.format !== 'xcsh') return;
      const subDir = s.file.replace(SESSION_FILE, '');
      if (!(await isDirectory(subDir))) return;
      const subNames = (await fs.readdir(subDir).catch(() => [] as string[])).filter((n) => SESSION_FILE.test(n));
      const subs = await Promise.all(subNames.map((n) => readSessionMeta(path.join(subDir, n), root, projectDir, true)));
      s.subagents = subs.filter((m): m is SessionMeta => m !== undefined).sort(byNewest);
    }),
  );
  return nestDsh(sessions).sort(byNewest);
}

export function byNewest(a: SessionMeta, b: SessionMeta): number {
  return b.modifiedMs - a.modifiedMs || a.file.localeCompare(b.file);
}

export interface ProjectInfo {
  root: string;
  dir: string;
  name: string;
  /** Display label: the cwd from the newest session's header, else the decoded folder name. */
  label: string;
  sessions: SessionMeta[];
}

/** Project folders of a root that hold at least one session file. */
export async function listProjects(root: string): Promise<ProjectInfo[]> {
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return [];
  }
  const projects = await Promise.all(
    names.sort().map(async (name): Promise<ProjectInfo | undefined> => {
      const dir = path.join(root, name);
      if (!(await isDirectory(dir))) return undefined;
      const sessions = await listProjectSessions(root, dir);
      if (sessions.length === 0) return undefined;
      return { root, dir, name, label: projectLabel(name, sessions), sessions };
    }),
  );
  return projects.filter((p): p is ProjectInfo => p !== undefined);
}

export function projectLabel(name: string, sessions: readonly SessionMeta[]): string {
  const withCwd = sessions.find((s) => s.cwd !== undefined);
  return withCwd?.cwd ?? decodeCwd(name).path ?? name;
}
