// dsh's persistence contract (dsh-format.md §5, `runPersistenceContract`, the coordinator and
// JSONL suites) as it applies to a reader, run over the three stored forms of the same logs:
// raw JSONL, zstd frames (one per two records, as batches) and SQLite rows. The write-only items
// (2: create rejects a fractional createdAt; 6: list hides never-appended sessions; 7: abort
// signals; 10–12: append rejections) have no reader counterpart; 10/11 reappear as the seq-gap
// cases of the corruption rule.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dshContextAt, loadDshDatabaseSession, loadDshFile, type DshEvent, type DshLog } from '../../src/core/formats/dsh/index';
import { DSH_FIXTURES, dshFixtureText, storeSessionOf, writeDshStore, zstdLogOf } from '../helpers/dshBuild';
import { assistantMessage, ev, meta, oneTurnLog, userMessage } from '../helpers/dshLogs';

type Rec = Record<string, unknown>;
/** A record that does not parse (an unparsable line, an undecodable row), standing at seq `seq`. */
const BAD = (seq: number): Rec => ({ __bad: seq });

interface Form {
  name: string;
  /** Stores the header and records in this form; returns a reader of what was stored. */
  store(header: Rec, records: Rec[]): Promise<{ read: () => Promise<DshLog>; bytes: () => string }>;
}

const rawText = (header: Rec, records: Rec[]): string =>
  [header, ...records].map((r) => (typeof r.__bad === 'number' ? '{"type":"user/message","seq":' : JSON.stringify(r)) + '\n').join('');
const fileHash = (p: string) => (): string => createHash('sha256').update(readFileSync(p)).digest('hex');
const dir = mkdtempSync(join(tmpdir(), 'loom-dsh-contract-'));
let n = 0;

const FORMS: Form[] = [
  {
    name: 'raw JSONL',
    async store(header, records) {
      const path = join(dir, `${n++}.jsonl`);
      writeFileSync(path, rawText(header, records));
      return { read: () => loadDshFile(path, { liveWindowMs: 0 }), bytes: fileHash(path) };
    },
  },
  {
    name: 'zstd frames',
    async store(header, records) {
      const path = join(dir, `${n++}.jsonl.zstd`);
      writeFileSync(path, zstdLogOf(rawText(header, records), 2));
      return { read: () => loadDshFile(path, { liveWindowMs: 0 }), bytes: fileHash(path) };
    },
  },
  {
    name: 'SQLite rows',
    async store(header, records) {
      const path = join(dir, `${n++}.db`);
      await writeDshStore(path, [{ header, records }]);
      return { read: async () => (await loadDshDatabaseSession(path, String(header.id), { liveWindowMs: 0 }))!, bytes: fileHash(path) };
    },
  },
];

const asRecs = (events: DshEvent[]): Rec[] => events as unknown as Rec[];
const types = (events: DshEvent[]): string[] => events.map((e) => e.type);

