// Claude Code transcripts and Codex rollouts in a session listing (issue 24): told by content
// (formats/sniff.ts), their row facts read from a bounded head and tail (formats/claude/listing.ts,
// formats/codex/facts.ts), then linked across files:
// - Claude Code (claude-code-format.md A.1, A.10): subagent files nest under their session — the
//   2.1.x `<sessionId>/subagents/[<dir>/]agent-*.jsonl` by path, the 2.0.x `agent-*.jsonl` beside
//   the sessions by the session id their records carry (1.0.x subagents are inside the main file,
//   shown by its model); `summary` records title the session whose conversation ends at their
//   `leafUuid`, whichever file they sit in;
// - Codex (codex-format.md A.1, A.8): forks (`forked_from_id`) and subagent threads
//   (`parent_thread_id`) nest under the rollout they name, across folders and days; thread names
//   come from `session_index.jsonl` of the Codex home.
// Nothing here writes.
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { startsWithZstdMagic } from '../formats/detect';
import { sniffSessionBytes, sniffSessionFile } from '../formats/sniff';
import { readFileHead } from '../store/fileHead';
import { readClaudeListing, summaryTitles, type ClaudeListing } from '../formats/claude/listing';
import { subagentsFolderFiles } from '../formats/claude/subagents';
import { buildForkForest, type ForkNode } from '../formats/codex/forks';
import { readRolloutFacts, type CodexRolloutFacts } from '../formats/codex/facts';
import { codexHomeOf, readSessionIndex } from '../formats/codex/sessionIndex';
import type { SessionInfo } from './discovery';

/** Bytes read to tell a Claude Code or Codex file from the others (the listing's prefix size). */
const SNIFF_HEAD = 4096;

/** What the linking needs beyond SessionInfo (kept out of it: `ls --json` prints SessionInfo). */
const agentFacts = new WeakMap<SessionInfo, { claude?: ClaudeListing; codex?: CodexRolloutFacts }>();

/** Claude Code or Codex by content, from the first bytes; null for any other file. */
async function agentFormatOf(path: string): Promise<'claude' | 'codex' | null> {
  const { data, size } = await readFileHead(path, SNIFF_HEAD);
  // a zstd stream: Codex's `.jsonl.zst` when its first line is a session_meta, else dsh's
  const sniff = startsWithZstdMagic(data) ? await sniffSessionFile(path) : sniffSessionBytes(data, size);
  return sniff.kind === 'session' && (sniff.format === 'claude' || sniff.format === 'codex') ? sniff.format : null;
}

/** Thread names by Codex home, re-read when session_index.jsonl changes. */
const threadNames = new Map<string, { stamp: string; names: Map<string, string> }>();

