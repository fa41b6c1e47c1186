// A synthetic dsh session log for the bench, shaped like the fixtures (dsh-format.md §2 "Typical
// turn order"): inbox splices, turns of 1–4 steps, reasoning / text / tool-call deltas stored as
// packed rows, usage and finish chunks, assistant messages, tool calls with hooks and results,
// titles, request headers, and a compaction (summary + replacing user/message) now and then.
// Written as dsh's default encoding: the header alone in frame 1, then one checksummed zstd frame
// per batch of ~20 events (compressed by Debian's `zstd --check`, all batches in one process).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rng } from './generate';

const WORDS = (
  'the harness streams reasoning deltas then text and tool calls while the session log keeps every event ' +
  'packed rows expand into chunks surface folds replace compacted spans tool results carry output diffs ' +
  'function const return await async import export interface type string number boolean undefined null'
).split(' ');

export interface GeneratedDshLog {
  path: string;
  events: number;
  records: number;
  frames: number;
  bytes: number;
  decompressedBytes: number;
  compactions: number;
}

export function generateDshLog(path: string, n: number, seed = 7): GeneratedDshLog {
  const rand = rng(seed);
  const int = (min: number, max: number): number => min + Math.floor(rand() * (max - min));
  const words = (min: number, max: number): string => {
    const len = int(min, max);
    let s = '';
    while (s.length < len) s += WORDS[int(0, WORDS.length)] + (rand() < 0.08 ? '.\n' : ' ');
    return s.slice(0, len);
  };
  const deltas = (count: number): string[] => Array.from({ length: count }, () => ' ' + WORDS[int(0, WORDS.length)]);

  const batches: string[][] = [];
  let batch: string[] = [];
  let batchEvents = 0;
  let seq = 0;
  let records = 0;
  let time = 1_783_352_165_190;
  const surface: number[] = [];
  const put = (record: unknown, events: number): void => {
    batch.push(JSON.stringify(record));
    records++;
    batchEvents += events;
    // dsh flushes at semantic points; ~20 events per durable batch
    if (batchEvents >= 20) flush();
  };
  const flush = (): void => {
    if (batch.length === 0) return;
    batches.push(batch);
    batch = [];
    batchEvents = 0;
  };
  const event = (type: string, data: unknown, extra: Record<string, unknown> = {}): number => {
    const s = seq++;
    time += int(0, 40);
    put({ type, seq: s, time, data, ...extra }, 1);
    return s;
  };
  const packed = (tag: 'text-chunks' | 'reasoning-chunks' | 'tool-call-chunks', turn: number, step: number, index: number, payload: string[], id?: string): void => {
    const seq0 = seq;
    seq += payload.length;
    const dt = payload.slice(1).map(() => int(-2, 30));
    const data = tag === 'tool-call-chunks' ? { turn, step, index, dt, id, name: 'bash', args: payload } : { turn, step, index, dt, texts: payload };
    put({ type: tag, seq0, time0: time, data }, payload.length);
    time += 30 * payload.length;
  };
  const source = { kind: 'model', provider: 'deepseek-official', model: 'deepseek-v4-flash' };
  const header = { type: 'session', version: 0, id: 'ff1c1e99-3bd4-4ef8-a954-80d607d628ba', createdAt: time, cwd: '/work/bench', delegationDepth: 0 };

  let turn = 0;
  let compactions = 0;
  while (seq < n) {
    turn++;
    const prompt = { content: [{ type: 'text', text: words(40, 300) }], source: { kind: 'user' }, role: 'user', id: `prompt-${turn}` };
    event('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [prompt] });
    event('turn/start', { turn });
    event('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] });
    const steps = int(1, 5);
    for (let step = 1; step <= steps && seq < n; step++) {
      event('step/start', { turn, step });
      if (step === 1) {
        surface.push(event('user/message', prompt, { surfaceOp: 'append' }));
        surface.push(event('user/message', { content: [{ type: 'text', text: 'Current runtime context. ' + words(200, 600) }], source: { kind: 'plugin', plugin: 'runtime-context' }, role: 'user', id: `ctx-${turn}` }, { surfaceOp: 'append' }));
        if (turn === 1 || turn % 50 === 0) event('session/title', { title: words(10, 40), messageSeqs: [surface[surface.length - 2]], source: { kind: 'fallback' } });
        if (turn === 1 || turn % 25 === 0) {
          event('request/header', { header: { config: { provider: 'deepseek-official', model: 'deepseek-v4-flash' }, system: words(2000, 4000), tools: [{ name: 'bash' }, { name: 'read' }, { name: 'edit' }] }, reason: turn === 1 ? 'initial' : 'change' });
        }
        event('request/context', { provider: 'deepseek-official', model: 'deepseek-v4-flash', contextWindow: 128000 });
      }
      const chunkStart = seq;
      event('assistant/chunk', { turn, step, chunk: { type: 'block-start', index: 0, blockType: 'reasoning' } });
      const reasoning = deltas(int(8, 40));
      packed('reasoning-chunks', turn, step, 0, reasoning);
      const lastStep = step === steps;
      const content: unknown[] = [{ type: 'reasoning', text: reasoning.join('') }];
      let callId: string | null = null;
      event('assistant/chunk', { turn, step, chunk: { type: 'block-start', index: 1, blockType: lastStep ? 'text' : 'tool-call' } });
      if (lastStep) {
        const text = deltas(int(20, 120));
        packed('text-chunks', turn, step, 1, text);
        content.push({ type: 'text', text: text.join('') });
      } else {
        callId = `call_${turn}_${step}`;
        const args = ['{"command": "', ...deltas(int(5, 25)), '"}'];
        packed('tool-call-chunks', turn, step, 1, args, callId);
        content.push({ type: 'tool-call', id: callId, name: 'bash', arguments: args.join('') });
      }
      event('assistant/chunk', { turn, step, chunk: { type: 'block-end', index: 0, block: content[0] } });
      event('assistant/chunk', { turn, step, chunk: { type: 'block-end', index: 1, block: content[1] } });
      const usage = { inputTokens: int(100, 3000), outputTokens: int(20, 400), cacheReadTokens: int(0, 9000), reasoningTokens: int(5, 60) };
      event('assistant/chunk', { turn, step, chunk: { type: 'usage', usage } });
      event('assistant/chunk', { turn, step, chunk: { type: 'finish', reason: { kind: lastStep ? 'stop' : 'tool-calls' } } });
      const sources = Array.from({ length: seq - chunkStart }, (_, k) => chunkStart + k);
      surface.push(event('assistant/message', { turn, step, message: { role: 'assistant', content, source, id: `a-${turn}-${step}` }, usage }, { sourceEventSeqs: sources, surfaceOp: 'append' }));
      if (callId) {
        const callSeq = event('tool/call', { turn, step, callId, name: 'bash', arguments: '{}' });
        if (rand() < 0.3) {
          event('hook/invoked', { turn, point: 'PreToolUse', dialect: 'claude-code', handlerId: 'h1', matcher: 'bash' });
          event('hook/result', { turn, point: 'PreToolUse', handlerId: 'h1', decision: 'allow', durationMs: 3 });
        }
        const output = { type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: words(100, 3000) }], isError: rand() < 0.1 };
        surface.push(event('tool/result', { turn, step, message: { source: { kind: 'tool', callId }, content: [output], role: 'user', id: `r-${turn}-${step}` } }, { sourceEventSeqs: [callSeq], surfaceOp: 'append' }));
      }
      event('step/end', { turn, step });
      flush();
    }
    event('turn/end', { turn, reason: { kind: 'completed' } });
    flush();
    if (turn % 120 === 0 && surface.length > 60 && seq < n - 10) {
      // compact the oldest 40 surface nodes into one summary
      compactions++;
      const span = surface.slice(0, 40);
      const id = `compaction-${compactions}`;
      event('compaction/start', { compactionId: id, turn: null });
      event('compaction/summary', { compactionId: id, summary: [{ type: 'text', text: words(500, 1500) }], shadowedRange: { start: span[0], end: span[39] }, shadowedSeqs: span, shadowedTokenCount: 40000, provider: 'deepseek-official', model: 'deepseek-v4-flash' });
      const replacing = event(
        'user/message',
        { content: [{ type: 'text', text: 'This is an automatically generated checkpoint. ' + words(500, 1500) }], source: { kind: 'plugin', plugin: 'compaction', form: 'recall' }, role: 'user', id },
        { sourceEventSeqs: [seq - 2, seq - 1, ...span], surfaceOp: { op: 'replace', start: span[0], end: span[39] } },
      );
      surface.splice(0, 40, replacing);
      event('compaction/end', { compactionId: id, turn: null });
      flush();
    }
  }
  flush();

  // One zstd process compresses every batch file; the frames are concatenated in order.
  const work = mkdtempSync(join(tmpdir(), 'loom-dsh-gen-'));
  try {
    const parts = [JSON.stringify(header) + '\n', ...batches.map((b) => b.join('\n') + '\n')];
    const names = parts.map((_, i) => `p${String(i).padStart(7, '0')}`);
    parts.forEach((p, i) => writeFileSync(join(work, names[i]!), p));
    for (let i = 0; i < names.length; i += 2000) {
      execFileSync('/usr/bin/zstd', ['--check', '-3', '-q', '-f', ...names.slice(i, i + 2000)], { cwd: work });
    }
    const frames = readdirSync(work).filter((f) => f.endsWith('.zst')).sort();
    const buf = Buffer.concat(frames.map((f) => readFileSync(join(work, f))));
    writeFileSync(path, buf);
    const decompressedBytes = parts.reduce((a, p) => a + Buffer.byteLength(p), 0);
    return { path, events: seq, records, frames: frames.length, bytes: buf.length, decompressedBytes, compactions };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