for (const form of FORMS) {
  describe(`dsh contract over ${form.name}`, () => {
    test('1: round trip: the same meta (version, id, cwd) and deep-equal events, for oneTurnLog and every fixture', async () => {
      const s = await form.store(meta('s1', '/w'), asRecs(oneTurnLog()));
      const log = await s.read();
      assert.deepEqual([log.header!.version, log.header!.id, log.header!.cwd], [0, 's1', '/w']);
      assert.deepEqual(log.events.slice(), oneTurnLog());
      for (const name of DSH_FIXTURES) {
        const { header, records } = storeSessionOf(dshFixtureText(name));
        const fixtureLog = await (await FORMS[0]!.store(header, records)).read();
        assert.deepEqual((await (await form.store(header, records)).read()).events.slice(), fixtureLog.events.slice(), name);
      }
    });

    test('coordinator: seedLength, delegationDepth, parentSession and origin round-trip', async () => {
      const header = { ...meta('child'), parentSession: 'parent', seedLength: 12, origin: 'subagent', delegationDepth: 2, agentPreset: 'p' };
      const log = await (await form.store(header, asRecs(oneTurnLog()))).read();
      assert.deepEqual(
        [log.header!.parentSession, log.header!.seedLength, log.header!.origin, log.header!.delegationDepth, log.header!.agentPreset],
        ['parent', 12, 'subagent', 2, 'p'],
      );
    });

    test('3: an open turn 2 gets step/end and turn/end{interrupted} in memory (seqs 0–9); the store is unchanged and re-reads identically', async () => {
      const s = await form.store(meta(), asRecs([...oneTurnLog(), ev('turn/start', 6, { turn: 2 }), userMessage(7, 'again'), ev('step/start', 8, { turn: 2, step: 1 })]));
      const before = s.bytes();
      const log = await s.read();
      assert.equal(log.state, 'interrupted');
      assert.deepEqual(log.events.slice().map((e) => e.seq), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
      assert.deepEqual(log.closers.map((e) => [e.type, e.seq]), [['step/end', 9], ['turn/end', 10]]);
      assert.deepEqual((log.closers[1]!.data as Rec).reason, { kind: 'interrupted' });
      const again = await s.read();
      assert.deepEqual({ ...again, events: again.events.slice() }, { ...log, events: log.events.slice() });
      assert.equal(s.bytes(), before);
    });

    test('4: a tool-call with no tool/call gets TOOL_NOT_STARTED, before step/end and turn/end', async () => {
      const recs = [ev('turn/start', 0, { turn: 1 }), ev('step/start', 1, { turn: 1, step: 1 }), assistantMessage(2, 1, 1, [{ type: 'tool-call', id: 'c9', name: 'x', arguments: '{}' }])];
      const log = await (await form.store(meta(), asRecs(recs))).read();
      assert.deepEqual(types(log.closers), ['tool/result', 'step/end', 'turn/end']);
      assert.equal((log.closers[0]!.data as { error: { code: string } }).error.code, 'TOOL_NOT_STARTED');
    });

    test('5: a recorded tool/call with no result gets TOOL_OUTCOME_UNKNOWN; the model then sees the paired error result', async () => {
      const recs = [
        ev('turn/start', 0, { turn: 1 }),
        ev('step/start', 1, { turn: 1, step: 1 }),
        assistantMessage(2, 1, 1, [{ type: 'tool-call', id: 'c9', name: 'x', arguments: '{}' }]),
        ev('tool/call', 3, { turn: 1, step: 1, callId: 'c9', name: 'x', arguments: '{}' }),
      ];
      const log = await (await form.store(meta(), asRecs(recs))).read();
      assert.equal((log.closers[0]!.data as { error: { code: string } }).error.code, 'TOOL_OUTCOME_UNKNOWN');
      const ctx = dshContextAt(log);
      assert.deepEqual(ctx.messageSeqs, [2, 4]);
      assert.equal((ctx.messages[1] as { content: Array<{ toolCallId: string; isError: boolean }> }).content[0]!.toolCallId, 'c9');
    });

    test('8: the stored events carry no closers (readFrom adds none); closers come apart, after them', async () => {
      const log = await (await form.store(meta(), asRecs([...oneTurnLog(), ev('turn/start', 6, { turn: 2 })]))).read();
      assert.equal(log.events.length, 7);
      assert.deepEqual(log.events.slice(3), [...oneTurnLog().slice(3), ev('turn/start', 6, { turn: 2 })]);
      assert.equal(log.closers[0]!.seq, 7);
    });

    test('§3: a bad record or a seq gap before a later turn/end is corruption; after the last turn/end it bounds the prefix', async () => {
      const two = [...oneTurnLog(), ...oneTurnLog(6, 2)];
      const badBefore = [...asRecs(two)];
      badBefore[2] = BAD(2);
      const a = await (await form.store(meta(), badBefore)).read();
      assert.equal(a.state, 'corrupt');
      assert.equal(a.events.length, 2);

      const gapBefore = asRecs(two.filter((e) => e.seq !== 3));
      const b = await (await form.store(meta(), gapBefore)).read();
      assert.equal(b.state, 'corrupt');
      assert.equal(b.events.length, 3);

      const tail = asRecs([...oneTurnLog(), ev('turn/start', 6, { turn: 2 }), userMessage(7, 'x'), ev('step/start', 8, { turn: 2, step: 1 })]);
      const badAfter = [...tail];
      badAfter[7] = BAD(7);
      const c = await (await form.store(meta(), badAfter)).read();
      assert.equal(c.state, 'torn');
      assert.equal(c.events.length, 7);
      assert.deepEqual(types(c.closers), ['turn/end']);

      const gapAfter = tail.filter((r) => r.seq !== 7);
      const d = await (await form.store(meta(), gapAfter)).read();
      assert.equal(d.state, 'torn');
      assert.equal(d.events.length, 7);
    });

    test('§3: a packed row containing a gap is dropped whole; packed, unpacked and mixed logs load the same', async () => {
      const chunk = (seq: number, text: string): DshEvent => ev('assistant/chunk', seq, { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text } });
      const unpacked = [ev('turn/start', 0, { turn: 1 }), ev('step/start', 1, { turn: 1, step: 1 }), chunk(2, 'a'), chunk(3, 'b'), chunk(4, 'c'), ev('step/end', 5, { turn: 1, step: 1 }), ev('turn/end', 6, { turn: 1, reason: { kind: 'completed' } })];
      const row = { type: 'text-chunks', seq0: 2, time0: 1002, data: { turn: 1, step: 1, index: 0, dt: [1, 1], texts: ['a', 'b', 'c'] } };
      const packed = [unpacked[0]!, unpacked[1]!, row, unpacked[5]!, unpacked[6]!] as Rec[];
      const a = await (await form.store(meta(), asRecs(unpacked))).read();
      const b = await (await form.store(meta(), packed)).read();
      assert.deepEqual(b.events.slice(), a.events.slice());
      const gapRow = { ...row, seq0: 3 };
      const c = await (await form.store(meta(), [unpacked[0]!, unpacked[1]!, gapRow] as Rec[])).read();
      assert.equal(c.events.length, 2);
      assert.equal(c.state, 'torn');
    });

    test('a header-only log preserves nothing', async () => {
      const log = await (await form.store(meta(), [])).read();
      assert.deepEqual(log.events.slice(), []);
      assert.deepEqual(log.closers, []);
      assert.equal(log.state, 'complete');
    });

    test('coordinator: an unknown event type is shown raw with a diagnostic unless ignorable; legacy shapes upgrade', async () => {
      const recs = [ev('future/x', 0, {}), { ...ev('future/y', 1, {}), ignorable: true }, { type: 'turn/start', seq: 2, time: 0, data: { turn: 1, trigger: { kind: 'user' } } }];
      const log = await (await form.store(meta(), recs as Rec[])).read();
      assert.deepEqual(log.diagnostics.filter((d) => d.kind === 'dsh-unknown-type').map((d) => d.seq), [0]);
      assert.deepEqual(log.events.at(2)!.data, { turn: 1 });
    });
  });
}
