// The subagents of a transcript, in all three layouts (claude-code-format.md A.1, A.8, A.11
// rule 5, B.5), each linked to the Task call that started it:
// - 1.0.x: inline in the main file (`isSidechain`, own `parentUuid: null` roots) — matched to a
//   Task call by its prompt (tree.ts);
// - 2.0.x: `agent-<agentId>.jsonl` beside the session files, told apart by the records' sessionId;
// - 2.1.x: `<sessionId>/subagents/[<subdir>/]agent-<agentId>.jsonl`, with an optional
//   `agent-<agentId>.meta.json` sidecar;
// and the compaction helper `agent-acompact-*.jsonl`, linked to the compact_boundary it produced
// (its records point at uuids of the main file: the boundary's logicalParentUuid among them).
// A file's agent is linked by, in this order: a Task result's `toolUseResult.agentId`, an
// `agent_progress` line (`parentToolUseID` → `data.agentId`), the Task prompt equal to the
// agent's first prompt. Only the heads and the link fields of agent files are read.
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Dirent } from 'node:fs';
import { readJsonlFile, readJsonlPrefix } from '../xcsh/jsonl';
import { contentText } from '../../tree/treeView';
import { isBoundary, isObj, promptKeyOf, str, SUBAGENT_TOOLS } from './records';
import type { ClaudeTree } from './tree';

export type SubagentLayout = 'inline' | 'beside-session' | 'subagents-folder' | 'compaction';

export interface SubagentLink {
  layout: SubagentLayout;
  agentId: string | null;
  /** The file holding its records (the main transcript for inline ones). */
  path: string;
  /** Inline: the uuid of its root record in the main file. */
  rootUuid: string | null;
  /** The Task call that started it (tool_use id) and the uuid of the assistant line holding it. */
  taskCallId: string | null;
  taskEntryUuid: string | null;
  /** Compaction helpers: the compact_boundary whose summary it wrote. */
  boundaryUuid: string | null;
  linkedBy: 'toolUseResult' | 'agent_progress' | 'prompt' | 'logicalParentUuid' | 'time' | null;
  description: string | null;
  /** From the `.meta.json` sidecar when there is one (its content is not specified: `agentType`/`description` read when present). */
  agentType: string | null;
}

const AGENT_FILE = /^agent-(.+)\.jsonl$/;
/** How deep under `subagents/` agent files are looked for (one optional folder per agent, A.1). */
const SUBAGENT_DEPTH = 2;
/** Bytes read from a 2.0.x agent file beside the sessions to learn whose it is. */
const HEAD_BYTES = 64 << 10;

async function listAgentFiles(dir: string, depth: number): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isFile() && AGENT_FILE.test(e.name)) out.push(join(dir, e.name));
    else if (e.isDirectory() && depth > 1) out.push(...(await listAgentFiles(join(dir, e.name), depth - 1)));
  }
  return out;
}

/** The 2.1.x agent files of a session file: `<stem>/subagents/[<dir>/]agent-*.jsonl` (A.1). */
export function subagentsFolderFiles(sessionFile: string): Promise<string[]> {
  return listAgentFiles(join(dirname(sessionFile), basename(sessionFile).replace(/\.jsonl$/, ''), 'subagents'), SUBAGENT_DEPTH);
}

interface AgentFileFacts {
  agentId: string | null;
  sessionId: string | null;
  firstPromptKey: string | null;
  /** parentUuids of its records that are not in the file (the compaction helper's links into the main file). */
  outsideParents: Set<string>;
  lastTime: number;
}

async function agentFileFacts(path: string): Promise<AgentFileFacts> {
  const uuids = new Set<string>();
  const parents = new Set<string>();
  const facts: AgentFileFacts = { agentId: null, sessionId: null, firstPromptKey: null, outsideParents: new Set(), lastTime: NaN };
  await readJsonlFile(path, undefined, {
    onRecord: (v) => {
      if (typeof v.uuid === 'string') uuids.add(v.uuid);
      if (typeof v.parentUuid === 'string') parents.add(v.parentUuid);
      facts.agentId ??= str(v.agentId);
      facts.sessionId ??= str(v.sessionId);
      if (facts.firstPromptKey === null && v.type === 'user' && isObj(v.message)) {
        const text = contentText(v.message.content);
        if (text !== '') facts.firstPromptKey = promptKeyOf(text);
      }
      const t = typeof v.timestamp === 'string' ? Date.parse(v.timestamp) : NaN;
      if (!Number.isNaN(t)) facts.lastTime = t;
    },
  });
  for (const p of parents) if (!uuids.has(p)) facts.outsideParents.add(p);
  return facts;
}

/** The session id of a 2.0.x agent file beside the sessions, from its first records. */
async function headSessionId(path: string): Promise<string | null> {
  try {
    const head = await readJsonlPrefix(path, HEAD_BYTES);
    for (const r of head.records) if (typeof r.value.sessionId === 'string') return r.value.sessionId;
  } catch {
    // unreadable: not ours to show
  }
  return null;
}

async function sidecar(path: string): Promise<{ agentType: string | null; description: string | null }> {
  try {
    const v: unknown = JSON.parse(await readFile(path.replace(/\.jsonl$/, '.meta.json'), 'utf8'));
    if (isObj(v)) return { agentType: str(v.agentType) ?? str(v.agent_type) ?? str(v.subagent_type), description: str(v.description) };
  } catch {
    // no sidecar, or not JSON
  }
  return { agentType: null, description: null };
}

