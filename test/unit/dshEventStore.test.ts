import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { decompress } from 'fzstd';
import { generateDshLog } from '../../bench/dshGenerate';
import { dshContextAt, dshSessionStats, loadDshDatabaseSession, loadDshFile, readDshLog, type DshEvent, type DshEventStore, type DshLog } from '../../src/core/formats/dsh/index';
import { loadXxh64 } from '../../src/core/formats/dsh/zstdDecode';
import { DSH_FIXTURES, dshFixtureText, writeDshStore } from '../helpers/dshBuild';
import { meta } from '../helpers/dshLogs';

type Rec = Record<string, unknown>;

/**
 * A zstd frame holding `content` in raw blocks (RFC 8878 block type 0) with its XXH64 checksum:
 * a valid frame built in-process, so a property can try hundreds of framings quickly (the real
 * compressor's frames are covered by dshZstd.test.ts and dshGolden.test.ts).
 */
function rawBlockFrame(content: Buffer, h64: (b: Uint8Array) => bigint): Buffer {
  // Frame header descriptor 0x84: a 4-byte content size and a checksum; not single-segment, so a
  // window descriptor follows (0x58: a 2 MiB window).
  const size = Buffer.alloc(4);
  size.writeUInt32LE(content.length);
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x84, 0x58]), size];
  const MAX = 128 * 1024;
  for (let at = 0; at < content.length; at += MAX) {
    const block = content.subarray(at, at + MAX);
    const h = (block.length << 3) | (at + MAX >= content.length ? 1 : 0);
    parts.push(Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), block);
  }
  const sum = Buffer.alloc(4);
  sum.writeUInt32LE(Number(h64(content) & 0xffffffffn));
  parts.push(sum);
  return Buffer.concat(parts);
}

/** The events of `records` as dsh-format.md §3 says, written independently of the reader. */
function expected(records: Rec[]): DshEvent[] {
  const out: DshEvent[] = [];
  for (const r of records) {
    if (typeof r.seq0 !== 'number') {
      out.push(r as unknown as DshEvent);
      continue;
    }
    const d = r.data as Rec;
    const tool = r.type === 'tool-call-chunks';
    const payload = (tool ? d.args : d.texts) as string[];
    const dt = d.dt as number[];
    let time = r.time0 as number;
    payload.forEach((text, k) => {
      if (k > 0) time += dt[k - 1]!;
      const delta = r.type === 'text-chunks' ? 'text-delta' : r.type === 'reasoning-chunks' ? 'reasoning-delta' : 'tool-call-delta';
      const chunk: Rec = tool ? { type: delta, index: d.index, id: d.id, ...('name' in d ? { name: d.name } : {}), argumentsDelta: text } : { type: delta, index: d.index, text };
      out.push({ type: 'assistant/chunk', seq: (r.seq0 as number) + k, time, data: { turn: d.turn, step: d.step, chunk } });
    });
  }
  return out;
}

const TEXT = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('é', '日本語', '\u2028', '"\\', '😀', 'a\nb'));

/** A random stored log: verbatim events of resident and other types, packed rows of the three kinds. */
const storedLog = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constantFrom('user/message', 'assistant/message', 'tool/call', 'hook/result', 'assistant/chunk', 'request/context', 'step/end'), text: TEXT }),
      fc.record({
        kind: fc.constantFrom('text-chunks', 'reasoning-chunks', 'tool-call-chunks'),
        texts: fc.array(TEXT, { minLength: 1, maxLength: 7 }),
        gaps: fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 6, maxLength: 6 }),
        named: fc.boolean(),
      }),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((specs) => {
    const records: Rec[] = [];
    let seq = 0;
    let time = 1_700_000_000_000;
    for (const s of specs) {
      time += 7;
      if ('text' in s) {
        const data = s.kind === 'user/message' ? { id: `u${seq}`, role: 'user', content: [{ type: 'text', text: s.text }], source: { kind: 'user' } } : s.kind === 'assistant/chunk' ? { turn: 1, step: 1, chunk: { type: 'block-end', index: 0, block: { type: 'text', text: s.text } } } : { turn: 1, step: 1, text: s.text };
        records.push({ type: s.kind, seq, time, data, ...(s.kind === 'user/message' ? { surfaceOp: 'append' } : {}) });
        seq++;
      } else {
        const n = s.texts.length;
        const tool = s.kind === 'tool-call-chunks';
        const data: Rec = { turn: 1, step: 1, index: 2, dt: s.gaps.slice(0, n - 1) };
        if (tool) Object.assign(data, { id: `call_${seq}`, ...(s.named ? { name: 'bash' } : {}), args: s.texts });
        else data.texts = s.texts;
        records.push({ type: s.kind, seq0: seq, time0: time, data });
        seq += n;
      }
    }
    return records;
  });

async function forms(records: Rec[], batch: number): Promise<Array<[string, DshLog]>> {
  const h64 = await loadXxh64();
  const lines = records.map((r) => JSON.stringify(r) + '\n');
  const header = JSON.stringify(meta()) + '\n';
  const frames = [rawBlockFrame(Buffer.from(header), h64)];
  for (let i = 0; i < lines.length; i += batch) frames.push(rawBlockFrame(Buffer.from(lines.slice(i, i + batch).join('')), h64));
  const db = join(mkdtempSync(join(tmpdir(), 'loom-dsh-store-')), 's.db');
  await writeDshStore(db, [{ header: meta(), records }]);
  return [
    ['raw', await readDshLog(Buffer.from(header + lines.join('')))],
    ['zstd', await readDshLog(Buffer.concat(frames))],
    ['sqlite', (await loadDshDatabaseSession(db, 's1'))!],
  ];
}

