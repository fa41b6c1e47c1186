// Finding sessions on disk (spec Part A "Discovery utilities", Part B §11/§13).
//
// Listings read only a prefix of each file (4096 bytes, as upstream's readTextPrefix): the header
// and usually the first user message. When the first user message lies beyond it, one larger
// prefix (64 KiB) is tried; a whole multi-MB file is never read to fill a picker row.
// Nothing here writes.
import { existsSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { decodeCwd } from '../formats/xcsh/cwd';
import { readJsonlPrefix } from '../formats/xcsh/jsonl';
import { contentText } from '../formats/xcsh/stats';
import { english, type Translate } from '../l10n';
import { isMeaningfulPrompt } from './prompts';
import { isDshHeader, startsWithZstdMagic, type SessionFormat } from '../formats/detect';
import { readDshListing, type DshListing, type DshListingResult } from '../formats/dsh/listing';
import { linkAgentSessions, readAgentSessionInfo } from './agentSessions';
import { defaultSessionRoots, isSessionFileName } from './roots';
export { BUILT_IN_ROOTS, defaultSessionRoots, isSessionFileName, type BuiltInRoot, type BuiltInRoots } from './roots';

async function startsWithZstd(path: string): Promise<boolean> {
  const fh = await open(path, 'r').catch(() => null);
  if (!fh) return false;
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buf, 0, 4, 0);
    return startsWithZstdMagic(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

export const METADATA_PREFIX_BYTES = 4096;
const METADATA_RETRY_BYTES = 64 * 1024;
const FIRST_MESSAGE_MAX_CHARS = 500;

export interface SessionInfo {
  path: string;
  /** Header id; for a file without a valid header, the id part of the file name. */
  id: string;
  /** Header cwd, else the best-guess decoding of the project folder name, else null. */
  cwd: string | null;
  title: string | null;
  /** Header timestamp (ISO), or null. */
  created: string | null;
  /** File mtime (ISO) and in ms. */
  modified: string;
  mtimeMs: number;
  size: number;
  /** Header version (absent = 1), or null without a header. */
  version: number | null;
  firstUserMessage: string | null;
  /**
   * The first user message that says what the session is about (a bare slash command or id does
   * not; see prompts.ts), or null when the prefix holds none: what an untitled session is called.
   */
  firstPrompt: string | null;
  parentSession: string | null;
  /** `<parent file without .jsonl>/<id>.jsonl` (Part B §13), or a file starting with session_init. */
  isSubagent: boolean;
  /** The parent session file of a subagent session, when it exists on disk. */
  parentPath?: string;
  /** No valid header could be read: shown, never written. */
  damaged: boolean;
  /** Which agent wrote it, by content (src/core/formats/detect.ts). */
  format: SessionFormat;
  /** dsh and Codex: how the log is stored (`raw` JSONL or `zstd` frames). */
  encoding?: 'raw' | 'zstd';
  /** Claude Code and Codex: the newest record's timestamp (ISO), read from the file's tail: the session's age. */
  lastRecord?: string | null;
  /** Claude Code and Codex: the CLI version that wrote the file. */
  agentVersion?: string | null;
  /** How a nested session hangs below `parentPath`: a subagent, a compaction helper (Claude Code), a fork (Codex). */
  relation?: 'subagent' | 'compaction' | 'fork';
}


/** A dsh listing as the metadata every listing shows (dsh-format.md §1: trust the header's cwd). */
function dshInfo(l: DshListing): SessionInfo {
  return {
    path: l.path,
    id: l.id,
    cwd: l.cwd,
    title: l.title,
    created: l.createdAt > 0 ? new Date(l.createdAt).toISOString() : null,
    modified: new Date(l.mtimeMs).toISOString(),
    mtimeMs: l.mtimeMs,
    size: l.size,
    version: null,
    firstUserMessage: null,
    firstPrompt: null,
    parentSession: l.parentSession,
    isSubagent: l.origin === 'subagent' || l.delegationDepth > 0,
    damaged: false,
    format: 'dsh',
    encoding: l.encoding,
  };
}

async function readDshInfoOrSkip(path: string, st: Stats): Promise<SessionInfo | SkippedPath> {
  const r = await readDshListing(path, { title: true }).catch((e: unknown) => e);
  if (r instanceof Error) return skippedFor(path, r, 'unreadable-file');
  const listed = r as DshListingResult;
  if (listed.ok) return dshInfo(listed.listing);
  // A dsh file whose header cannot be read: listed as damaged (never written), like an xcsh one.
  return {
    path,
    id: idFromFileName(path),
    cwd: null,
    title: null,
    created: null,
    modified: new Date(st.mtimeMs).toISOString(),
    mtimeMs: st.mtimeMs,
    size: st.size,
    version: null,
    firstUserMessage: null,
    firstPrompt: null,
    parentSession: null,
    isSubagent: false,
    damaged: true,
    format: 'dsh',
    encoding: path.endsWith('.zstd') ? 'zstd' : 'raw',
  };
}

/** `<timestamp>_<sessionId>.jsonl` → sessionId; otherwise the name without `.jsonl`. */
export function idFromFileName(file: string): string {
  const b = basename(file).replace(/\.jsonl$/, '');
  const u = b.lastIndexOf('_');
  return u >= 0 ? b.slice(u + 1) : b;
}

/** The first user message (any, or the first `meaningful` one) of `records`, cut to FIRST_MESSAGE_MAX_CHARS. */
function firstUserIn(records: { value: Record<string, unknown> }[], meaningful = false): string | null {
  for (const r of records) {
    if (r.value.type !== 'message') continue;
    const m = r.value.message as { role?: unknown; content?: unknown } | undefined;
    if (m && m.role === 'user') {
      const t = contentText(m.content).trim();
      if (t && (!meaningful || isMeaningfulPrompt(t))) return t.length > FIRST_MESSAGE_MAX_CHARS ? t.slice(0, FIRST_MESSAGE_MAX_CHARS) + '…' : t;
    }
  }
  return null;
}

/** Metadata of one session file from its prefix. Null when the file cannot be read. */
export async function readSessionInfo(path: string): Promise<SessionInfo | null> {
  const r = await readSessionInfoOrSkip(path);
  return 'kind' in r ? null : r;
}

/** Metadata of one session file, or what stopped it being read. */
async function readSessionInfoOrSkip(path: string): Promise<SessionInfo | SkippedPath> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (e) {
    return skippedFor(path, e, 'unreadable-file');
  }
  if (!st.isFile()) return { path, kind: 'not-regular' };
  // Claude Code and Codex by content (a Codex `.jsonl.zst` starts with the zstd magic too)
  let agent;
  try {
    agent = await readAgentSessionInfo(path);
  } catch (e) {
    return skippedFor(path, e, 'unreadable-file');
  }
  if (agent) return agent;
  // dsh by content: a zstd frame (its default encoding) or its header on line 1
  if (path.endsWith('.zstd') || (await startsWithZstd(path))) return readDshInfoOrSkip(path, st);
  let parse;
  try {
    parse = await readJsonlPrefix(path, METADATA_PREFIX_BYTES);
  } catch (e) {
    return skippedFor(path, e, 'unreadable-file');
  }
  let records = parse.records;
  let headerRec = records[0]?.value;
  let hasHeader = headerRec?.type === 'session' && typeof headerRec.id === 'string';
  let firstUser = hasHeader ? firstUserIn(records.slice(1)) : firstUserIn(records);
  let firstPrompt = hasHeader ? firstUserIn(records.slice(1), true) : firstUserIn(records, true);
  if (parse.truncated && (!hasHeader || firstPrompt === null)) {
    try {
      const more = await readJsonlPrefix(path, METADATA_RETRY_BYTES);
      records = more.records;
      headerRec = records[0]?.value;
      hasHeader = headerRec?.type === 'session' && typeof headerRec.id === 'string';
      firstUser = hasHeader ? firstUserIn(records.slice(1)) : firstUserIn(records);
      firstPrompt = hasHeader ? firstUserIn(records.slice(1), true) : firstUserIn(records, true);
      parse = more;
    } catch {
      // keep the first answer
    }
  }
  if (isDshHeader(headerRec)) return readDshInfoOrSkip(path, st);
  const h = hasHeader ? (headerRec as Record<string, unknown>) : null;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const titleLine = parse.title?.value;
  const projectDir = basename(dirname(path));
  const decoded = decodeCwd(projectDir);
  const parentFile = dirname(path) + '.jsonl';
  const underParent = existsSync(parentFile);
  const firstEntry = h ? records[1]?.value : records[0]?.value;
  const info: SessionInfo = {
    path,
    id: str(h?.id) ?? idFromFileName(path),
    cwd: str(h?.cwd) ?? decoded.path,
    title: str(h?.title) ?? str(titleLine?.title),
    created: str(h?.timestamp),
    modified: new Date(st.mtimeMs).toISOString(),
    mtimeMs: st.mtimeMs,
    size: st.size,
    version: h ? (typeof h.version === 'number' ? h.version : 1) : null,
    firstUserMessage: firstUser,
    firstPrompt,
    parentSession: str(h?.parentSession),
    isSubagent: underParent || firstEntry?.type === 'session_init',
    damaged: !h,
    format: 'xcsh',
  };
  if (underParent) info.parentPath = parentFile;
  return info;
}

/** Newest first (by mtime), then by path. */
export const byNewest = (a: { mtimeMs: number; path: string }, b: { mtimeMs: number; path: string }): number =>
  b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Why a folder or a would-be session file under the roots was left out of a listing. */
export type SkipKind =
  | 'unreadable-folder' // readdir failed (EACCES…): whatever it holds is not listed
  | 'unreadable-file' // a `.jsonl` file that could not be stat'ed or read (EACCES…)
  | 'path-too-long' // ENAMETOOLONG: the full path is beyond the system's PATH_MAX
  | 'symlinked-folder' // a link to a folder: not followed (links can loop)
  | 'symlinked-file' // a `.jsonl` link: not followed, like every link (it could point anywhere)
  | 'not-regular' // a `.jsonl` name on a FIFO, socket or device
  | 'vanished'; // gone between being seen and being read (deleted or renamed meanwhile)

export interface SkippedPath {
  path: string;
  kind: SkipKind;
  /** The errno code, for the kinds that come from an error. */
  code?: string;
}

export interface ListAllResult {
  /** Every session under the roots, recursively (subagent sessions under their parent's folder too), newest first. */
  sessions: SessionInfo[];
  /** What was left out and why, sorted by path. */
  skipped: SkippedPath[];
}

function skippedFor(path: string, e: unknown, otherwise: 'unreadable-folder' | 'unreadable-file'): SkippedPath {
  const code = (e as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'ENAMETOOLONG') return { path, kind: 'path-too-long', code };
  if (code === 'ENOENT') return { path, kind: 'vanished', code };
  return { path, kind: otherwise, code };
}

/** Words for a skipped path, to follow "<path>: skipped: ". */
export function describeSkipped(s: SkippedPath, l10nT: Translate = english): string {
  switch (s.kind) {
    case 'unreadable-folder':
      return l10nT('folder not readable ({0}); the sessions in it are not listed', s.code ?? '');
    case 'unreadable-file':
      return l10nT('not readable ({0})', s.code ?? '');
    case 'path-too-long':
      return l10nT('the path is longer than the system allows (ENAMETOOLONG)');
    case 'symlinked-folder':
      return l10nT('a symbolic link to a folder, not followed (links can loop)');
    case 'symlinked-file':
      return l10nT('a symbolic link, not followed (only regular files are listed)');
    case 'not-regular':
      return l10nT('not a regular file');
    case 'vanished':
      return l10nT('vanished while the folder was being listed');
  }
}

/**
 * Every session under the roots, and what was left out: a listing never drops a folder or a
 * session file silently. Symlinked folders are not followed (no loops).
 */
export async function listAllWithSkipped(root?: string | string[]): Promise<ListAllResult> {
  const roots = root === undefined ? defaultSessionRoots() : Array.isArray(root) ? root : [root];
  const rootSet = new Set(roots);
  const files: { path: string; mtimeMs: number }[] = [];
  const skipped: SkippedPath[] = [];
  const stack = [...roots];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let ents;
    try {
      ents = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      // a default root that does not exist (no ~/.xcsh yet) holds nothing to skip
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && rootSet.has(dir)) continue;
      skipped.push(skippedFor(dir, e, 'unreadable-folder'));
      continue;
    }
    for (const d of ents) {
      const p = join(dir, d.name);
      if (d.isDirectory()) stack.push(p);
      else if (d.isSymbolicLink()) {
        const target = await stat(p).catch(() => null);
        if (target?.isDirectory()) skipped.push({ path: p, kind: 'symlinked-folder' });
        else if (isSessionFileName(d.name)) skipped.push({ path: p, kind: 'symlinked-file' });
      } else if (isSessionFileName(d.name)) {
        if (!d.isFile()) {
          skipped.push({ path: p, kind: 'not-regular' });
          continue;
        }
        try {
          files.push({ path: p, mtimeMs: (await stat(p)).mtimeMs });
        } catch (e) {
          skipped.push(skippedFor(p, e, 'unreadable-file'));
        }
      }
    }
  }
  files.sort(byNewest);
  const sessions: SessionInfo[] = [];
  // bounded concurrency: a big sessions root has thousands of files
  for (let i = 0; i < files.length; i += 32) {
    const batch = await Promise.all(files.slice(i, i + 32).map((f) => readSessionInfoOrSkip(f.path)));
    for (const x of batch) {
      if ('kind' in x) skipped.push(x);
      else sessions.push(x);
    }
  }
  nestDshSubagents(sessions);
  linkAgentSessions(sessions);
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { sessions, skipped };
}