/** Every subagent of the transcript `tree` was built from, linked to its Task call (or compaction). */
export async function findSubagents(tree: ClaudeTree): Promise<SubagentLink[]> {
  const t = tree.t;
  const recs = t.records;
  const out: SubagentLink[] = [];

  // The Task calls of the main file, and what links them to agent ids.
  const calls = new Map<string, { pos: number; description: string | null; promptKey: string | null; subagentType: string | null }>();
  const agentOfCall = new Map<string, { agentId: string; via: 'toolUseResult' | 'agent_progress' }>();
  for (let i = 0; i < tree.n; i++) {
    const r = recs[i]!;
    if (!tree.isLive(i)) continue;
    for (const u of r.toolUses ?? []) if (SUBAGENT_TOOLS.has(u.name)) calls.set(u.id, { pos: i, description: u.description ?? null, promptKey: u.promptKey ?? null, subagentType: u.subagentType ?? null });
    const link = r.agentLink;
    if (link && link.toolUseId !== null && (!agentOfCall.has(link.toolUseId) || link.via === 'toolUseResult')) agentOfCall.set(link.toolUseId, { agentId: link.agentId, via: link.via });
  }
  const callOfAgent = new Map<string, { callId: string; via: 'toolUseResult' | 'agent_progress' }>();
  for (const [callId, a] of agentOfCall) if (!callOfAgent.has(a.agentId) || a.via === 'toolUseResult') callOfAgent.set(a.agentId, { callId, via: a.via });
  const usedCalls = new Set<string>();

  for (const s of tree.inlineSidechains) {
    if (s.taskCallId) usedCalls.add(s.taskCallId);
    const root = recs[s.rootPos]!;
    out.push({
      layout: 'inline',
      agentId: root.agentId,
      path: t.path,
      rootUuid: root.uuid,
      taskCallId: s.taskCallId,
      taskEntryUuid: s.taskPos >= 0 ? recs[s.taskPos]!.uuid : null,
      boundaryUuid: null,
      linkedBy: s.taskCallId ? 'prompt' : null,
      description: s.description,
      agentType: s.taskCallId ? (calls.get(s.taskCallId)?.subagentType ?? null) : null,
    });
  }

  const dir = dirname(t.path);
  const stem = basename(t.path).replace(/\.jsonl$/, '');
  const folders = [...new Set([stem, t.sessionId].filter((x): x is string => !!x))].map((id) => join(dir, id, 'subagents'));
  const files: { path: string; layout: SubagentLayout }[] = [];
  for (const f of folders) for (const p of await listAgentFiles(f, SUBAGENT_DEPTH)) files.push({ path: p, layout: 'subagents-folder' });
  if (t.sessionId) {
    for (const p of await listAgentFiles(dir, 1)) if (p !== t.path && (await headSessionId(p)) === t.sessionId) files.push({ path: p, layout: 'beside-session' });
  }

  const boundaries: number[] = [];
  for (let i = 0; i < tree.n; i++) if (tree.isLive(i) && isBoundary(recs[i]!)) boundaries.push(i);

  for (const f of files) {
    const facts = await agentFileFacts(f.path);
    const agentId = facts.agentId ?? AGENT_FILE.exec(basename(f.path))?.[1] ?? null;
    const meta = await sidecar(f.path);
    if (agentId?.startsWith('acompact-')) {
      let boundary = boundaries.find((b) => recs[b]!.logicalParentUuid !== null && facts.outsideParents.has(recs[b]!.logicalParentUuid!));
      let linkedBy: SubagentLink['linkedBy'] = boundary !== undefined ? 'logicalParentUuid' : null;
      if (boundary === undefined && !Number.isNaN(facts.lastTime)) {
        // the boundary is written right after the helper's answer
        boundary = boundaries.find((b) => recs[b]!.time >= facts.lastTime);
        if (boundary !== undefined) linkedBy = 'time';
      }
      out.push({ layout: 'compaction', agentId, path: f.path, rootUuid: null, taskCallId: null, taskEntryUuid: null, boundaryUuid: boundary !== undefined ? recs[boundary]!.uuid : null, linkedBy, description: meta.description, agentType: meta.agentType });
      continue;
    }
    let callId: string | null = null;
    let linkedBy: SubagentLink['linkedBy'] = null;
    const known = agentId !== null ? callOfAgent.get(agentId) : undefined;
    if (known) {
      callId = known.callId;
      linkedBy = known.via;
    } else if (facts.firstPromptKey !== null) {
      for (const [id, c] of calls) {
        if (!usedCalls.has(id) && c.promptKey === facts.firstPromptKey) {
          callId = id;
          linkedBy = 'prompt';
          break;
        }
      }
    }
    if (callId) usedCalls.add(callId);
    const call = callId ? calls.get(callId) : undefined;
    out.push({
      layout: f.layout,
      agentId,
      path: f.path,
      rootUuid: null,
      taskCallId: callId,
      taskEntryUuid: call ? recs[call.pos]!.uuid : null,
      boundaryUuid: null,
      linkedBy,
      description: meta.description ?? call?.description ?? null,
      agentType: meta.agentType ?? call?.subagentType ?? null,
    });
  }
  return out;
}
