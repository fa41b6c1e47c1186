// The session model seam (src/core/engine): the format is chosen by content, and a dsh log
// answers the editor's questions (summary, rows, context, windows) through dsh's own rules —
// raw, zstd and SQLite forms of the same log alike. Expected values come from the spec and the
// fixtures (dsh-format.md §3–§4, test/fixtures/dsh/README.md), not from running the model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectFileFormat, openSessionModel } from '../../src/core/engine/openModel';
import type { SessionModel, TreeParams } from '../../src/core/engine/model';
import { dshFixture, dshFixtureText, storeSessionOf, writeDshStore, zstdLogOf } from '../helpers/dshBuild';
import { fixture } from '../helpers/fixtures';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'sl-model-'));
const allRows = async (m: SessionModel, p: Partial<TreeParams> = {}) => m.tree({ filter: 'default', search: '', leafId: null, focusEntryId: null, start: 0, count: 1000, ...p });
const old = (p: string): void => utimesSync(p, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));

test('the format is chosen by content, never by name: a dsh log named .jsonl, a zstd log, an xcsh file', async () => {
  const d = tmp();
  const dshAsJsonl = join(d, 'looks-like-xcsh.jsonl');
  writeFileSync(dshAsJsonl, dshFixtureText('dsh-cancel-aborted.session.jsonl'));
  const zstd = join(d, 'session.jsonl.zstd');
  writeFileSync(zstd, zstdLogOf(dshFixtureText('dsh-cancel-aborted.session.jsonl')));
  assert.equal(await detectFileFormat(dshAsJsonl), 'dsh');
  assert.equal(await detectFileFormat(zstd), 'dsh');
  assert.equal(await detectFileFormat(fixture('real-v3', 'gjc-03-raddit-dashboard-pr.jsonl')), 'xcsh');
  assert.equal((await openSessionModel(dshAsJsonl)).format, 'dsh');
  assert.equal((await openSessionModel(fixture('upstream', 'pi-session.v1.glued-records.jsonl'))).format, 'xcsh');
});

test('dsh-packed-chunks: 124 events; the context at the last event holds the 5 projected messages; chunks are one row per run except under `all`', async () => {
  const m = await openSessionModel(dshFixture('dsh-packed-chunks.session.jsonl'));
  const s = await m.summary();
  assert.equal(s.format, 'dsh');
  assert.equal(s.entryCount, 124);
  assert.equal(s.state?.kind, 'complete');
  assert.notEqual(s.readOnlyReason, null);
  const ctx = await m.context(null);
  assert.equal(ctx.messageCount, 5);
  const msgs = await m.messages(null, 0, 10);
  assert.deepEqual(
    msgs.map((x) => x.role),
    ['user', 'custom', 'assistant', 'toolResult', 'assistant'],
  );
  // the tool call and its (error) result are paired both ways
  const call = msgs[2]!.blocks.find((b) => b.kind === 'toolCall');
  assert.ok(call && call.kind === 'toolCall' && call.resultIndex === 3 && call.resultIsError);
  assert.equal(msgs[3]!.toolResult?.callIndex, 2);
  const def = await allRows(m);
  const all = await allRows(m, { filter: 'all' });
  const chunkEvents = 124 - (readFileSync(dshFixture('dsh-packed-chunks.session.jsonl'), 'utf8').match(/"type":"(?!assistant\/chunk|text-chunks|reasoning-chunks|tool-call-chunks)[a-z/-]+","seq"/g)?.length ?? 0);
  assert.ok(def.rows.some((r) => r.kind === 'chunks'));
  assert.equal(def.rows.filter((r) => r.kind === 'chunk').length, 0, 'no single chunk row by default');
  assert.equal(all.rows.filter((r) => r.kind === 'chunk').length, chunkEvents, 'every chunk under `all`');
  // default leaf = the last event, on the highlighted path with its step and turn
  assert.equal(def.rows[def.selectedIndex!]!.entryId, s.defaultLeafId);
  assert.ok(def.rows.filter((r) => r.onPath).some((r) => r.kind === 'turn'));
});

test('dsh-compaction-recovery: the replacement stands first, the shadowed span is the cut band (summarised by compaction)', async () => {
  const m = await openSessionModel(dshFixture('dsh-compaction-recovery.session.jsonl'));
  const ctx = await m.context(null);
  assert.ok(ctx.compaction);
  assert.equal(ctx.compaction.summaryIndex, 0);
  assert.equal(ctx.compaction.cutCount, 1, 'surfaceOp replace start 4 end 4 shadows one node');
  const [summary] = await m.messages(null, 0, 1);
  assert.equal(summary!.segment, 'summary');
  assert.equal(summary!.entryId, ctx.compaction.id);
  const cut = await m.cutEntries(null, 0, 5);
  assert.deepEqual(cut.map((c) => [c.entryId, c.role, c.segment]), [['e4', 'user', 'cut']]);
  assert.deepEqual(await m.locate(null, 'e4'), { messageIndex: null, cutIndex: 0 });
  // before the compaction, the original prompt is sent as it was
  const before = await m.context('e15');
  assert.equal(before.compaction, null);
  assert.equal((await m.messages('e15', 0, 1))[0]!.entryId, 'e4');
  // runtime: the system prompt and the 15 tools of the latest request header
  assert.match(ctx.runtime.systemPrompt ?? '', /DeepSeek/);
  assert.equal(ctx.runtime.tools?.length, 15);
});