async function threadNameOf(rolloutPath: string, id: string | null): Promise<string | null> {
  const home = codexHomeOf(rolloutPath);
  if (home === null || id === null) return null;
  const st = await stat(join(home, 'session_index.jsonl')).catch(() => null);
  const stamp = st ? `${st.size}:${st.mtimeMs}` : 'none';
  let cached = threadNames.get(home);
  if (!cached || cached.stamp !== stamp) {
    const read = await readSessionIndex(home).catch(() => null);
    cached = { stamp, names: new Map([...(read?.names ?? new Map<string, { name: string }>())].map(([k, v]) => [k, v.name])) };
    threadNames.set(home, cached);
  }
  const name = cached.names.get(id)?.trim();
  return name ? name : null;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The folder a 2.1.x agent file's session owns (`<dir>/<sessionId>` above `subagents/[<dir>/]`), or null. */
function subagentsOwner(path: string): string | null {
  const d1 = dirname(path);
  if (basename(d1) === 'subagents') return dirname(d1);
  const d2 = dirname(d1);
  return basename(d2) === 'subagents' ? dirname(d2) : null;
}

function claudeInfo(l: ClaudeListing): SessionInfo {
  const name = basename(l.path);
  const agentFile = /^agent-.+\.jsonl$/.test(name);
  const isSubagent = agentFile || l.sidechain;
  const stem = name.replace(/\.jsonl$/, '');
  const owner = subagentsOwner(l.path);
  const parentFile = owner !== null ? `${owner}.jsonl` : null;
  const info: SessionInfo = {
    path: l.path,
    id: isSubagent ? (l.agentId ?? stem.replace(/^agent-/, '')) : (l.sessionId ?? stem),
    cwd: l.cwd,
    title: l.title,
    created: l.created,
    modified: iso(l.mtimeMs),
    mtimeMs: l.mtimeMs,
    size: l.size,
    version: null,
    firstUserMessage: l.firstPrompt,
    firstPrompt: l.firstPrompt,
    parentSession: isSubagent ? l.sessionId : null,
    isSubagent,
    damaged: false,
    format: 'claude',
    lastRecord: l.lastTimestamp,
    agentVersion: l.version,
  };
  if (isSubagent) info.relation = (l.agentId ?? stem).replace(/^agent-/, '').startsWith('acompact-') ? 'compaction' : 'subagent';
  if (parentFile !== null && existsSync(parentFile)) info.parentPath = parentFile;
  agentFacts.set(info, { claude: l });
  return info;
}

async function codexInfo(f: CodexRolloutFacts): Promise<SessionInfo> {
  const subagent = f.forkedFromId === null && f.parentThreadId !== null;
  const info: SessionInfo = {
    path: f.path,
    id: f.id ?? basename(f.path).replace(/\.jsonl(\.zst)?$/, ''),
    cwd: f.cwd,
    title: await threadNameOf(f.path, f.id),
    created: f.created,
    modified: iso(f.mtimeMs),
    mtimeMs: f.mtimeMs,
    size: f.size,
    version: null,
    firstUserMessage: f.firstPrompt,
    firstPrompt: f.firstPrompt,
    parentSession: f.forkedFromId ?? f.parentThreadId,
    isSubagent: subagent,
    // the CLI refuses a rollout without its session_meta (codex-format.md A.2)
    damaged: f.meta === null && f.size > 0,
    format: 'codex',
    encoding: f.encoding === 'zstd' ? 'zstd' : 'raw',
    lastRecord: f.lastTimestamp,
    agentVersion: f.cliVersion,
  };
  agentFacts.set(info, { codex: f });
  return info;
}

/** The subagent files of a Claude Code session in the 2.1.x layout (a listing of one folder finds them there). */
export function claudeSubagentFiles(info: SessionInfo): Promise<string[]> {
  return info.format === 'claude' && !info.isSubagent ? subagentsFolderFiles(info.path) : Promise.resolve([]);
}

/** Claude Code: the `summary` records a listed file holds — each may title another session of its project (spec A.10). */
export function summaryRecords(info: SessionInfo): number {
  return agentFacts.get(info)?.claude?.summaries.length ?? 0;
}

/** The listing row of a Claude Code transcript or Codex rollout; null when the file is neither. */
export async function readAgentSessionInfo(path: string): Promise<SessionInfo | null> {
  const format = await agentFormatOf(path);
  if (format === 'claude') return claudeInfo(await readClaudeListing(path));
  if (format === 'codex') return codexInfo(await readRolloutFacts(path));
  return null;
}

/**
 * Links the Claude Code and Codex sessions of a listing across files (see the top of this file):
 * sets `parentPath`/`relation` of subagents and forks, and titles from `summary` records. Other
 * formats are left as they are. Call it with every session of a project (or more) at once.
 */
export function linkAgentSessions(sessions: SessionInfo[]): void {
  const claude: SessionInfo[] = [];
  const codex: SessionInfo[] = [];
  for (const s of sessions) {
    if (s.format === 'claude' && agentFacts.get(s)?.claude) claude.push(s);
    else if (s.format === 'codex' && agentFacts.get(s)?.codex) codex.push(s);
  }
  if (claude.length > 0) {
    const titles = summaryTitles(claude.map((s) => agentFacts.get(s)!.claude!));
    const mainBySession = new Map<string, SessionInfo>();
    for (const s of claude) if (!s.isSubagent) mainBySession.set(`${dirname(s.path)}\n${s.id}`, s);
    for (const s of claude) {
      if (s.title === null) s.title = titles.get(s.path) ?? null;
      // 2.0.x: agent-<id>.jsonl beside the session files, linked by the session id of its records
      if (s.isSubagent && s.parentPath === undefined && s.parentSession !== null) {
        const parent = mainBySession.get(`${dirname(s.path)}\n${s.parentSession}`);
        if (parent && parent !== s) s.parentPath = parent.path;
      }
    }
  }
  if (codex.length > 0) {
    const forest = buildForkForest(codex.map((s) => ({ path: s.path, id: agentFacts.get(s)!.codex!.id, forkedFromId: agentFacts.get(s)!.codex!.forkedFromId, parentThreadId: agentFacts.get(s)!.codex!.parentThreadId, created: s.created, info: s })));
    const walk = (nodes: ForkNode<{ path: string; id: string | null; forkedFromId: string | null; info: SessionInfo }>[], parent: SessionInfo | null): void => {
      for (const n of nodes) {
        if (parent) {
          n.rollout.info.parentPath = parent.path;
          n.rollout.info.relation = n.relation === 'fork' ? 'fork' : 'subagent';
        }
        walk(n.children, n.rollout.info);
      }
    };
    walk(forest, null);
  }
}
