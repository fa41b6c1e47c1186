import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readDshLog, scanZstdFrames, type DshLog } from '../../src/core/formats/dsh/index';
import { DSH_FIXTURES, dshFixtureText, zstdFrame, zstdLogFrames, zstdLogOf } from '../helpers/dshBuild';
import { assistantMessage, ev, meta, oneTurnLog, rawLog } from '../helpers/dshLogs';

const kinds = (log: DshLog): string[] => log.diagnostics.map((d) => d.kind);

test('all five fixtures read the same through zstd (one frame per batch) as raw, every frame decoded', async () => {
  for (const name of DSH_FIXTURES) {
    const text = dshFixtureText(name);
    const raw = await readDshLog(Buffer.from(text));
    for (const batch of [1, 5, 1000]) {
      const zstd = await readDshLog(zstdLogOf(text, batch));
      assert.equal(zstd.encoding, 'zstd');
      assert.deepEqual(zstd.events.slice(), raw.events.slice(), `${name}, ${batch} lines per frame`);
      assert.equal(zstd.state, 'complete');
      assert.deepEqual(zstd.diagnostics, []);
    }
  }
});

/** dsh-packed-chunks as zstd, 5 records per frame, and how many events the frames before the last hold. */
async function packedChunks(): Promise<{ text: string; bytes: Buffer; frames: Array<[number, number]>; all: DshLog; beforeLast: number }> {
  const text = dshFixtureText('dsh-packed-chunks.session.jsonl');
  const { bytes, frames } = zstdLogFrames(text, 5);
  const all = await readDshLog(bytes);
  const lines = text.split('\n').filter((l) => l !== '');
  // 35 records in frames of 5: the last frame holds records 31..35
  const beforeLast = (await readDshLog(Buffer.from(lines.slice(0, 31).join('\n') + '\n'))).events.length;
  return { text, bytes, frames, all, beforeLast };
}

test('a torn final frame, cut in its frame header: the complete frames before it stay', async () => {
  const { bytes, frames, all, beforeLast } = await packedChunks();
  const last = frames[frames.length - 1]!;
  const log = await readDshLog(bytes.subarray(0, last[0] + 5));
  assert.equal(log.events.length, beforeLast);
  assert.deepEqual(log.events.slice(), all.events.slice(0, beforeLast));
  assert.equal(log.state, 'torn');
  assert.match(log.diagnostics.find((d) => d.kind === 'torn-tail')!.message, /in its frame header/);
  assert.equal(log.diagnostics.find((d) => d.kind === 'torn-tail')!.offset, last[0]);
});

test('a torn final frame, cut in its checksum: every line of its complete blocks is recovered', async () => {
  const { bytes, frames, all } = await packedChunks();
  const last = frames[frames.length - 1]!;
  const log = await readDshLog(bytes.subarray(0, last[1] - 2));
  assert.match(log.diagnostics.find((d) => d.kind === 'torn-tail')!.message, /in its checksum/);
  assert.deepEqual(log.events.slice(), all.events.slice());
  // the tail was torn even though nothing was lost
  assert.equal(log.state, 'torn');
});

test('a torn final frame, cut inside a block: the complete lines of its complete blocks are recovered', async () => {
  // A final batch over 128 KiB spans several blocks; the cut falls in a later one.
  const records = [...oneTurnLog()];
  for (let i = 0; i < 40; i++) records.push(ev('hook/result', 6 + i, { turn: 1, text: `${i} `.repeat(3000 + i) }));
  const text = rawLog(records);
  const lines = text.split('\n').filter((l) => l !== '');
  const head = Buffer.concat([zstdFrame(lines[0] + '\n'), zstdFrame(lines.slice(1, 7).join('\n') + '\n')]);
  const big = zstdFrame(lines.slice(7).join('\n') + '\n', { level: 1 });
  const structure = scanZstdFrames(big);
  assert.equal(structure.frames.length, 1);
  const file = Buffer.concat([head, big.subarray(0, Math.floor(big.length * 0.8))]);
  const log = await readDshLog(file);
  assert.match(log.diagnostics.find((d) => d.kind === 'torn-tail')!.message, /inside a block/);
  assert.ok(log.events.length > 6, `recovered some lines of the torn frame (got ${log.events.length} events)`);
  assert.ok(log.events.length < 46);
  assert.ok(log.events.slice().every((e, i) => e.seq === i));
});

