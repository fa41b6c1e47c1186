// What the Sessions view lists: the roots, their project folders and the session files in them,
// with the metadata a row needs read from a small prefix of each file (Part A "Discovery":
// listings never read whole files). Subagent sessions live at `<session file without .jsonl>/…`
// (Part B §13) and are attached to their parent session.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeCwd } from '../../core/formats/xcsh/cwd';
import { defaultSessionRoots, isSessionFileName, readSessionInfo, type BuiltInRoots, type SessionInfo } from '../../core/discovery/discovery';
import { claudeSubagentFiles, linkAgentSessions, summaryRecords } from '../../core/discovery/agentSessions';
import type { SessionFormat } from '../../core/formats/detect';
import { DSH_LOG_NAMES } from '../../core/formats/dsh/paths';
import { listDshDatabaseSessions } from '../../core/formats/dsh/sqliteStore';
import { CURRENT_SESSION_VERSION } from '../../core/formats/xcsh/entryTypes';

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

/** The configured roots, or the built-in ones that exist (`sessionLoom.builtInRoots` turns agents off). */
export function resolveRoots(configured: readonly string[], builtIn: BuiltInRoots = {}): string[] {
  if (configured.length > 0) return [...new Set(configured.map(expandHome).map((p) => path.resolve(p)))];
  return defaultSessionRoots(os.homedir(), process.env, builtIn);
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
  /** When the session last did something: its last record's time (Claude Code, Codex), else the file's mtime. Rows show its age and sort by it. */
  activityMs: number;
  /** Claude Code and Codex: the CLI version that wrote it. */
  agentVersion?: string | undefined;
  /** How a nested session hangs below its parent (a subagent, a compaction helper, a fork). */
  relation?: 'subagent' | 'compaction' | 'fork' | undefined;
  /** Claude Code: the `summary` records the file holds (each may title another session of the project). */
  summaries?: number | undefined;
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
      activityMs: st.mtimeMs,
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
  return info ? metaOfInfo(info, file, root, projectDir, isSubagent) : undefined;
}

/** A Claude Code transcript or Codex rollout: another agent's file, never written (read-only rows). */
export function isForeignAgent(m: { format: SessionFormat }): boolean {
  return m.format === 'claude' || m.format === 'codex';
}

function metaOfInfo(info: SessionInfo, file: string, root: string, projectDir: string, isSubagent: boolean): SessionMeta {
  const base = {
    file,
    root,
    projectDir,
    id: info.id,
    cwd: info.cwd ?? undefined,
    title: info.title?.trim() ? info.title : undefined,
    created: info.created ?? undefined,
    modifiedMs: info.mtimeMs,
    size: info.size,
    firstUserMessage: info.firstUserMessage ?? undefined,
    firstPrompt: info.firstPrompt ?? undefined,
    parentSession: info.parentSession ?? undefined,
    subagents: [],
    format: info.format,
  };
  if (isForeignAgent(info)) {
    const last = info.lastRecord ? Date.parse(info.lastRecord) : NaN;
    return {
      ...base,
      activityMs: Number.isFinite(last) ? last : info.mtimeMs,
      version: undefined,
      state: info.damaged ? 'damaged' : 'current',
      isSubagent: isSubagent || info.relation === 'subagent' || info.relation === 'compaction',
      agentVersion: info.agentVersion ?? undefined,
      relation: info.relation,
      summaries: summaryRecords(info),
    };
  }
  const version = info.version ?? undefined;
  const state: SessionState =
    info.damaged || version === undefined ? (info.size === 0 ? 'current' : 'damaged') : version > CURRENT_SESSION_VERSION ? 'too-new' : version < CURRENT_SESSION_VERSION ? 'needs-migration' : 'current';
  return { ...base, activityMs: info.mtimeMs, version, state, isSubagent: isSubagent || (info.format === 'dsh' && info.isSubagent) };
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
  // A folder beside `<name>.jsonl` holds that session's xcsh subagents (or, for a Claude Code
  // session, its `subagents/` folder); any other folder may be a dsh session's (`<id>/session.jsonl[.zstd]`).
  const stems = new Set(names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -'.jsonl'.length)));
  const dshLogs = await Promise.all(names.filter((n) => !stems.has(n) && !isSessionFileName(n)).map((n) => dshLogIn(path.join(projectDir, n))));
  for (const log of dshLogs) if (log) files.push(log);
  const infos = (await Promise.all(files.map((f) => readSessionInfo(f)))).filter((i): i is SessionInfo => i !== null);
  const subFiles = (await Promise.all(infos.map((i) => claudeSubagentFiles(i)))).flat();
  infos.push(...(await Promise.all(subFiles.map((f) => readSessionInfo(f)))).filter((i): i is SessionInfo => i !== null));
  linkAgentSessions(infos);
  const sessions = nestAgents(infos.map((i) => metaOfInfo(i, i.path, root, projectDir, false)), infos);
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