/**
 * dsh subagent sessions are ordinary sessions in the same tree whose header names their parent's
 * session id (dsh-format.md §1): they nest under it like xcsh subagents under their parent file.
 */
export function nestDshSubagents(sessions: SessionInfo[]): void {
  const byId = new Map<string, SessionInfo>();
  for (const s of sessions) if (s.format === 'dsh' && !s.damaged) byId.set(s.id, s);
  for (const s of sessions) {
    if (s.format !== 'dsh' || s.parentSession === null || s.parentPath !== undefined) continue;
    const parent = byId.get(s.parentSession);
    if (parent && parent !== s) s.parentPath = parent.path;
  }
}

export interface ProjectGroup {
  /** The project's cwd (header truth, else decoded folder name), or the folder name. */
  project: string;
  /** The folder that holds the sessions (the top-level project folder for subagents). */
  dir: string;
  /** Top-level sessions newest first; subagent sessions follow in `subagents` of their parent. */
  sessions: SessionInfo[];
  /** parent path → its subagent sessions. */
  subagents: Record<string, SessionInfo[]>;
  /** Newest mtime in the group. */
  mtimeMs: number;
}

/** Groups sessions by project (cwd), newest project first; subagents hang under their parent. */
export function groupByProject(sessions: readonly SessionInfo[]): ProjectGroup[] {
  const byPath = new Map(sessions.map((s) => [s.path, s]));
  const groups = new Map<string, ProjectGroup>();
  const topOf = (s: SessionInfo): SessionInfo => {
    let cur = s;
    const seen = new Set<string>();
    while (cur.parentPath && byPath.has(cur.parentPath) && !seen.has(cur.path)) {
      seen.add(cur.path);
      cur = byPath.get(cur.parentPath)!;
    }
    return cur;
  };
  for (const s of sessions) {
    const top = topOf(s);
    const key = top.cwd ?? dirname(top.path);
    let g = groups.get(key);
    if (!g) {
      g = { project: key, dir: dirname(top.path), sessions: [], subagents: {}, mtimeMs: 0 };
      groups.set(key, g);
    }
    g.mtimeMs = Math.max(g.mtimeMs, s.mtimeMs);
    if (s.parentPath && byPath.has(s.parentPath)) (g.subagents[s.parentPath] ??= []).push(s);
    else g.sessions.push(s);
  }
  const out = [...groups.values()];
  for (const g of out) {
    g.sessions.sort(byNewest);
    for (const k of Object.keys(g.subagents)) g.subagents[k]!.sort(byNewest);
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.project < b.project ? -1 : 1));
}