test('a checksum mismatch in a middle frame is corruption: the events of the frames before it are shown', async () => {
  const { bytes, frames, beforeLast } = await packedChunks();
  void beforeLast;
  const bad = Buffer.from(bytes);
  const mid = frames[2]!; // records 6..10
  bad[mid[1] - 1] ^= 0xff; // the stored checksum's last byte
  const log = await readDshLog(bad);
  assert.equal(log.state, 'corrupt');
  assert.deepEqual(log.closers, []);
  const frame = log.diagnostics.find((d) => d.kind === 'dsh-frame')!;
  assert.match(frame.message, /content checksum/);
  assert.equal(frame.offset, mid[0]);
  const lines = dshFixtureText('dsh-packed-chunks.session.jsonl').split('\n').filter((l) => l !== '');
  const expected = (await readDshLog(Buffer.from(lines.slice(0, 6).join('\n') + '\n'))).events.length;
  assert.equal(log.events.length, expected);
});

test('the header frame must be exactly one line; a complete frame must not end inside a record', async () => {
  const two = Buffer.concat([zstdFrame(JSON.stringify(meta()) + '\n' + JSON.stringify(oneTurnLog()[0]) + '\n')]);
  const a = await readDshLog(two);
  assert.equal(a.state, 'corrupt');
  assert.equal(a.header, null);

  const lines = rawLog(oneTurnLog()).split('\n');
  const torn = Buffer.concat([zstdFrame(lines[0] + '\n'), zstdFrame(lines.slice(1, 3).join('\n') + '\n' + lines[3]!.slice(0, 10)), zstdFrame(lines.slice(4).join('\n'))]);
  const b = await readDshLog(torn);
  assert.equal(b.state, 'corrupt');
  assert.match(b.diagnostics.find((d) => d.kind === 'dsh-bad-record')!.message, /ends inside a record/);
  assert.equal(b.events.length, 0);
});

test('bytes that are no zstd frame after the frames, or a skippable frame, are an invalid structure: corrupt', async () => {
  const good = zstdLogOf(rawLog(oneTurnLog()));
  const garbage = await readDshLog(Buffer.concat([good, Buffer.from('{"type":"x"}\n')]));
  assert.equal(garbage.state, 'corrupt');
  assert.equal(garbage.diagnostics.find((d) => d.kind === 'dsh-frame')!.offset, good.length);
  assert.equal(garbage.events.length, 6);
  const skippable = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
  assert.equal((await readDshLog(Buffer.concat([good, skippable]))).state, 'corrupt');
});

test('no complete header frame: corrupt, nothing read', async () => {
  const good = zstdLogOf(rawLog(oneTurnLog()));
  const first = scanZstdFrames(good).frames[0]!;
  const log = await readDshLog(good.subarray(0, first.end - 1));
  assert.equal(log.state, 'corrupt');
  assert.equal(log.header, null);
  assert.deepEqual(kinds(log), ['no-header']);
});

test('property: a zstd log cut anywhere never throws, shows a prefix of the events, and is corrupt only when the header frame is cut', async () => {
  const text = rawLog([...oneTurnLog(), ev('turn/start', 6, { turn: 2 }), ev('step/start', 7, { turn: 2, step: 1 }), assistantMessage(8, 2, 1, [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: '{}' }])]);
  const file = zstdLogOf(text, 2);
  const full = await readDshLog(file);
  const headerEnd = scanZstdFrames(file).frames[0]!.end;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: file.length }), async (cut) => {
      const log = await readDshLog(file.subarray(0, cut));
      assert.deepEqual(log.events.slice(), full.events.slice(0, log.events.length));
      if (cut >= headerEnd) assert.notEqual(log.state, 'corrupt');
      else assert.equal(log.state, 'corrupt');
      // closers only continue the stored events
      if (log.closers.length > 0) assert.equal(log.closers[0]!.seq, log.events.length);
    }),
    { numRuns: 300 },
  );
});

test('property: random bytes, with or without the zstd magic, give a diagnostic and never a throw', async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), fc.boolean(), async (bytes, magic) => {
      const input = magic ? Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), bytes]) : Buffer.from(bytes);
      const log = await readDshLog(input);
      if (log.header === null) assert.ok(log.diagnostics.length > 0);
    }),
    { numRuns: 400 },
  );
});
