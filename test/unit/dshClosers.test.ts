import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dshContextAt, loadDshFile, readDshLog, NOT_STARTED_TEXT, OUTCOME_UNKNOWN_TEXT } from '../../src/core/formats/dsh/index';
import { dshFixtureText } from '../helpers/dshBuild';
import { assistantMessage, ev, oneTurnLog, rawLog, userMessage } from '../helpers/dshLogs';

test('the closers dsh wrote to the tool-outcome-unknown fixture are reproduced byte for byte from its stored prefix', async () => {
  const lines = dshFixtureText('dsh-interrupted-tool-outcome-unknown.session.jsonl').split('\n');
  // header + seqs 0..4 (the recorded tool/call at seq 4 never got its result)
  const log = await readDshLog(Buffer.from(lines.slice(0, 6).join('\n') + '\n'));
  assert.equal(log.state, 'interrupted');
  assert.equal(log.openTurn, 1);
  assert.deepEqual(
    log.closers.map((e) => JSON.stringify(e)),
    lines.slice(6, 9),
  );
});

test('contract 3: an open turn 2 (turn/start, step/start) gets step/end and turn/end{interrupted}, seqs 6–9 → 0–9', async () => {
  const log = await readDshLog(Buffer.from(rawLog([...oneTurnLog(), ev('turn/start', 6, { turn: 2 }), ev('step/start', 7, { turn: 2, step: 1 })])));
  assert.equal(log.state, 'interrupted');
  assert.deepEqual(
    log.closers.map((e) => [e.type, e.seq, e.time, e.data]),
    [
      ['step/end', 8, 1007, { turn: 2, step: 1 }],
      ['turn/end', 9, 1007, { turn: 2, reason: { kind: 'interrupted' } }],
    ],
  );
  assert.ok(log.diagnostics.some((d) => d.kind === 'dsh-interrupted'));
});

test('contract 4: an assistant tool-call with no tool/call gets TOOL_NOT_STARTED, before step/end and turn/end', async () => {
  const records = [ev('turn/start', 0, { turn: 1 }), userMessage(1, 'go'), ev('step/start', 2, { turn: 1, step: 1 }), assistantMessage(3, 1, 1, [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: '{}' }])];
  const log = await readDshLog(Buffer.from(rawLog(records)));
  assert.deepEqual(log.closers.map((e) => e.type), ['tool/result', 'step/end', 'turn/end']);
  const r = log.closers[0]!;
  const data = r.data as { turn: number; step: number; message: { id: string; source: unknown; content: Array<{ toolCallId: string; isError: boolean; content: Array<{ text: string }> }> }; error: unknown };
  assert.equal(data.message.id, 'interrupted-tool-result-c1-4');
  assert.deepEqual(data.message.source, { kind: 'tool', callId: 'c1' });
  assert.equal(data.message.content[0]!.toolCallId, 'c1');
  assert.equal(data.message.content[0]!.isError, true);
  assert.equal(data.message.content[0]!.content[0]!.text, NOT_STARTED_TEXT);
  assert.deepEqual(data.error, { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' });
  assert.equal(r.surfaceOp, 'append');
  assert.equal(Object.hasOwn(r, 'sourceEventSeqs'), false);
});

test('contract 5: a recorded tool/call with no result gets TOOL_OUTCOME_UNKNOWN citing it; the model then sees the paired error result', async () => {
  const records = [
    ev('turn/start', 0, { turn: 1 }),
    userMessage(1, 'go'),
    ev('step/start', 2, { turn: 1, step: 1 }),
    assistantMessage(3, 1, 1, [{ type: 'tool-call', id: 'c1', name: 'bash', arguments: '{}' }, { type: 'tool-call', id: 'c2', name: 'read', arguments: '{}' }]),
    ev('tool/call', 4, { turn: 1, step: 1, callId: 'c1', name: 'bash', arguments: '{}' }),
  ];
  const log = await readDshLog(Buffer.from(rawLog(records)));
  const [unknown, notStarted] = log.closers;
  assert.deepEqual(unknown!.sourceEventSeqs, [4]);
  assert.equal((unknown!.data as { error: { code: string } }).error.code, 'TOOL_OUTCOME_UNKNOWN');
  assert.equal((unknown!.data as { message: { content: Array<{ content: Array<{ text: string }> }> } }).message.content[0]!.content[0]!.text, OUTCOME_UNKNOWN_TEXT);
  assert.equal((notStarted!.data as { error: { code: string } }).error.code, 'TOOL_NOT_STARTED');
  assert.deepEqual(log.closers.map((e) => e.seq), [5, 6, 7, 8]);
  const ctx = dshContextAt(log);
  assert.deepEqual(ctx.messageSeqs, [1, 3, 5, 6]);
  // before the closers, the model saw no result
  assert.deepEqual(dshContextAt(log, 4).messageSeqs, [1, 3]);
});

test('a balanced log and a log whose step closed (pending calls cleared) need no tool closers', async () => {
  assert.deepEqual((await readDshLog(Buffer.from(rawLog(oneTurnLog())))).closers, []);
  const records = [ev('turn/start', 0, { turn: 1 }), ev('step/start', 1, { turn: 1, step: 1 }), assistantMessage(2, 1, 1, [{ type: 'tool-call', id: 'c1', name: 'x', arguments: '{}' }]), ev('step/end', 3, { turn: 1, step: 1 })];
  const log = await readDshLog(Buffer.from(rawLog(records)));
  assert.deepEqual(log.closers.map((e) => e.type), ['turn/end']);
});

test('a log whose file changed within the live window ends in an open turn: state open, no closers (a live session is never repaired)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-dsh-live-'));
  const file = join(dir, 'session.jsonl');
  writeFileSync(file, rawLog([...oneTurnLog(), ev('turn/start', 6, { turn: 2 })]));
  const live = await loadDshFile(file, { liveWindowMs: 60_000 });
  assert.equal(live.state, 'open');
  assert.deepEqual(live.closers, []);
  const old = Date.now() / 1000 - 3600;
  utimesSync(file, old, old);
  const stale = await loadDshFile(file, { liveWindowMs: 60_000 });
  assert.equal(stale.state, 'interrupted');
  assert.equal(stale.closers.length, 1);
});
