// The facts a listing and a summary need of a rollout (codex-format.md A.3, A.5, Part C §5, §9):
// id, cwd, start time, CLI version, originator, model (the first turn_context's), the first
// prompt the user typed, fork/subagent parents, and the time of the last record (the session's
// age; line timestamps are UTC, the folder names local time). Title: Codex keeps thread names in
// session_index.jsonl (sessionIndex.ts), not in the rollout.
//
// readRolloutFacts reads a bounded head and tail of a plain rollout instead of the whole file, and
// parses only the lines that can hold these facts: a `compacted` line embeds a whole history and
// is never parsed for listing (C §5). A `.jsonl.zst` is decoded whole (the frame structure does
// not allow a cheaper head read), under the reader's caps.
import { open, readFile, stat } from 'node:fs/promises';
import { startsWithZstdMagic } from '../detect';
import { contentItems, isRealUserMessage, typedPrompt } from './contextual';
import { userMessageText } from './compaction';
import { readCodexRolloutBytes } from './load';
import { recordOf } from './records';
import { sessionMetaOf } from './sessionMeta';
import { isObj, str, type CodexRecord, type CodexRollout, type CodexSessionMeta } from './types';
import { readRange } from '../../store/fileHead';

export interface CodexRolloutFacts {
  path: string;
  encoding: 'jsonl' | 'zstd';
  size: number;
  mtimeMs: number;
  meta: CodexSessionMeta | null;
  /** Thread id (the first session_meta's). */
  id: string | null;
  cwd: string | null;
  /** Session start (session_meta.timestamp), UTC ISO. */
  created: string | null;
  cliVersion: string | null;
  originator: string | null;
  forkedFromId: string | null;
  parentThreadId: string | null;
  /** The first turn_context's model. */
  model: string | null;
  /** What the user typed first (the IDE wrapper removed), or null. */
  firstPrompt: string | null;
  /** The newest record's timestamp (UTC ISO), or null. */
  lastTimestamp: string | null;
}

const HEAD_BYTES = 256 * 1024;
const TAIL_BYTES = 64 * 1024;
const MAX_PROMPT = 2000;

function promptOf(rec: CodexRecord): string | null {
  const p = rec.payload;
  if (rec.type !== 'response_item' || !isObj(p) || !isRealUserMessage(p)) return null;
  const text = typedPrompt(userMessageText(p)).trim();
  if (text !== '') return text.slice(0, MAX_PROMPT);
  return contentItems(p).some((c) => c.type === 'input_image') ? '(image)' : null;
}

/** Facts from records in file order (all of them, or a head). */
function factsFrom(records: readonly CodexRecord[]): Pick<CodexRolloutFacts, 'meta' | 'model' | 'firstPrompt' | 'lastTimestamp'> {
  let meta: CodexSessionMeta | null = null;
  let model: string | null = null;
  let firstPrompt: string | null = null;
  let lastTimestamp: string | null = null;
  for (const r of records) {
    if (!meta && r.type === 'session_meta') meta = sessionMetaOf(r);
    if (model === null && r.type === 'turn_context' && isObj(r.payload)) model = str(r.payload.model);
    if (firstPrompt === null) firstPrompt = promptOf(r);
    if (r.timestamp !== null) lastTimestamp = r.timestamp;
  }
  return { meta, model, firstPrompt, lastTimestamp };
}

function assemble(path: string, encoding: 'jsonl' | 'zstd', size: number, mtimeMs: number, f: ReturnType<typeof factsFrom>): CodexRolloutFacts {
  const m = f.meta;
  return {
    path,
    encoding,
    size,
    mtimeMs,
    meta: m,
    id: m?.id ?? null,
    cwd: m?.cwd ?? null,
    created: m?.timestamp ?? null,
    cliVersion: m?.cliVersion ?? null,
    originator: m?.originator ?? null,
    forkedFromId: m?.forkedFromId ?? null,
    parentThreadId: m?.parentThreadId ?? null,
    model: f.model,
    firstPrompt: f.firstPrompt,
    lastTimestamp: f.lastTimestamp ?? m?.timestamp ?? null,
  };
}

/** The facts of a rollout already read. */
export function factsOfRollout(r: CodexRollout): CodexRolloutFacts {
  return assemble(r.path, r.encoding, r.bytes, r.mtimeMs, factsFrom(r.records));
}

/** Whether the start of a line can hold a fact (anything else is skipped without being parsed). */
const FACT_LINE = /"type"\s*:\s*"(session_meta|turn_context)"|"type"\s*:\s*"message"\s*,\s*"role"\s*:\s*"user"/;
const TIMESTAMP = /^\s*\{\s*"timestamp"\s*:\s*"([^"\\]{1,64})"/;

/** The facts of a rollout file, from a bounded head and tail (plain) or the whole file (zstd). */
export async function readRolloutFacts(path: string): Promise<CodexRolloutFacts> {
  const st = await stat(path);
  const fh = await open(path, 'r');
  let head: Buffer;
  let tail: Buffer;
  try {
    head = await readRange(fh, 0, Math.min(st.size, HEAD_BYTES));
    if (startsWithZstdMagic(head)) {
      await fh.close();
      return factsOfRollout(await readCodexRolloutBytes(await readFile(path), path, st.mtimeMs));
    }
    tail = st.size > HEAD_BYTES ? await readRange(fh, Math.max(HEAD_BYTES, st.size - TAIL_BYTES), st.size) : Buffer.alloc(0);
  } finally {
    await fh.close().catch(() => undefined);
  }
  const records: CodexRecord[] = [];
  let line = 1;
  for (let start = 0; start < head.length; line++) {
    const nl = head.indexOf(10, start);
    if (nl === -1) break; // a line the head cut (or a torn last line)
    const peek = head.toString('utf8', start, Math.min(nl, start + 256));
    if (line === 1 || FACT_LINE.test(peek)) {
      try {
        const v: unknown = JSON.parse(head.toString('utf8', start, nl));
        const rec = isObj(v) ? recordOf(v, line, records.length === 0) : null;
        if (rec) records.push(rec);
      } catch {
        // not a record: the full reader reports it
      }
    }
    start = nl + 1;
  }
  const f = factsFrom(records);
  // The newest timestamp: the last complete line of the tail (or of the head, for a small file).
  const end = tail.length > 0 ? tail : head;
  const text = end.toString('utf8');
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = TIMESTAMP.exec(lines[i]!);
    if (m) {
      f.lastTimestamp = m[1]!;
      break;
    }
  }
  return assemble(path, 'jsonl', st.size, st.mtimeMs, f);
}