/** Claude Code subagents and Codex forks under the session the linking named (`parentPath`); the top-level rest. */
function nestAgents(metas: SessionMeta[], infos: readonly SessionInfo[]): SessionMeta[] {
  const byFile = new Map(metas.map((m) => [m.file, m]));
  const top: SessionMeta[] = [];
  metas.forEach((m, i) => {
    const parentPath = infos[i]!.parentPath;
    const parent = isForeignAgent(m) && parentPath !== undefined ? byFile.get(parentPath) : undefined;
    if (parent && parent !== m) parent.subagents.push(m);
    else top.push(m);
  });
  for (const m of metas) m.subagents.sort(byNewest);
  return top;
}

/** Folders a walk for loose session files goes down at most (Codex: `YYYY/MM/DD`). */
const LOOSE_DEPTH = 4;

/** Session files under `dir` (itself included), down to `depth` folders, no links followed. */
async function sessionFilesUnder(dir: string, depth: number): Promise<string[]> {
  let ents;
  try {
    ents = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of ents) {
    const p = path.join(dir, e.name);
    if (e.isFile() && isSessionFileName(e.name)) out.push(p);
    else if (e.isDirectory() && depth > 0) out.push(...(await sessionFilesUnder(p, depth - 1)));
  }
  return out;
}

/**
 * Claude Code and Codex sessions that no project folder holds — Codex keeps rollouts in
 * `YYYY/MM/DD/` folders and `archived_sessions/` flat — as projects by their cwd (the records'),
 * linked across all the roots (a fork may be in another day's folder, or archived).
 */
async function listLooseSessions(places: readonly { root: string; dirs: string[]; files: string[] }[]): Promise<ProjectInfo[]> {
  const found: { root: string; file: string }[] = [];
  for (const p of places) {
    for (const f of p.files) found.push({ root: p.root, file: f });
    for (const d of p.dirs) for (const f of await sessionFilesUnder(d, LOOSE_DEPTH)) found.push({ root: p.root, file: f });
  }
  const read = await Promise.all(found.map(async (f) => ({ ...f, info: await readSessionInfo(f.file) })));
  const kept = read.filter((r): r is typeof r & { info: SessionInfo } => r.info !== null && isForeignAgent(r.info));
  const infos = kept.map((r) => r.info);
  linkAgentSessions(infos);
  const metas = nestAgents(
    kept.map((r) => metaOfInfo(r.info, r.file, r.root, path.dirname(r.file), false)),
    infos,
  );
  const groups = new Map<string, SessionMeta[]>();
  for (const m of metas) {
    const key = `${m.root}\n${m.cwd ?? m.root}`;
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(m);
  }
  return [...groups.values()].map((sessions) => {
    const first = sessions[0]!;
    const label = first.cwd ?? first.root;
    return { root: first.root, dir: first.root, name: label, label, sessions: sessions.sort(byNewest), key: `loose:${first.root}#${label}`, loose: true };
  });
}

export function byNewest(a: SessionMeta, b: SessionMeta): number {
  return b.activityMs - a.activityMs || a.file.localeCompare(b.file);
}

export interface ProjectInfo {
  root: string;
  dir: string;
  name: string;
  /** Display label: the cwd from the newest session's header, else the decoded folder name. */
  label: string;
  sessions: SessionMeta[];
  /** The node's identity when `dir` is not one (loose projects share their root as `dir`). */
  key?: string;
  /** Sessions found below the project folders (Codex's day folders): re-listed with the whole root. */
  loose?: boolean;
}

/**
 * The projects of every root: its project folders, then the Claude Code and Codex sessions found
 * elsewhere below it (files in the root itself, folders that are no project) grouped by cwd.
 */
export async function listRoots(roots: readonly string[]): Promise<ProjectInfo[]> {
  const listed = await Promise.all(roots.map((r) => listFolderProjects(r)));
  const loose = await listLooseSessions(listed.map((l, i) => ({ root: roots[i]!, dirs: l.empty, files: l.files })));
  return [...listed.flatMap((l) => l.projects), ...loose];
}

async function listFolderProjects(root: string): Promise<{ projects: ProjectInfo[]; empty: string[]; files: string[] }> {
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return { projects: [], empty: [], files: [] };
  }
  const empty: string[] = [];
  const files: string[] = [];
  const projects = await Promise.all(
    names.sort().map(async (name): Promise<ProjectInfo | undefined> => {
      const dir = path.join(root, name);
      if (!(await isDirectory(dir))) {
        if (isSessionFileName(name)) files.push(dir);
        return undefined;
      }
      const sessions = await listProjectSessions(root, dir);
      if (sessions.length === 0) {
        empty.push(dir);
        return undefined;
      }
      return { root, dir, name, label: projectLabel(name, sessions), sessions };
    }),
  );
  return { projects: projects.filter((p): p is ProjectInfo => p !== undefined), empty: empty.sort(), files: files.sort() };
}

export function projectLabel(name: string, sessions: readonly SessionMeta[]): string {
  const withCwd = sessions.find((s) => s.cwd !== undefined);
  return withCwd?.cwd ?? decodeCwd(name).path ?? name;
}
