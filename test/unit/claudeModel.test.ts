// The Claude Code SessionModel (src/core/engine/claude/claudeModel.ts) over the real fixtures and
// synthetic transcripts: summary, tree rows under the filters, the context preview (notes, the
// compaction boundary, the cut band), message windows (xcsh rendering: tool calls paired with
// their result rows), images in user text and in tool results, locate, rawEntry, refresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ClaudeModel } from '../../src/core/engine/claude/claudeModel';
import { contextChart } from '../../src/core/engine/contextChart';
import type { ClaudeContextInfo } from '../../src/core/engine/claude/claudeContext';
import { ContextInfoSchema, type MessageView, type TreeFilter } from '../../src/protocol/messages';
import { Build, disagreeingLeaves, image, text, toolUse, writeLines, type Rec } from '../helpers/claudeBuild';
import { fixture } from '../helpers/fixtures';

const SPOTTER = fixture('claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const BOUNDARY = 'd46d6800-2f43-4360-ba84-c1de9c1ecbae';
const SUMMARY = '58436800-0a29-451b-a8f5-3a0c59957945';
const LEAF = 'd3231929-5c7c-41e7-9d4d-ef12e6c9b880';

let spotter: Promise<ClaudeModel> | undefined;
const openSpotter = (): Promise<ClaudeModel> => (spotter ??= ClaudeModel.open(SPOTTER));
const tree = (m: ClaudeModel, filter: TreeFilter = 'default', search = '', leafId: string | null = null, focusEntryId: string | null = null) => m.tree({ filter, search, leafId, focusEntryId, start: 0, count: 1000 });
const open = (lines: readonly (Rec | string)[]): Promise<ClaudeModel> => ClaudeModel.open(writeLines(lines));

test('summary of spotter/258c7280…: read-only, session facts from the records, usage counted once per API response (A.6), one branch', async () => {
  const m = await openSpotter();
  const s = await m.summary();
  assert.equal(s.format as string, 'claude');
  assert.equal(s.encoding, 'jsonl');
  assert.match(s.readOnlyReason ?? '', /never writes Claude Code files/);
  assert.equal(s.sessionId, '258c7280-ae70-4798-800f-63464d01a85d');
  assert.equal(s.cwd, '/home/USER/projects/spotter-worktrees/spotter-gqc');
  assert.equal(s.firstPrompt, 'Implement spotter-gqc');
  assert.equal(s.title, null);
  assert.equal(s.defaultLeafId, LEAF);
  assert.equal(s.leafCount, 1);
  assert.equal(s.entryCount, 1863);
  assert.equal(s.created, '2026-02-11T20:31:53.375Z');
  assert.equal(s.modified, '2026-02-11T21:46:25.932Z');
  assert.deepEqual(s.totals, { messages: 344, toolCalls: 186, tokensIn: 180, tokensOut: 38899, cacheRead: 14771617, cacheWrite: 349474, cost: 0 });
  assert.deepEqual(s.models, ['claude-opus-4-6']);
  assert.equal(s.diagnosticCount, 0);
  assert.equal(await m.defaultLeaf(), LEAF);
});

test('context at the default leaf of spotter/258c7280…: the boundary cuts, the summary comes first, notes say messages only and what the older CLI loses (B.4, B.6)', async () => {
  const m = await openSpotter();
  const info = (await m.context(null)) as ClaudeContextInfo;
  assert.equal(info.leafId, LEAF);
  assert.equal(info.apiMessageCount, 100);
  assert.equal(info.messageCount, 115);
  assert.deepEqual(info.compaction, { id: BOUNDARY, timestamp: '2026-02-11T21:18:41.543Z', tokensBefore: 167094, firstKeptEntryId: null, keptFound: false, cutCount: 229, keptEnd: 1, summaryIndex: 0 });
  assert.equal(info.pathLength, 326 + 1 + 168);
  assert.deepEqual(info.runtime, { thinkingLevel: 'max 31999 tokens', models: { default: 'claude-opus-4-6' }, mode: 'bypassPermissions', modeDataJson: null, injectedTtsrRules: [], modeLabel: 'Permission mode:' });
  assert.equal(info.notRecorded, 'messages only — system prompt and tools are not recorded by this agent');
  // what the webview receives: the protocol keeps the sentence, the notes and the API message count
  const sent = ContextInfoSchema.parse(info);
  assert.deepEqual([sent.notRecorded, sent.notes, sent.apiMessageCount, sent.runtime.modeLabel], [info.notRecorded, info.notes, 100, 'Permission mode:']);
  assert.deepEqual(info.notes, [
    'The model receives 100 messages (split lines merged, consecutive user records joined).',
    '9 records off the walked line are recovered by the parallel tool-result rule of Claude Code 2.1.112; Claude Code 2.1.39 and the Agent SDK lose them.',
    'Without it, 5 tool calls get "[Tool result missing due to internal error]".',
    'Recorded lines not sent: 3 whitespace-only.',
  ]);
  assert.equal(info.leaf?.kind, 'assistant');
});

test('messages of spotter/258c7280…: the compaction summary row first (transcript only), every tool call paired with its result row both ways, recovered rows marked, the Task call linked to its subagent', async () => {
  const m = await openSpotter();
  const rows = await m.messages(null, 0, 500);
  assert.equal(rows.length, 115);
  const first = rows[0]!;
  assert.equal(first.entryId, SUMMARY);
  assert.equal(first.role, 'compactionSummary');
  assert.equal(first.segment, 'summary');
  assert.equal(first.hiddenFromUser, true);
  assert.deepEqual(first.badges, ['compact summary', 'transcript only']);
  const block = first.blocks[0]!;
  assert.equal(block.kind, 'compaction');
  assert.ok(block.kind === 'compaction' && block.summary.startsWith('This session is being continued from a previous conversation') && block.tokensBefore === 167094);
  assert.ok(rows.slice(1).every((r) => r.segment === 'after'));
  assert.deepEqual(rows.map((r) => r.index), rows.map((_, i) => i));
  let calls = 0;
  for (const r of rows) {
    for (const b of r.blocks) {
      if (b.kind !== 'toolCall') continue;
      calls++;
      assert.notEqual(b.resultIndex, null, `call ${b.callId} has a result row`);
      const res = rows[b.resultIndex!]!;
      assert.equal(res.role, 'toolResult');
      assert.equal(res.toolResult?.callId, b.callId);
      assert.equal(res.toolResult?.callIndex, r.index);
    }
  }
  assert.equal(calls, rows.filter((r) => r.role === 'toolResult').length);
  assert.equal(rows.filter((r) => r.badges.includes('recovered')).length, 8);
  assert.deepEqual(
    rows.filter((r) => r.badges.some((b) => b.startsWith('subagent'))).map((r) => [r.index, r.badges]),
    [[44, ['subagent a881341', '2 lines']]],
  );
  // the Task call names its subagent's transcript (2.1.x: <session>/subagents/agent-<id>.jsonl), which the editor opens
  const linked = rows.flatMap((r) => r.blocks.flatMap((b) => (b.kind === 'toolCall' && b.session ? [[r.index, b.session.label, b.session.path]] : [])));
  assert.deepEqual(linked, [[44, 'a881341', join(dirname(SPOTTER), '258c7280-ae70-4798-800f-63464d01a85d', 'subagents', 'agent-a881341.jsonl')]]);
  // usage per API response on its assistant row (the chart's input)
  const last = rows[rows.length - 1]!;
  assert.equal(last.entryId, LEAF);
  assert.deepEqual(last.usage, { input: 3, output: 85, cacheRead: 77272, cacheWrite: 59, cost: 0 });
  // a window is a window
  assert.deepEqual((await m.messages(null, 110, 3)).map((r) => r.index), [110, 111, 112]);
  assert.deepEqual(await m.messages(null, 500, 10), []);
});

test('cut band of spotter/258c7280…: the records before the boundary on the logical path, as the messages they were, marked cut; the chart reads them first', async () => {
  const m = await openSpotter();
  const cut = await m.cutEntries(null, 0, 500);
  assert.equal(cut.length, 229);
  assert.ok(cut.every((r) => r.segment === 'cut'));
  assert.equal(cut[0]!.entryId, '1a2252ee-fde8-4a8f-a103-4028c39c47ce');
  assert.equal(cut[cut.length - 1]!.entryId, '7c642069-996d-4ae0-a61c-554b35d36fb6');
  const chart = await m.chart(null);
  assert.equal(chart.points.filter((p) => p.messageIndex === null).length, 102);
  assert.equal(chart.points.length, 152);
  assert.equal(chart.points.filter((p) => p.afterCompaction).length, 1);
  assert.deepEqual(chart.totals, [{ model: 'claude-opus-4-6', input: 15121271, output: 38899, cost: 0 }]);
  // computed from the facts, it equals the chart any model gives from its message windows
  assert.deepEqual(chart, await contextChart(m, null));
});

test('tree of spotter/258c7280…: the default filter shows one line without forks (parallel results, hooks and the compaction are no branches), the boundary right under its logical parent', async () => {
  const m = await openSpotter();
  const t = await tree(m, 'default', '', null, BOUNDARY);
  assert.equal(t.total, 464);
  assert.equal(t.hidden, 1399);
  assert.equal(t.rows.filter((r) => r.forks).length, 0);
  const b = t.rows.findIndex((r) => r.entryId === BOUNDARY);
  assert.equal(t.focusIndex, b);
  assert.equal(t.rows[b - 1]!.entryId, '7c642069-996d-4ae0-a61c-554b35d36fb6');
  assert.deepEqual([t.rows[b]!.kind, t.rows[b]!.text], ['compaction', 'compacted (auto, 167,094 tokens before)']);
  assert.equal(t.rows[b + 1]!.entryId, SUMMARY);
  assert.equal(t.selectedIndex, 463);
  assert.deepEqual(t.rows.filter((r) => r.isLeaf).map((r) => r.entryId), [LEAF]);
  assert.deepEqual(t.rows.filter((r) => r.isDefaultLeaf).map((r) => r.entryId), [LEAF]);
  assert.equal(t.rows.filter((r) => r.onPath).length, 464);
  const all = await tree(m, 'all');
  assert.equal(all.total, 1863);
  assert.equal(all.hidden, 0);
  // a search reads the bodies: AND of the words, case-insensitive
  const s = await tree(m, 'default', 'Heartbeat TMUX');
  assert.equal(s.total, 8);
});

test('locate in spotter/258c7280…: the boundary locates to the summary, a record before it to the cut band, an unknown id nowhere', async () => {
  const m = await openSpotter();
  assert.deepEqual(await m.locate(null, BOUNDARY), { messageIndex: 0, cutIndex: null });
  assert.deepEqual(await m.locate(null, '7c642069-996d-4ae0-a61c-554b35d36fb6'), { messageIndex: null, cutIndex: 228 });
  assert.deepEqual(await m.locate(null, LEAF), { messageIndex: 114, cutIndex: null });
  assert.deepEqual(await m.locate(null, 'not-a-uuid'), { messageIndex: null, cutIndex: null });
  // the last line is a system/stop_hook_summary after the leaf: on no path of the default leaf
  assert.deepEqual(await m.locate(null, 'e48bcdbd-3567-43c5-978d-0568187510b7'), { messageIndex: null, cutIndex: null });
});

test('has / rawEntry: chain records by uuid, side records as line:<n>, bodies read back by byte range as written', async () => {
  const m = await openSpotter();
  assert.equal(await m.has(LEAF), true);
  assert.equal(await m.has('line:1'), true);
  assert.equal(await m.has('line:5'), false, 'line 5 is a chain record: known by its uuid');
  assert.equal(await m.has('nope'), false);
  const raw = (await m.rawEntry(BOUNDARY)) as Record<string, unknown>;
  assert.equal(raw.subtype, 'compact_boundary');
  assert.equal(raw.logicalParentUuid, '7c642069-996d-4ae0-a61c-554b35d36fb6');
  assert.equal(((await m.rawEntry('line:1')) as Record<string, unknown>).type, 'file-history-snapshot');
  assert.equal(await m.rawEntry('nope'), null);
});

test('image inside a tool_result (agentcmd/full-session-two.jsonl line 16): an image block naming the record and its ordinal; the data URL on request (A.5, C.8)', async () => {
  const m = await ClaudeModel.open(fixture('claude-code', 'agentcmd', 'full-session-two.jsonl'));
  const rows = await m.messages(null, 0, 100);
  const row = rows.find((r) => r.entryId === 'dc8fdf0e-8fbb-4219-bd10-1d2936a7557b')!;
  assert.equal(row.role, 'toolResult');
  assert.deepEqual(row.blocks, [{ kind: 'image', entryId: 'dc8fdf0e-8fbb-4219-bd10-1d2936a7557b', blockIndex: 0, mimeType: 'image/png', blobHash: null }]);
  const img = await m.image('dc8fdf0e-8fbb-4219-bd10-1d2936a7557b', 0);
  assert.equal(img.kind, 'data');
  assert.ok(img.kind === 'data' && img.dataUrl.startsWith('data:image/png;base64,iVBORw0KGgo') && img.dataUrl.length === 'data:image/png;base64,'.length + 18248);
  assert.deepEqual(await m.image('dc8fdf0e-8fbb-4219-bd10-1d2936a7557b', 1), { kind: 'error', message: 'no image at this place in the entry' });
  // the isMeta caveat is the first row: sent, hidden from the user's view, marked
  assert.deepEqual([rows[0]!.role, rows[0]!.hiddenFromUser, rows[0]!.badges], ['user', true, ['meta']]);
  // slash-command text is shown verbatim, not as markdown (its tags would be eaten)
  assert.equal(rows[1]!.blocks[0]!.kind, 'text');
});

test('images pasted into a prompt and inside a tool result of the same record are numbered in content order; an svg is not shown [no real sample of a pasted image]', async () => {
  const b = new Build();
  const m = await open([
    b.user('u1', null, [text('look'), image('AAAA', 'image/jpeg')]),
    b.assistant('a1', 'u1', 'm1', toolUse('t1', 'Read', { file_path: '/x.png' })),
    b.user('r1', 'a1', [{ type: 'tool_result', tool_use_id: 't1', content: [image('BBBB')] }, image('CCCC', 'image/svg+xml')]),
    b.assistant('a2', 'r1', 'm2', text('seen')),
  ]);
  const rows = await m.messages(null, 0, 10);
  assert.deepEqual(rows.map((r) => r.role), ['user', 'assistant', 'toolResult', 'user', 'assistant']);
  const imgs = (r: MessageView) => r.blocks.flatMap((x) => (x.kind === 'image' ? [[x.entryId, x.blockIndex, x.mimeType]] : []));
  assert.deepEqual(imgs(rows[0]!), [['u1', 0, 'image/jpeg']]);
  assert.deepEqual(imgs(rows[2]!), [['r1', 0, 'image/png']]);
  assert.deepEqual(imgs(rows[3]!), [['r1', 1, 'image/svg+xml']]);
  assert.deepEqual(await m.image('u1', 0), { kind: 'data', dataUrl: 'data:image/jpeg;base64,AAAA' });
  assert.deepEqual(await m.image('r1', 0), { kind: 'data', dataUrl: 'data:image/png;base64,BBBB' });
  assert.deepEqual(await m.image('r1', 1), { kind: 'error', message: 'not shown: image/svg+xml images are not displayed' });
});

test('inline sidechains (claude-code-viewer/5c0375b4…): rows under their Task call, labelled, forking; a sidechain leaf\'s context is the subagent\'s own and says so (B.5)', async () => {
  const m = await ClaudeModel.open(fixture('claude-code', 'claude-code-viewer', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'));
  const t = await tree(m);
  const forks = t.rows.filter((r) => r.forks);
  assert.deepEqual(
    forks.map((r) => [r.entryId.slice(0, 8), r.label]),
    [
      ['6340ddef', 'subagent: Check package configuration'],
      ['83e2917c', 'subagent: Analyze current project structure'],
    ],
  );
  const labelled = await tree(m, 'labelled-only');
  assert.equal(labelled.total, 2);
  const info = (await m.context('1af6128d-2c4b-4a33-8e6b-e3e1e1c3e1ef')) as ClaudeContextInfo;
  // (an unknown id: the default leaf's context)
  assert.equal(info.leafId, 'e9bd5ce8-d37d-49a1-868c-8281d0d0a32b');
  const sideLeaf = t.rows.find((r) => r.entryId.startsWith('1af6128d'))!.entryId;
  const side = (await m.context(sideLeaf)) as ClaudeContextInfo;
  assert.equal(side.leafId, sideLeaf);
  assert.ok(side.notes.includes("A subagent's conversation (sidechain): its parent session sees only the Task call's result."));
  const rows = await m.messages(sideLeaf, 0, 100);
  assert.equal(rows[0]!.entryId, '83e2917c-8940-4df6-a5a5-f2514f0d08c5');
  assert.ok(rows.every((r) => r.badges.includes('sidechain')));
  // the Task calls on the main line are marked as starting a subagent
  const main = await m.messages(null, 0, 100);
  assert.equal(main.filter((r) => r.badges.includes('subagent (inline)')).length, 2);
});

test('titles (A.10): a custom title first, then the summary of the default leaf, then external summaries given by the project; a summary of another file\'s leaf never titles this one', async () => {
  const b = new Build();
  const base = [b.user('u1', null, 'q'), b.assistant('a1', 'u1', 'm1', text('a'))];
  assert.equal((await (await open([{ type: 'summary', summary: 'Other session', leafUuid: 'elsewhere' }, ...base])).summary()).title, null);
  assert.equal((await (await open([{ type: 'summary', summary: 'This one', leafUuid: 'a1' }, ...base])).summary()).title, 'This one');
  assert.equal((await (await open([...base, { type: 'custom-title', sessionId: 'x', customTitle: 'Renamed' }, { type: 'summary', summary: 'This one', leafUuid: 'a1' }])).summary()).title, 'Renamed');
  const ext = await ClaudeModel.open(writeLines(base), { summaries: new Map([['a1', 'From another file']]) });
  assert.equal((await ext.summary()).title, 'From another file');
  const t = await tree(ext);
  assert.equal(t.rows.find((r) => r.entryId === 'a1')!.label, 'From another file');
  // the foreign summaries of a file, for the project's index
  const five = await ClaudeModel.open(fixture('claude-code', 'agentcmd', 'full-session-five.jsonl'));
  assert.equal(five.foreignSummaries().length, 16);
  assert.equal((await five.summary()).title, null);
});

test('the leaf rules disagree: the default leaf follows 2.1.112 and the preview says where 2.1.39 and the SDK would resume (A.11 step 4)', async () => {
  const b = new Build();
  const m = await open(disagreeingLeaves(b));
  assert.equal(await m.defaultLeaf(), 'a2');
  const info = (await m.context(null)) as ClaudeContextInfo;
  assert.deepEqual(info.notes.slice(1), [
    'Claude Code 2.1.39 would resume at a2b instead (the newest record by timestamp).',
    'The Agent SDK would read the conversation ending at a2b (the latest leaf in file order).',
  ]);
  const t = await tree(m);
  assert.deepEqual(t.rows.map((r) => [r.entryId, r.forks, r.isLeaf, r.onPath]), [
    ['u1', false, false, true],
    ['a1', false, false, true],
    ['u2b', true, false, false],
    ['a2b', false, true, false],
    ['u2', false, false, true],
    ['a2', false, true, true],
  ]);
  const other = await m.messages('a2b', 0, 10);
  assert.deepEqual(other.map((r) => r.entryId), ['u1', 'a1', 'u2b', 'a2b']);
  assert.equal((await m.summary()).leafCount, 2);
});

test('preserved segment [unverified: no real sample]: the kept rows follow the summary, their usage is not counted, the compaction names the first kept record', async () => {
  const b = new Build();
  const m = await open([
    b.user('u1', null, 'old'),
    b.assistant('a1', 'u1', 'm1', text('old answer')),
    b.user('u2', 'a1', 'kept prompt'),
    b.assistant('a2', 'u2', 'm2', text('kept answer')),
    b.boundary('b', 'a2', { preserved: { headUuid: 'u2', anchorUuid: 's', tailUuid: 'a2' }, preTokens: 5000 }),
    b.summary('s', 'b', 'summary of u1/a1'),
    b.user('u3', 's', 'after'),
    b.assistant('a3', 'u3', 'm3', text('after answer')),
  ]);
  const info = await m.context(null);
  assert.deepEqual(info.compaction, { id: 'b', timestamp: '2026-01-01T00:00:05.000Z', tokensBefore: 5000, firstKeptEntryId: 'u2', keptFound: true, cutCount: 2, keptEnd: 3, summaryIndex: 0 });
  const rows = await m.messages(null, 0, 10);
  assert.deepEqual(rows.map((r) => [r.entryId, r.segment]), [
    ['s', 'summary'],
    ['u2', 'kept'],
    ['a2', 'kept'],
    ['u3', 'after'],
    ['a3', 'after'],
  ]);
  assert.equal(rows[2]!.usage, null);
  assert.deepEqual(rows[4]!.usage, { input: 10, output: 5, cacheRead: 1000, cacheWrite: 100, cost: 0 });
});

test('microcompaction (B.4 step 2) [unverified whether a resume re-applies it]: the results it cleared are shown as recorded and marked, with a note', async () => {
  const b = new Build();
  const m = await open([
    b.user('u1', null, 'q'),
    b.assistant('a1', 'u1', 'm1', toolUse('t1', 'Read', { file_path: '/big' })),
    b.result('r1', 'a1', 't1', 'a very long file'),
    { ...b.system('mc', 'r1', 'microcompact_boundary'), microcompactMetadata: { trigger: 'auto', preTokens: 9000, tokensSaved: 4000, compactedToolIds: ['t1'], clearedAttachmentUUIDs: [] } },
    b.assistant('a2', 'mc', 'm2', text('done')),
  ]);
  const rows = await m.messages(null, 0, 10);
  assert.deepEqual(rows[2]!.badges, ['cleared by microcompaction']);
  const info = (await m.context(null)) as ClaudeContextInfo;
  assert.ok(info.notes.includes('Tool results cleared by microcompaction during the session: 1; they are shown as recorded (whether a resume clears them again is not known).'));
});

test('a missing result is shown as the synthetic row the CLI sends (B.4 step 8), paired with its call', async () => {
  const b = new Build();
  const m = await open([b.user('u1', null, 'q'), b.assistant('c', 'u1', 'm1', toolUse('k1')), b.user('u2', 'u1', 'other branch'), b.result('r', 'u2', 'k1', 'done')]);
  const rows = await m.messages('c', 0, 10);
  assert.deepEqual(rows.map((r) => [r.role, r.entryId, r.badges]), [
    ['user', 'u1', []],
    ['assistant', 'c', []],
    ['toolResult', 'c#missing-result:k1', ['error', 'synthetic']],
  ]);
  assert.equal(rows[2]!.toolResult?.callIndex, 1);
  const call = rows[1]!.blocks[0]!;
  assert.ok(call.kind === 'toolCall' && call.resultIndex === 2 && call.resultIsError);
});

test('refresh: unchanged when the file is; read again when the CLI appends, the new line the default leaf', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-claude-refresh-'));
  const path = join(dir, 'short.jsonl');
  copyFileSync(fixture('claude-code', 'spotter', 'short.jsonl'), path);
  const m = await ClaudeModel.open(path);
  assert.equal((await m.refresh()).kind, 'unchanged');
  const b = new Build();
  appendFileSync(path, JSON.stringify(b.user('zz-new', '40003bdd-2613-4975-83d5-36fb0b6bbc59', 'one more thing')) + '\n');
  const r = await m.refresh();
  assert.equal(r.kind, 'reloaded');
  assert.equal(r.summary.revision, 2);
  assert.equal(r.summary.defaultLeafId, 'zz-new');
  assert.equal((await m.context(null)).revision, 2);
});

test('usage is counted once per API response (A.6): input and cache from any line, output the largest of the running values', async () => {
  const b = new Build();
  const m = await open([b.user('u1', null, 'q'), b.assistant('l1', 'u1', 'm1', text('a'), { output: 5 }), b.assistant('l2', 'l1', 'm1', text('b'), { output: 12 }), b.assistant('l3', 'l2', 'm1', text('c'), { output: 9 })]);
  const rows = await m.messages(null, 0, 10);
  assert.deepEqual(rows.map((r) => [r.role, r.badges]), [
    ['user', []],
    ['assistant', ['3 lines']],
  ]);
  assert.deepEqual(rows[1]!.usage, { input: 10, output: 12, cacheRead: 1000, cacheWrite: 100, cost: 0 });
  const s = await m.summary();
  assert.deepEqual(s.totals, { messages: 2, toolCalls: 0, tokensIn: 10, tokensOut: 12, cacheRead: 1000, cacheWrite: 100, cost: 0 });
  assert.deepEqual(rows[1]!.blocks.map((x) => x.kind === 'markdown' && x.text), ['a', 'b', 'c']);
});

test('a torn last line is a warning in the summary, naming its line; the rest of the session reads', async () => {
  const b = new Build();
  const m = await ClaudeModel.open(writeLines([b.user('u1', null, 'q'), b.assistant('a1', 'u1', 'm1', text('a')), '{"type":"user","uuid":"u2","parentU'], 'session.jsonl', undefined, true));
  const s = await m.summary();
  assert.deepEqual(s.diagnostics.map((d) => [d.line, d.kind, d.severity]), [[3, 'torn-tail', 'warning']]);
  assert.equal(s.defaultLeafId, 'a1');
});

test('attachments (A.9) are meta rows: sent, hidden from the user\'s view, shown with their fields; in the first turn (nothing earlier to follow) one stays where it is [unverified]', async () => {
  const b = new Build();
  const m = await open([b.user('u1', null, 'q'), { ...b.envelope('attachment', 'x1', 'u1'), attachment: { type: 'file', filename: '/a.txt', content: 'file text' } }, b.assistant('a1', 'x1', 'm1', text('ok'))]);
  const rows = await m.messages(null, 0, 10);
  assert.deepEqual(rows.map((r) => [r.role, r.subtitle, r.hiddenFromUser, r.badges]), [
    ['user', null, false, []],
    ['custom', 'attachment · file', true, ['meta']],
    ['assistant', 'claude-test-1', false, []],
  ]);
  assert.equal(((await m.context(null)) as ClaudeContextInfo).apiMessageCount, 2);
});

test('read-only: opening, windows, the tree, a search, images and a refresh leave the transcript\'s bytes as they were', async () => {
  const path = fixture('claude-code', 'agentcmd', 'full-session-two.jsonl');
  const before = createHash('sha256').update(readFileSync(path)).digest('hex');
  const m = await ClaudeModel.open(path);
  await m.messages(null, 0, 100);
  await m.cutEntries(null, 0, 100);
  await tree(m, 'all', 'button');
  await m.image('dc8fdf0e-8fbb-4219-bd10-1d2936a7557b', 0);
  await m.rawEntry('dc8fdf0e-8fbb-4219-bd10-1d2936a7557b');
  await m.refresh();
  m.dispose();
  assert.equal(createHash('sha256').update(readFileSync(path)).digest('hex'), before);
  assert.equal(before, '2031ad96dec96c381b3b69e2f8e0ea1bdfd61c36bd06ca38a0ec12fc52546378', 'the fixture README\'s sha256');
});

test('an open cancelled by its signal rejects with the engine\'s CancelledError (the worker tells it from a failure)', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(ClaudeModel.open(SPOTTER, { signal: ac.signal }), (e: Error) => e.name === 'CancelledError');
});

