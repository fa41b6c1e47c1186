import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDshFile, readDshLog, readDshListing, type DshLog } from '../../src/core/formats/dsh/index';
import { DSH_FIXTURES, dshFixture } from '../helpers/dshBuild';
import { ev, meta, oneTurnLog, rawLog, userMessage } from '../helpers/dshLogs';

const read = (text: string): Promise<DshLog> => readDshLog(Buffer.from(text));
const kinds = (log: DshLog): string[] => log.diagnostics.map((d) => d.kind);

test('a final line without \\n is a torn tail: dropped from the events, reported with its line and byte offset', async () => {
  const full = rawLog(oneTurnLog());
  const text = full + JSON.stringify(ev('turn/start', 6, { turn: 2 }));
  const log = await read(text);
  assert.equal(log.events.length, 6);
  assert.equal(log.state, 'torn');
  const d = log.diagnostics.find((x) => x.kind === 'torn-tail')!;
  assert.equal(d.line, 8);
  assert.equal(d.offset, Buffer.byteLength(full));
});

test('a header-only file preserves nothing: no events, complete', async () => {
  const log = await read(rawLog([]));
  assert.equal(log.events.length, 0);
  assert.equal(log.state, 'complete');
  assert.equal(log.header?.id, 's1');
});

test('an empty file, or a header line without newline: no header, corrupt, nothing shown', async () => {
  for (const text of ['', JSON.stringify(meta())]) {
    const log = await read(text);
    assert.equal(log.header, null);
    assert.equal(log.state, 'corrupt');
    assert.deepEqual(kinds(log), ['no-header']);
  }
});

test('a header longer than 8 KB is read (events and listing)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-dsh-'));
  const file = join(dir, 'session.jsonl');
  writeFileSync(file, rawLog(oneTurnLog(), { ...meta(), agentPreset: 'p'.repeat(20000) }));
  const log = await loadDshFile(file);
  assert.equal(log.events.length, 6);
  assert.equal((log.header!.agentPreset as string).length, 20000);
  const listed = await readDshListing(file);
  assert.ok(listed.ok);
  assert.equal(listed.listing.agentPreset!.length, 20000);
});

test('corruption rule: an unparsable record before a later turn/end makes the log corrupt; the prefix before it is shown', async () => {
  const records = [...oneTurnLog(), ...oneTurnLog(6, 2)];
  const lines = rawLog(records).split('\n');
  lines[3] = '{"type":"step/start","seq":2,'; // line 4 of the file: the record of seq 2
  const log = await read(lines.join('\n'));
  assert.equal(log.state, 'corrupt');
  assert.equal(log.events.length, 2);
  assert.deepEqual(log.closers, []);
  const bad = log.diagnostics.find((d) => d.kind === 'dsh-bad-record')!;
  assert.equal(bad.line, 4);
  assert.ok(log.diagnostics.some((d) => d.kind === 'dsh-corrupt'));
});

test('corruption rule: an unparsable record after the last turn/end bounds the prefix (torn tail)', async () => {
  const lines = rawLog([...oneTurnLog(), ev('turn/start', 6, { turn: 2 }), userMessage(7, 'x')]).split('\n');
  lines[8] = 'not json'; // the user/message of seq 7 (line 9)
  const log = await read(lines.join('\n'));
  assert.equal(log.state, 'torn');
  assert.equal(log.events.length, 7);
  // the surviving prefix ends inside turn 2: the closers apply in memory
  assert.deepEqual(log.closers.map((e) => e.type), ['turn/end']);
  assert.deepEqual(kinds(log).slice(0, 2), ['dsh-bad-record', 'torn-tail']);
});

test('corruption rule: a seq gap before a later turn/end is corruption; after the last one, a torn tail', async () => {
  const gapBefore = oneTurnLog().map((e) => (e.seq >= 3 ? { ...e, seq: e.seq + 1 } : e));
  const before = await read(rawLog(gapBefore));
  assert.equal(before.state, 'corrupt');
  assert.equal(before.events.length, 3);
  assert.equal(before.diagnostics.find((d) => d.kind === 'dsh-seq-gap')!.seq, 4);

  const gapAfter = [...oneTurnLog(), ev('turn/start', 6, { turn: 2 }), ev('step/start', 8, { turn: 2, step: 1 })];
  const after = await read(rawLog(gapAfter));
  assert.equal(after.state, 'torn');
  assert.equal(after.events.length, 7);
});

test('a packed row with a gap inside is dropped whole', async () => {
  const records = [
    ...oneTurnLog().slice(0, 3),
    ev('assistant/chunk', 3, { turn: 1, step: 1, chunk: { type: 'block-start', index: 0, blockType: 'text' } }),
    // seq0 5 where 4 is expected: the whole row (members 5..7) goes
    { type: 'text-chunks', seq0: 5, time0: 0, data: { turn: 1, step: 1, index: 0, dt: [0, 0], texts: ['a', 'b', 'c'] } },
  ];
  const log = await read(rawLog(records));
  assert.equal(log.events.length, 4);
  assert.equal(log.state, 'torn');
});

test('a malformed packed row is an unparsable record (corrupt before a later turn/end)', async () => {
  const records = [...oneTurnLog().slice(0, 3), { type: 'text-chunks', seq0: 3, time0: 0, data: { turn: 1, step: 1, index: 0, dt: [], texts: [] } }, ...oneTurnLog(3).slice(3)];
  const log = await read(rawLog(records));
  assert.equal(log.state, 'corrupt');
  assert.match(log.diagnostics.find((d) => d.kind === 'dsh-bad-record')!.message, /texts array is missing or empty/);
});

test('a foreign or newer header version is refused before anything else is read', async () => {
  for (const [version, words] of [[1, /newer.*upgrade/], [-1, /no upgrade path/]] as const) {
    const log = await read(rawLog(oneTurnLog(), { ...meta(), version }));
    assert.equal(log.header, null);
    assert.equal(log.state, 'corrupt');
    assert.equal(log.events.length, 0);
    const d = log.diagnostics.find((x) => x.kind === 'unsupported-version')!;
    assert.match(d.message, words);
  }
});

test('lenient header: createdAt 0 and a template id are read; delegationDepth defaults to 0; retired keys are reported', async () => {
  const { delegationDepth: _d, ...noDepth } = meta('{{sessionId}}');
  const log = await read(rawLog(oneTurnLog(), { ...noDepth, createdAt: 0, sandboxMode: 'x' }));
  assert.equal(log.header!.delegationDepth, 0);
  assert.equal(log.header!.id, '{{sessionId}}');
  assert.equal(log.events.length, 6);
  assert.match(log.diagnostics.find((d) => d.kind === 'invalid-header')!.message, /retired key sandboxMode/);
});

test('no fixture byte changes on the raw read path (hash before and after)', async () => {
  for (const name of DSH_FIXTURES) {
    const path = dshFixture(name);
    const before = createHash('sha256').update(readFileSync(path)).digest('hex');
    await loadDshFile(path);
    await readDshListing(path);
    assert.equal(createHash('sha256').update(readFileSync(path)).digest('hex'), before, name);
  }
});
