// What a session list needs of a Claude Code transcript, from a bounded head and tail of the file
// (claude-code-format.md A.1, A.3, A.10, C.6, C.7): never the whole of a multi-MB transcript.
// - the session id and cwd from the records (the file name and the folder name are not trusted:
//   files are renamed, and the folder's encoding of the cwd is lossy);
// - the first prompt a person typed (as the full reader decides it: read.ts);
// - the start (the first record's time) and the age (the last record's time, from the tail);
// - titles: the last `custom-title`/`ai-title`, and every `summary` record seen — a summary is the
//   title of the conversation whose leaf is its `leafUuid`, which may live in another file, so the
//   summaries are matched across files by the listing (discovery.ts), against the uuids of the
//   last user/assistant records of each file (the leaf the CLI resumes is the nearest one to the
//   last non-sidechain record, A.11);
// - subagent facts: `isSidechain` and `agentId` of the first chain record (agent files, A.1).
// Summaries or titles that sit only in the middle of a file larger than head + tail are not seen.
import { open, stat } from 'node:fs/promises';
import { readRange } from '../../store/fileHead';
import { slashCommand, typedPrompt } from './read';
import { chainFacts, isObj, RecordFlag, str } from './records';

export const CLAUDE_LISTING_HEAD_BYTES = 64 * 1024;
export const CLAUDE_LISTING_TAIL_BYTES = 64 * 1024;
/** How many of the last user/assistant uuids a summary may name to title the file. */
const LEAF_CANDIDATES = 16;

export interface ClaudeListing {
  path: string;
  size: number;
  mtimeMs: number;
  /** The first chain record's `sessionId` (a 2.0.x agent file holds its parent session's id). */
  sessionId: string | null;
  /** `agentId` of the first chain record: set in agent (subagent) files. */
  agentId: string | null;
  /** The first chain record is a sidechain record (an agent file). */
  sidechain: boolean;
  cwd: string | null;
  /** CLI version of the last chain record read. */
  version: string | null;
  /** The first chain record's timestamp (ISO). */
  created: string | null;
  /** The last record's timestamp (ISO), from the tail. */
  lastTimestamp: string | null;
  firstPrompt: string | null;
  /** The last `custom-title`, else the last `ai-title`. */
  title: string | null;
  /** Every `summary` record read (A.10). */
  summaries: { leafUuid: string; summary: string }[];
  /** uuids of the last non-sidechain user/assistant records read, oldest first: where this file's conversation ends. */
  leafCandidates: string[];
}

/** Complete lines of `buf`: the first dropped when `partialStart` (a tail starts inside a line), the last when the read did not reach the end of the file. */
function linesOf(buf: Buffer, partialStart: boolean, reachesEnd: boolean): string[] {
  const lines = buf.toString('utf8').split('\n');
  if (partialStart) lines.shift();
  if (!reachesEnd) lines.pop();
  return lines;
}

const TIMESTAMP = /"timestamp"\s*:\s*"([^"\\]{1,64})"/g;

/** The metadata of a Claude Code transcript, from at most its first and last 64 KiB. */
export async function readClaudeListing(path: string): Promise<ClaudeListing> {
  const st = await stat(path);
  const fh = await open(path, 'r');
  let head: Buffer;
  let tail: Buffer | null = null;
  try {
    const whole = st.size <= CLAUDE_LISTING_HEAD_BYTES + CLAUDE_LISTING_TAIL_BYTES;
    head = await readRange(fh, 0, whole ? st.size : CLAUDE_LISTING_HEAD_BYTES);
    if (!whole) tail = await readRange(fh, st.size - CLAUDE_LISTING_TAIL_BYTES, st.size);
  } finally {
    await fh.close();
  }
  const out: ClaudeListing = {
    path,
    size: st.size,
    mtimeMs: st.mtimeMs,
    sessionId: null,
    agentId: null,
    sidechain: false,
    cwd: null,
    version: null,
    created: null,
    lastTimestamp: null,
    firstPrompt: null,
    title: null,
    summaries: [],
    leafCandidates: [],
  };
  let customTitle: string | null = null;
  let aiTitle: string | null = null;
  let firstCommand: string | null = null;
  let firstChain = true;
  const visit = (line: string): void => {
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return; // a bad or cut line: the full reader reports it
    }
    if (!isObj(v)) return;
    const ts = str(v.timestamp);
    if (ts !== null) out.lastTimestamp = ts;
    const facts = chainFacts(v, 0, 0, 0);
    if (!facts) {
      if (v.type === 'summary' && typeof v.summary === 'string' && typeof v.leafUuid === 'string') out.summaries.push({ leafUuid: v.leafUuid, summary: v.summary });
      else if (v.type === 'custom-title' && typeof v.customTitle === 'string') customTitle = v.customTitle;
      else if (v.type === 'ai-title' && typeof v.aiTitle === 'string') aiTitle = v.aiTitle;
      out.sessionId ??= v.type !== 'summary' ? str(v.sessionId) : null;
      return;
    }
    const sidechain = (facts.flags & RecordFlag.Sidechain) !== 0;
    if (firstChain) {
      firstChain = false;
      out.sidechain = sidechain;
      out.agentId = facts.agentId;
      out.created = facts.timestamp;
      if (facts.sessionId !== null) out.sessionId = facts.sessionId;
    }
    out.cwd ??= facts.cwd;
    if (facts.version !== null) out.version = facts.version;
    if (!sidechain && (facts.type === 'user' || facts.type === 'assistant')) {
      out.leafCandidates.push(facts.uuid);
      if (out.leafCandidates.length > LEAF_CANDIDATES) out.leafCandidates.shift();
    }
    // an agent file's first prompt is its task (sidechain records); a main file's is typed by a person
    if (out.firstPrompt === null && facts.type === 'user' && facts.toolResults === null && (facts.flags & (RecordFlag.Meta | RecordFlag.CompactSummary)) === 0 && sidechain === out.sidechain) {
      const content = isObj(v.message) ? v.message.content : undefined;
      out.firstPrompt = typedPrompt(content);
      firstCommand ??= slashCommand(content);
    }
  };
  for (const l of linesOf(head, false, tail === null)) visit(l);
  if (tail) {
    const lines = linesOf(tail, true, true);
    for (const l of lines) visit(l);
    // The last record longer than the tail: its timestamp is written near its end (the CLI's key order).
    if (lines.length === 0 || lines.every((l) => l.trim() === '')) {
      const text = tail.toString('utf8');
      for (const m of text.matchAll(TIMESTAMP)) out.lastTimestamp = m[1]!;
    }
  }
  out.firstPrompt ??= firstCommand;
  out.title = customTitle ?? aiTitle;
  return out;
}

/**
 * The title of each listed transcript from the `summary` records of all of them (A.10): the
 * summary whose leaf is the newest of a file's last user/assistant records wins. `summaries`
 * holds every summary record read, from any file; later files' records override earlier ones.
 */
export function summaryTitles(listings: readonly ClaudeListing[]): Map<string, string> {
  const byLeaf = new Map<string, string>();
  for (const l of listings) for (const s of l.summaries) byLeaf.set(s.leafUuid, s.summary);
  const out = new Map<string, string>();
  for (const l of listings) {
    for (let i = l.leafCandidates.length - 1; i >= 0; i--) {
      const s = byLeaf.get(l.leafCandidates[i]!);
      if (s !== undefined) {
        out.set(l.path, s);
        break;
      }
    }
  }
  return out;
}
