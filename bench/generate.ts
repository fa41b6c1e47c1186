// Synthetic sessions for the benchmark: a realistic mix (long assistant texts, tool calls and
// results, user turns, side branches, labels, model/thinking changes, a few compactions), written
// as a v3 file. Deterministic (seeded PRNG), streamed to disk in ~1 MB chunks.
import { closeSync, openSync, writeSync } from 'node:fs';

const WORDS = (
  'the session tree index builds children lists roots leaves labels depth in one pass and the context ' +
  'builder walks from the leaf to the root reversing the path compaction keeps entries from the first ' +
  'kept id while tool calls read files edit code run tests and report results with diffs errors logs ' +
  'function const return await async import export interface type string number boolean undefined null'
).split(' ');

/** A small deterministic generator (mulberry32): the same seed, the same sessions (benches and tests share it). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GeneratedSession {
  path: string;
  entries: number;
  bytes: number;
  compactions: number;
  branches: number;
}

/** A `message` entry holding an assistant reply, as the agent writes one. */
function assistantEntry(content: unknown[], usage: Record<string, unknown>, stopReason: string, timestamp: number): Record<string, unknown> {
  return {
    type: 'message',
    message: { role: 'assistant', provider: 'anthropic', model: 'claude-sonnet-4-5', content, usage, stopReason, timestamp },
  };
}

export function generateSession(path: string, n: number, seed = 42): GeneratedSession {
  const rand = rng(seed);
  const text = (min: number, max: number): string => {
    const len = min + Math.floor(rand() * (max - min));
    let s = '';
    while (s.length < len) s += WORDS[Math.floor(rand() * WORDS.length)] + (rand() < 0.08 ? '.\n' : ' ');
    return s.slice(0, len);
  };
  const fd = openSync(path, 'w');
  let buf: string[] = [];
  let bufLen = 0;
  let bytes = 0;
  const out = (obj: unknown): void => {
    const line = JSON.stringify(obj) + '\n';
    buf.push(line);
    bufLen += line.length;
    if (bufLen > 1 << 20) flush();
  };
  const flush = (): void => {
    const b = Buffer.from(buf.join(''), 'utf8');
    writeSync(fd, b);
    bytes += b.length;
    buf = [];
    bufLen = 0;
  };
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  let count = 0;
  const hex = (i: number): string => i.toString(16).padStart(8, '0');
  const stamp = (): string => new Date(t0 + count * 1500).toISOString();
  out({ type: 'session', version: 3, id: '0123456789abcdef', timestamp: stamp(), cwd: '/work/bench', title: `bench ${n}` });

  let mainLeaf: string | null = null;
  const mainIds: string[] = []; // recent main-line ids (for compaction targets and branch points)
  let compactions = 0;
  let branches = 0;
  let turn = 0;
  const emit = (e: Record<string, unknown>, parentId: string | null): string => {
    const id = hex(count);
    out({ type: e.type, id, parentId, timestamp: stamp(), ...e });
    count++;
    return id;
  };
  const push = (e: Record<string, unknown>): void => {
    mainLeaf = emit(e, mainLeaf);
    mainIds.push(mainLeaf);
    if (mainIds.length > 400) mainIds.splice(0, 200);
  };
  const compactionEvery = Math.max(2000, Math.floor(n / 4));
  while (count < n) {
    turn++;
    push({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: text(20, 120) }], timestamp: t0 + count } });
    const tools = Math.floor(rand() * 3);
    for (let k = 0; k < tools && count < n; k++) {
      const callId = `call_${hex(count)}`;
      push(assistantEntry(
        [
          { type: 'text', text: text(20, 120) },
          { type: 'toolCall', id: callId, name: 'read', arguments: { path: `/work/bench/src/file${count % 97}.ts` } },
        ],
        { input: 1200, output: 80, cacheRead: 9000, cacheWrite: 0, cost: { input: 0.0036, output: 0.0012, cacheRead: 0.0027, cacheWrite: 0, total: 0.0075 } },
        'toolUse',
        t0 + count,
      ));
      if (count < n) {
        push({ type: 'message', message: { role: 'toolResult', toolCallId: callId, toolName: 'read', content: [{ type: 'text', text: text(40, 220) }], isError: false, timestamp: t0 + count } });
      }
    }
    if (count < n) {
      push(assistantEntry(
        [{ type: 'text', text: text(100, 450) }],
        { input: 1500, output: 300, cacheRead: 9000, cacheWrite: 100, cost: { input: 0.0045, output: 0.0045, cacheRead: 0.0027, cacheWrite: 0.0004, total: 0.0121 } },
        'stop',
        t0 + count,
      ));
    }
    // a short abandoned side branch now and then, off a recent main-line entry
    if (turn % 40 === 0 && count + 4 < n && mainIds.length > 6) {
      branches++;
      let p: string = mainIds[mainIds.length - 5]!;
      p = emit({ type: 'message', message: { role: 'user', content: 'try another way: ' + text(20, 120), timestamp: t0 + count } }, p);
      p = emit({ type: 'message', message: { role: 'assistant', provider: 'anthropic', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: text(100, 400) }], timestamp: t0 + count } }, p);
      emit({ type: 'branch_summary', fromId: p, summary: text(60, 200) }, mainLeaf);
    }
    if (turn % 97 === 0 && count < n && mainLeaf) push({ type: 'label', targetId: mainLeaf, label: `checkpoint ${turn}` });
    if (turn % 211 === 0 && count < n) push({ type: 'thinking_level_change', thinkingLevel: turn % 2 ? 'high' : 'medium' });
    if (turn % 503 === 0 && count < n) push({ type: 'model_change', model: 'anthropic/claude-sonnet-4-5' });
    if (count >= (compactions + 1) * compactionEvery && count < n - 10 && mainIds.length > 250) {
      compactions++;
      push({ type: 'compaction', summary: text(1500, 3000), shortSummary: text(40, 80), firstKeptEntryId: mainIds[mainIds.length - 200], tokensBefore: 180000 });
    }
  }
  flush();
  closeSync(fd);
  return { path, entries: count, bytes, compactions, branches };
}