test('an interrupted dsh log shows the closers last, marked synthetic, in the rows and in the context; the file is not written', async () => {
  const d = tmp();
  const p = join(d, 'session.jsonl');
  // the tool-outcome-unknown fixture up to its recorded tool/call (seq 4): the turn is still open
  const lines = dshFixtureText('dsh-interrupted-tool-outcome-unknown.session.jsonl').split('\n');
  writeFileSync(p, lines.slice(0, 6).join('\n') + '\n');
  old(p);
  const before = readFileSync(p);
  const m = await openSessionModel(p);
  const s = await m.summary();
  assert.equal(s.state?.kind, 'interrupted');
  assert.equal(s.entryCount, 5 + 3, 'five stored events, then tool/result, step/end, turn/end');
  const rows = (await allRows(m, { filter: 'all' })).rows;
  assert.deepEqual(
    rows.filter((r) => r.label === 'synthetic').map((r) => r.entryId),
    ['e5', 'e6', 'e7'],
  );
  const msgs = await m.messages(null, 0, 10);
  const last = msgs[msgs.length - 1]!;
  assert.equal(last.role, 'toolResult');
  assert.ok(last.badges.includes('synthetic'));
  assert.equal(last.toolResult?.isError, true);
  assert.deepEqual(readFileSync(p), before, 'viewing never writes');
});

test('raw, zstd and SQLite forms of a log give the same rows and the same context', async () => {
  const d = tmp();
  const text = dshFixtureText('dsh-packed-chunks.session.jsonl');
  const raw = join(d, 'a.jsonl');
  writeFileSync(raw, text);
  const zstd = join(d, 'b.jsonl.zstd');
  writeFileSync(zstd, zstdLogOf(text, 3));
  const db = join(d, 'c.db');
  const session = storeSessionOf(text, 'only');
  await writeDshStore(db, [session]);
  for (const f of [raw, zstd, db]) old(f);
  const shape = async (m: SessionModel) => ({ rows: (await allRows(m, { filter: 'all' })).rows.map((r) => [r.entryId, r.kind, r.text]), ctx: await m.messages(null, 0, 20) });
  const a = await shape(await openSessionModel(raw));
  assert.deepEqual(await shape(await openSessionModel(zstd)), a);
  const fromDb = await openSessionModel(db, { session: 'only' });
  assert.equal((await fromDb.summary()).encoding, 'sqlite');
  assert.deepEqual((await shape(fromDb)).ctx.map((x) => [x.role, x.blocks.length]), a.ctx.map((x) => [x.role, x.blocks.length]));
});

test('a dsh log that grows is followed: a raw log gains lines, a zstd log a new frame; the refreshed model shows the new events and messages (issue 10: live)', async () => {
  const d = tmp();
  const text = dshFixtureText('dsh-packed-chunks.session.jsonl');
  const lines = text.trimEnd().split('\n');
  // The first half of the log (whole lines), then the rest appended as the agent would.
  const cut = Math.ceil(lines.length / 2);
  const head = lines.slice(0, cut).join('\n') + '\n';
  const tail = lines.slice(cut).join('\n') + '\n';
  const full = await openSessionModel(dshFixture('dsh-packed-chunks.session.jsonl'));
  const want = await full.summary();
  const wantCtx = await full.context(null);

  const raw = join(d, 'session.jsonl');
  writeFileSync(raw, head);
  const zstd = join(d, 'session.jsonl.zstd');
  writeFileSync(zstd, zstdLogOf(head));
  for (const [file, grow] of [
    [raw, () => writeFileSync(raw, tail, { flag: 'a' })],
    [zstd, () => writeFileSync(zstd, zstdLogOf(tail).subarray(0), { flag: 'a' })],
  ] as const) {
    const m = await openSessionModel(file);
    const before = await m.summary();
    assert.ok(before.entryCount < want.entryCount, file);
    assert.equal((await m.refresh()).kind, 'unchanged');
    grow();
    const r = await m.refresh();
    assert.notEqual(r.kind, 'unchanged', file);
    assert.equal(r.summary.entryCount, want.entryCount, file);
    assert.equal(r.summary.state?.kind, want.state?.kind, file);
    assert.equal((await m.context(null)).messageCount, wantCtx.messageCount, file);
  }
});