test('every read of the event store gives exactly the spec §3 events (seq0+k, time0+dt, name only when the row has it), in raw, zstd and SQLite, in any access order', async () => {
  await fc.assert(
    fc.asyncProperty(storedLog, fc.integer({ min: 1, max: 6 }), fc.array(fc.integer({ min: -60, max: 260 }), { minLength: 1, maxLength: 25 }), async (records, batch, probes) => {
      const want = expected(records);
      for (const [form, log] of await forms(records, batch)) {
        const events = log.events;
        assert.equal(log.state, 'complete', form);
        assert.equal(events.length, want.length, form);
        // probes in random order and repeated: caches must not change what is returned
        for (const i of probes) {
          const at = i % (want.length + 3);
          assert.deepEqual(events.at(at), want.at(at), `${form} at(${at})`);
          assert.equal(events.typeAt(at), want.at(at)?.type, `${form} typeAt(${at})`);
          assert.deepEqual(events.slice(at, at + (i & 7)), want.slice(at, at + (i & 7)), `${form} slice(${at}, ${at + (i & 7)})`);
        }
        assert.deepEqual([...events], want, form);
        assert.deepEqual(events.slice(), want, form);
        assert.equal(JSON.stringify(events.slice()), JSON.stringify(want), `${form}: byte-identical JSON (key order kept)`);
        const types = new Set(['assistant/chunk', 'user/message']);
        assert.deepEqual(events.seqsOf(types), want.flatMap((e, i) => (types.has(e.type) ? [i] : [])), form);
      }
    }),
    { numRuns: 60 },
  );
});

test('the store follows Array.prototype.at and slice for any index: negative from the end, fractional truncated, out of range undefined or clamped', async () => {
  const log = await readDshLog(Buffer.from(dshFixtureText('dsh-packed-chunks.session.jsonl')));
  const want = log.events.slice();
  for (const i of [0, 1, 9.7, -1, -1.5, -124, -125, 123, 124, 1e9, -1e9, NaN, Infinity, -Infinity]) {
    assert.deepEqual(log.events.at(i), want.at(i), `at(${i})`);
    assert.deepEqual(log.events.slice(i), want.slice(i), `slice(${i})`);
    assert.deepEqual(log.events.slice(-3, i), want.slice(-3, i), `slice(-3, ${i})`);
  }
});

test('resident events (messages, tool results, request headers and routes, titles) are the same object on every read; the others are rebuilt equal', async () => {
  for (const name of DSH_FIXTURES) {
    const log = await readDshLog(Buffer.from(dshFixtureText(name)));
    for (let i = 0; i < log.events.length; i++) {
      const type = log.events.typeAt(i)!;
      if (['user/message', 'assistant/message', 'tool/result', 'request/header', 'request/context', 'session/title'].includes(type)) assert.equal(log.events.at(i), log.events.at(i), `${name} seq ${i}`);
      else assert.deepEqual(log.events.at(i), log.events.at(i), `${name} seq ${i}`);
    }
  }
});

test('the stats folded while reading equal the stats folded over every event afterwards, for every fixture', async () => {
  for (const name of DSH_FIXTURES) {
    const log = await readDshLog(Buffer.from(dshFixtureText(name)));
    const all = { ...log, events: log.events.slice() as unknown as DshEventStore };
    assert.deepEqual(dshSessionStats(log), dshSessionStats(all), name);
  }
});

/** Heap and ArrayBuffer bytes still reachable after a full collection (the loaded log kept alive). */
async function retainedBy<T>(load: () => Promise<T>): Promise<{ bytes: number; value: T }> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const used = (): number => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  gc();
  gc();
  const before = used();
  const value = await load();
  gc();
  gc();
  return { bytes: used() - before, value };
}

test('a loaded zstd log keeps chunk events packed: what it retains stays under 1.6× its decompressed size (the eager reader kept 3×)', async () => {
  await loadXxh64();
  const dir = mkdtempSync(join(tmpdir(), 'loom-dsh-mem-'));
  const path = join(dir, 'session.jsonl.zstd');
  const gen = generateDshLog(path, 30_000);
  const { bytes, value: log } = await retainedBy(() => loadDshFile(path));
  assert.equal(log.events.length, gen.events);
  const ratio = bytes / gen.decompressedBytes;
  assert.ok(ratio < 1.6, `retained ${(bytes / 1048576).toFixed(1)} MB = ${ratio.toFixed(2)}× of ${(gen.decompressedBytes / 1048576).toFixed(1)} MB decompressed`);
  // and what the viewer asks for is there
  assert.ok(dshContextAt(log).messages.length > 100);
  // the raw form of the same log keeps its file bytes instead of the compressed frames
  const rawLog = await retainedBy(() => readDshLog(Buffer.from(decompress(readFileSync(path)))));
  assert.ok(rawLog.bytes / gen.decompressedBytes < 2, `raw: retained ${(rawLog.bytes / gen.decompressedBytes).toFixed(2)}×`);
  assert.deepEqual(rawLog.value.events.slice(29_000, 29_100), log.events.slice(29_000, 29_100));
});
