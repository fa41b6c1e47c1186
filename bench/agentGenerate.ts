// Big Claude Code transcripts and Codex rollouts for the bench (`npm run bench -- --agents`), made
// by repeating a real fixture's records until the file reaches a size — so the records have the
// real mix of kinds, lengths and shapes, only more of them.
//
// Claude Code (claude-code-format.md): copy k rewrites every id the records link by (uuid,
// parentUuid, logicalParentUuid, sourceToolAssistantUUID, message.id, tool_use ids and their
// tool_use_id, toolUseID / parentToolUseID, the snapshots' messageId, requestId, leafUuid), the
// same way in every field, so each copy is the fixture's tree with its own ids; copy k's first
// chain record (a root in the fixture) is chained to copy k−1's last one, so the file is one
// conversation resumed k times. A compact boundary stays a root whose logicalParentUuid names a
// record of its own copy: every copy compacts the conversation before it, and the default leaf's
// context starts at the last copy's boundary. Timestamps move on by the fixture's span per copy.
//
// Codex (codex-format.md): the session_meta once at the top, then the fixture's other records
// (turn contexts, response items, event messages) repeated, call ids renumbered per copy and
// timestamps moved on: one thread of k × the fixture's turns, with no compaction.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', 'test', 'fixtures');
/** The largest real transcript (2.7 MB, one auto compaction). */
export const CLAUDE_SOURCE = join(FIXTURES, 'claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d.jsonl');
/** The largest real rollout (350 KB, 18 sampling requests). */
export const CODEX_SOURCE = join(FIXTURES, 'codex', 'agentcmd', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl');

export interface GeneratedAgentFile {
  path: string;
  /** How many times the fixture's records were written. */
  copies: number;
  lines: number;
  bytes: number;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The keys whose string value is an id another record links to (Claude Code). */
const CLAUDE_ID_KEYS = new Set(['uuid', 'parentUuid', 'logicalParentUuid', 'sourceToolAssistantUUID', 'messageId', 'toolUseID', 'parentToolUseID', 'requestId', 'tool_use_id', 'leafUuid', 'id']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The id `id` takes in copy `k` (copy 0 keeps the fixture's). A uuid keeps its form: its first
 * group moves by k × an odd constant (mod 2³²), so two ids of a copy stay distinct and no two
 * copies share one. Other ids (msg_…, toolu_…, req_…, call_…) end in the copy number.
 */
export function idInCopy(id: string, k: number): string {
  if (k === 0) return id;
  if (UUID.test(id)) return ((parseInt(id.slice(0, 8), 16) + Math.imul(k, 0x9e3779b1)) >>> 0).toString(16).padStart(8, '0') + id.slice(8);
  return `${id}_${k.toString(36)}`;
}

function rewrite(v: Json, k: number, keys: ReadonlySet<string>): Json {
  if (Array.isArray(v)) return v.map((x) => rewrite(x, k, keys));
  if (v === null || typeof v !== 'object') return v;
  const out: { [key: string]: Json } = {};
  for (const [key, x] of Object.entries(v)) out[key] = keys.has(key) && typeof x === 'string' ? idInCopy(x, k) : rewrite(x, k, keys);
  return out;
}

function shiftTime(v: { [k: string]: Json }, ms: number): void {
  if (ms !== 0 && typeof v.timestamp === 'string') {
    const t = Date.parse(v.timestamp);
    if (!Number.isNaN(t)) v.timestamp = new Date(t + ms).toISOString();
  }
}

function readRecords(source: string): { [k: string]: Json }[] {
  return readFileSync(source, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { [k: string]: Json });
}

/** The fixture's time span plus a minute: how far each copy's timestamps move on. */
function spanOf(records: readonly { [k: string]: Json }[]): number {
  const times = records.map((r) => (typeof r.timestamp === 'string' ? Date.parse(r.timestamp) : NaN)).filter((t) => !Number.isNaN(t));
  return times.length ? Math.max(...times) - Math.min(...times) + 60_000 : 60_000;
}

/** Writes copies (each an array of lines) until `targetBytes` is reached (at least one copy). */
function writeCopies(path: string, targetBytes: number, head: string[], copy: (k: number) => string[]): GeneratedAgentFile {
  const fd = openSync(path, 'w');
  let bytes = 0;
  let lines = 0;
  const put = (ls: string[]): void => {
    if (ls.length === 0) return;
    const b = Buffer.from(ls.join('\n') + '\n', 'utf8');
    writeSync(fd, b);
    bytes += b.length;
    lines += ls.length;
  };
  try {
    put(head);
    let k = 0;
    do put(copy(k++));
    while (bytes < targetBytes);
    return { path, copies: k, lines, bytes };
  } finally {
    closeSync(fd);
  }
}

/** A Claude Code transcript of about `targetBytes` (at least one copy of `source`). */
export function generateClaudeTranscript(path: string, targetBytes: number, source = CLAUDE_SOURCE): GeneratedAgentFile {
  const records = readRecords(source);
  const span = spanOf(records);
  const chain = records.filter((r) => typeof r.uuid === 'string');
  const first = chain.find((r) => r.parentUuid === null && r.logicalParentUuid === undefined);
  const last = chain[chain.length - 1];
  if (!first || !last) throw new Error(`${source}: no root chain record to chain copies by`);
  return writeCopies(path, targetBytes, [], (k) =>
    records.map((r) => {
      const c = rewrite(r, k, CLAUDE_ID_KEYS) as { [key: string]: Json };
      if (r === first && k > 0) c.parentUuid = idInCopy(last.uuid as string, k - 1);
      shiftTime(c, k * span);
      return JSON.stringify(c);
    }),
  );
}

/** The keys whose string value is an id another record links to (Codex: a call and its output). */
const CODEX_ID_KEYS = new Set(['call_id']);

/** A Codex rollout of about `targetBytes`: `source`'s session_meta, then its other records repeated. */
export function generateCodexRollout(path: string, targetBytes: number, source = CODEX_SOURCE): GeneratedAgentFile {
  const records = readRecords(source);
  if (records[0]?.type !== 'session_meta') throw new Error(`${source}: the first record is not a session_meta`);
  const span = spanOf(records);
  const body = records.slice(1);
  return writeCopies(path, targetBytes, [JSON.stringify(records[0])], (k) =>
    body.map((r) => {
      const c = rewrite(r, k, CODEX_ID_KEYS) as { [key: string]: Json };
      shiftTime(c, k * span);
      return JSON.stringify(c);
    }),
  );
}
