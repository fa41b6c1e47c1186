// The Codex SessionModel (src/core/engine/codex/codexModel.ts) over the real fixtures (the README's
// facts) and over synthetic rollouts for the shapes they lack: a compaction shown as for xcsh, a
// rolled-back turn, an unanswered call, an image, a live file, a compressed one, a thread name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodexModel, CODEX_READ_ONLY_REASON } from '../../src/core/engine/codex/codexModel';
import { contextChart } from '../../src/core/engine/contextChart';
import { ContextInfoSchema, MessageViewSchema, SessionSummarySchema, TreeRowSchema } from '../../src/protocol/messages';
import { fixture } from '../helpers/fixtures';
import { zstdFrame } from '../helpers/dshBuild';
import { assistant, call, compacted, envContext, event, item, meta, PNG_DATA_URL, reasoning, rolledBack, rolloutText, tempDir, tokenCount, turnContext, user, userItem, writeRollout } from '../helpers/codexBuild';

const F1 = fixture('codex', 'agentcmd', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl');
const F2 = fixture('codex', 'agentcmd', 'rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl');
const F3 = fixture('codex', 'agent-history', 'session-01.jsonl');
const tree = (m: CodexModel, filter: 'default' | 'no-tools' | 'user-only' | 'labelled-only' | 'all', search = '', leafId: string | null = null) => m.tree({ filter, search, leafId, focusEntryId: null, start: 0, count: 1000 });

test('fixture …20-12-23: the summary — format codex, read-only, 2 turns, 54 API items, 16 calls, usage from the last token_count', async () => {
  const m = await CodexModel.open(F1);
  const s = await m.summary();
  // the protocol's schema strips nothing else; only `format` awaits 'codex' in its enum
  assert.equal(SessionSummarySchema.safeParse({ ...s, format: 'dsh' }).success, true);
  assert.equal(m.format as string, 'codex');
  assert.equal(s.format as string, 'codex');
  assert.deepEqual(
    { ...s, format: null, filePath: null },
    {
      format: null,
      encoding: 'jsonl',
      state: null,
      fileName: 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl',
      filePath: null,
      title: null,
      firstPrompt: 'When I load the dashboard, I see 4 queries. Are all of these necessary? I would expect "leads" and a query to load the dasbhoard data. but it appears that ther…',
      cwd: '/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2',
      sessionId: '01997ea4-a70d-7da3-8c20-c736db82a7c5',
      version: null,
      currentVersion: 0,
      needsMigration: false,
      readOnlyReason: CODEX_READ_ONLY_REASON,
      created: '2025-09-25T02:12:23.949Z',
      modified: '2025-09-25T02:16:32.870Z',
      sizeBytes: 350_537,
      entryCount: 112,
      leafCount: 2,
      defaultLeafId: 'L112',
      totals: { messages: 54, toolCalls: 16, tokensIn: 149_449 - 120_192, tokensOut: 4808, cacheRead: 120_192, cacheWrite: 0, tokensTotal: 154_257, cost: 0 },
      models: ['gpt-5-codex'],
      diagnosticCount: 0,
      diagnostics: [],
      revision: 1,
    },
  );
});

test('fixture …20-12-23: the context at the default leaf — 54 messages, the not-recorded sentence, effort from turn_context, no compaction', async () => {
  const m = await CodexModel.open(F1);
  const info = await m.context(null);
  assert.equal(ContextInfoSchema.safeParse(info).success, true);
  assert.equal(info.leafId, 'L112');
  assert.equal(info.messageCount, 54);
  assert.equal(info.pathLength, 112);
  assert.equal(info.compaction, null);
  assert.deepEqual(
    { ...info.runtime, modeDataJson: null },
    { thinkingLevel: 'high', models: { default: 'gpt-5-codex' }, mode: 'none', modeDataJson: null, injectedTtsrRules: [], systemPrompt: null, tools: null, modeLabel: 'Collaboration mode:', modeDataLabel: 'Turn settings (turn_context)' },
  );
  // the sentence and the notes the preview shows, as the webview receives them (the protocol keeps them)
  const sent = ContextInfoSchema.parse(info);
  assert.equal(sent.notRecorded, 'messages only — system prompt and tools are not recorded by this agent');
  // unverified (B.4): the log does not say whether the model took the screenshot; the note says it was assumed
  assert.deepEqual(sent.notes, ['Images are shown as sent: the log does not record whether the model took image input (assumed it did; unverified).']);
  const views = await m.messages(null, 0, 500);
  assert.equal(views.length, 54);
  for (const v of views) assert.equal(MessageViewSchema.safeParse(v).success, true, v.entryId);
  const roles: Record<string, number> = {};
  for (const v of views) roles[v.role] = (roles[v.role] ?? 0) + 1;
  // 17 reasoning + 16 calls + 2 messages are the assistant's
  assert.deepEqual(roles, { custom: 1, user: 2, assistant: 35, toolResult: 16 });
  assert.deepEqual(
    views.slice(0, 5).map((v) => [v.entryId, v.role, v.subtitle, v.badges]),
    [
      ['L2', 'custom', 'context · environment_context', ['injected context']],
      ['L3', 'user', null, []],
      ['L8', 'assistant', 'gpt-5-codex', []],
      ['L9', 'assistant', 'gpt-5-codex', []],
      ['L10', 'toolResult', 'shell', ['error', 'exit 2']],
    ],
  );
  // the call knows its result and the result its call
  const callBlock = views[3]!.blocks[0]!;
  assert.equal(callBlock.kind, 'toolCall');
  assert.deepEqual(callBlock.kind === 'toolCall' ? [callBlock.name, callBlock.resultIndex, callBlock.resultIsError] : null, ['shell', 4, true]);
  assert.deepEqual(views[4]!.toolResult, { callId: 'call_WmlLLopV6YokTw8Y639cqY5h', toolName: 'shell', isError: true, callIndex: 3 });
  // 0.40's JSON-in-a-string output shows its `output` text
  assert.equal(views[4]!.blocks[0]!.kind === 'text' ? views[4]!.blocks[0]!.text.slice(0, 50) : null, "bash: -c: line 0: syntax error near unexpected tok");
  // reasoning: the summary as thinking
  assert.deepEqual(views[2]!.blocks, [{ kind: 'thinking', text: '**Analyzing dashboard query necessity**', redacted: false }]);
  // usage sits on the last item of each of the 18 responses (token_count before the items in 0.40)
  assert.equal(views.filter((v) => v.usage !== null).length, 18);
  assert.deepEqual(views[3]!.usage, { input: 3587 - 2560, output: 229, cacheRead: 2560, cacheWrite: 0, cost: 0 });
});

test('fixture …20-12-23: the screenshot in the first prompt is an image block served as an inert data URL (unverified: the model\'s image input is not recorded — images are kept, B.4 stripping not applied)', async () => {
  const m = await CodexModel.open(F1);
  const [prompt] = await m.messages(null, 1, 1);
  assert.deepEqual(
    prompt!.blocks.map((b) => b.kind),
    ['markdown', 'image'],
  );
  assert.deepEqual(prompt!.blocks[1], { kind: 'image', entryId: 'L3', blockIndex: 1, mimeType: 'image/png', blobHash: null });
  const img = await m.image('L3', 1);
  assert.equal(img.kind, 'data');
  const stored = (JSON.parse(readFileSync(F1, 'utf8').split('\n')[2]!) as { payload: { content: Array<{ image_url?: string }> } }).payload.content[1]!.image_url!;
  assert.equal(img.kind === 'data' ? img.dataUrl : '', stored);
  assert.deepEqual(await m.image('L3', 0), { kind: 'error', message: 'no image at this place in the entry' });
  assert.deepEqual(await m.image('L5', 0), { kind: 'error', message: 'no image at this place in the entry' });
});

test('fixture …20-12-23: the tree — turns → records under each filter, a search, a non-default leaf', async () => {
  const m = await CodexModel.open(F1);
  const d = await tree(m, 'default');
  assert.deepEqual([d.total, d.hidden, d.selectedIndex, d.leafHidden], [57, 57, 56, false]);
  assert.deepEqual(
    d.rows.slice(0, 5).map((r) => [r.entryId, r.depth, r.kind]),
    [
      ['L1', 0, 'session_init'],
      ['L2', 0, 'custom'],
      ['T3', 0, 'turn'],
      ['L3', 1, 'user'],
      ['L8', 1, 'assistant'],
    ],
  );
  assert.equal(d.rows[2]!.text, 'Turn 1: When I load the dashboard, I see 4 queries. Are all of these necessary? I would expect "leads" and a query to load the dasbhoard data. but …');
  for (const r of d.rows) assert.equal(TreeRowSchema.safeParse(r).success, true);
  assert.deepEqual(
    (await tree(m, 'user-only')).rows.map((r) => r.entryId),
    ['T3', 'L3', 'T105', 'L105'],
  );
  assert.deepEqual([(await tree(m, 'no-tools')).total, (await tree(m, 'all')).total, (await tree(m, 'all')).hidden, (await tree(m, 'labelled-only')).total], [8, 114, 0, 0]);
  assert.deepEqual(
    (await tree(m, 'default', 'useTeamLeads')).rows.map((r) => r.entryId),
    ['T3', 'L68', 'L92', 'L96', 'L97', 'L98', 'L104'],
  );
  // the context at the first call: the replay up to line 9
  const at = await m.context('L9');
  assert.deepEqual([at.leafId, at.messageCount, at.pathLength, at.leaf?.kind], ['L9', 5, 9, 'toolCall']);
  const atTree = await tree(m, 'default', '', 'L9');
  assert.deepEqual(atTree.rows.filter((r) => r.onPath).map((r) => r.entryId), ['T3', 'L9']);
  // the synthetic "aborted" output: at the call, before its output line, the CLI would send one
  const views = await m.messages('L9', 0, 10);
  assert.deepEqual(
    views.map((v) => [v.entryId, v.role]),
    [
      ['L2', 'custom'],
      ['L3', 'user'],
      ['L8', 'assistant'],
      ['L9', 'assistant'],
      ['L9~aborted', 'toolResult'],
    ],
  );
  assert.deepEqual(views[4]!.badges, ['synthetic: supplied by the CLI, not in the file']);
  assert.deepEqual(await m.locate(null, 'L3'), { messageIndex: 1, cutIndex: null });
  assert.deepEqual(await m.locate(null, 'T105'), { messageIndex: 51, cutIndex: null });
  assert.deepEqual(await m.locate(null, 'L5'), { messageIndex: null, cutIndex: null });
  assert.equal(await m.has('T105'), true);
  assert.equal(await m.has('L113'), false);
  assert.deepEqual(await m.rawEntry('L5'), { line: 5, type: 'turn_context', timestamp: '2025-09-25T02:12:23.966Z', payload: { cwd: '/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2', approval_policy: 'never', sandbox_policy: { mode: 'danger-full-access' }, model: 'gpt-5-codex', effort: 'high', summary: 'auto' } });
});

test('fixture …20-12-23: the chart — 18 requests, their context sizes from last_token_usage, totals per model', async () => {
  const m = await CodexModel.open(F1);
  const chart = await m.chart(null);
  const lines = readFileSync(F1, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; payload: { type?: string; info?: { last_token_usage: { input_tokens: number; output_tokens: number } } } });
  const lasts = lines.filter((l) => l.type === 'event_msg' && l.payload.type === 'token_count').map((l) => l.payload.info!.last_token_usage);
  assert.equal(lasts.length, 18);
  assert.deepEqual(
    chart.points.map((p) => p.tokens),
    lasts.map((u) => u.input_tokens),
  );
  assert.equal(chart.points[0]!.entryId, 'L9');
  assert.deepEqual(chart.totals, [{ model: 'gpt-5-codex', input: 149_449, output: 4808, cost: 0 }]);
  // the model's own chart (usage rows only) is the generic one read from every message window
  assert.deepEqual(chart, await contextChart(m, null));
  assert.deepEqual(await m.chart('L50'), await contextChart(m, 'L50'));
});

test('fixture …15-12-14: 104 messages — 33 reasoning rows though only 32 agent_reasoning events (README: previews count response items)', async () => {
  const m = await CodexModel.open(F2);
  const views = await m.messages(null, 0, 500);
  assert.equal(views.length, 104);
  assert.equal(views.filter((v) => v.blocks[0]?.kind === 'thinking').length, 33);
  assert.equal((await tree(m, 'all', 'agent_reasoning')).rows.filter((r) => r.kind === 'event:agent_reasoning').length, 32);
  const s = await m.summary();
  assert.deepEqual([s.totals.messages, s.totals.toolCalls, s.leafCount, s.entryCount], [104, 34, 1, 209]);
  assert.equal((await m.chart(null)).points.length, 35);
});

test('fixture session-01 (0.135.0): base instructions are the system prompt; the turn opens at task_started; phase badge; complete state', async () => {
  const m = await CodexModel.open(F3);
  const s = await m.summary();
  assert.deepEqual([s.state, s.leafCount, s.defaultLeafId, s.models, s.totals.messages, s.totals.toolCalls], [null, 1, 'L11', ['openai/gpt-5.5'], 4, 0]);
  const info = await m.context(null);
  assert.equal(info.runtime.systemPrompt, '[REDACTED_BASE_INSTRUCTIONS]');
  assert.deepEqual([info.runtime.thinkingLevel, info.runtime.mode], ['default', 'default']);
  assert.equal((info as { notRecorded?: string }).notRecorded, 'messages and system prompt only — tools are not recorded by this agent');
  const views = await m.messages(null, 0, 10);
  assert.deepEqual(
    views.map((v) => [v.entryId, v.role, v.badges]),
    [
      ['L3', 'developer', []],
      ['L4', 'custom', ['injected context']],
      ['L6', 'user', []],
      ['L9', 'assistant', ['final_answer']],
    ],
  );
  const d = await tree(m, 'default');
  assert.deepEqual(
    d.rows.map((r) => [r.entryId, r.depth]),
    [
      ['L1', 0],
      ['T2', 0],
      ['L3', 1],
      ['L4', 1],
      ['L6', 1],
      ['L9', 1],
    ],
  );
  // the default leaf (task_complete) is hidden by the default filter: its turn's row is selected
  assert.deepEqual([d.selectedIndex, d.leafHidden], [1, true]);
});

test('a compaction shown as for xcsh: summary at its place, the replaced history as cut entries, items after it (A.6, B.2)', async () => {
  const dir = tempDir();
  const p = writeRollout(dir, 'rollout-compacted.jsonl', [
    meta(), // 1
    envContext(), // 2
    user('u1'), // 3
    turnContext(), // 4
    tokenCount(5000, 0, 100), // 5
    reasoning('thinking'), // 6
    assistant('a1'), // 7
    user('u2'), // 8
    assistant('a2'), // 9
    compacted('', [userItem('u1'), userItem('u2'), { type: 'compaction', encrypted_content: 'E'.repeat(4000) }]), // 10
    event('context_compacted'), // 11
    user('u3'), // 12
    assistant('a3'), // 13
    tokenCount(3000, 1000, 50, { input_tokens: 8000, cached_input_tokens: 1000, output_tokens: 150, reasoning_output_tokens: 0, total_tokens: 8150 }), // 14
  ]);
  const m = await CodexModel.open(p);
  const info = await m.context(null);
  assert.deepEqual(info.compaction, { id: 'L10', timestamp: (await m.rawEntry('L10') as { timestamp: string }).timestamp, tokensBefore: 5000, firstKeptEntryId: null, keptFound: false, cutCount: 6, keptEnd: 3, summaryIndex: 2 });
  const views = await m.messages(null, 0, 10);
  assert.deepEqual(
    views.map((v) => [v.entryId, v.segment, v.role]),
    [
      ['L10.0', 'kept', 'user'],
      ['L10.1', 'kept', 'user'],
      ['L10.2', 'summary', 'compactionSummary'],
      ['L12', 'after', 'user'],
      ['L13', 'after', 'assistant'],
    ],
  );
  assert.deepEqual(views[2]!.blocks[0]!.kind === 'compaction' ? views[2]!.blocks[0]!.summary : null, '(server-side compaction summary: 4000 characters, encrypted — not readable)');
  assert.deepEqual(views[2]!.badges, ['compaction summary']);
  // the encrypted summary costs the model what the CLI estimates: (¾·4000 − 650) / 4
  assert.equal(views[2]!.tokensEst, 588);
  const cut = await m.cutEntries(null, 0, 10);
  assert.deepEqual(
    cut.map((v) => [v.entryId, v.segment]),
    [
      ['L2', 'cut'],
      ['L3', 'cut'],
      ['L6', 'cut'],
      ['L7', 'cut'],
      ['L8', 'cut'],
      ['L9', 'cut'],
    ],
  );
  assert.deepEqual(await m.locate(null, 'L7'), { messageIndex: null, cutIndex: 3 });
  // the chart reads the cut entries too: the one response with usage came before the compaction
  const chart = await m.chart(null);
  assert.deepEqual(chart.points, [
    { tokens: 5000, messageIndex: null, entryId: 'L7', afterCompaction: false },
    { tokens: 3000, messageIndex: 4, entryId: 'L13', afterCompaction: true },
  ]);
  assert.deepEqual(chart, await contextChart(m, null));
  // before the compaction there is none
  assert.equal((await m.context('L9')).compaction, null);
  assert.equal((await m.context('L9')).messageCount, 6);
  assert.deepEqual(await m.rawEntry('L10.2'), { type: 'compaction', encrypted_content: 'E'.repeat(4000) });
});

test('a rolled-back turn (A.8, B.2): its rows are labelled, the context after the rollback no longer holds it; an aborted turn sets the state', async () => {
  const dir = tempDir();
  const p = writeRollout(dir, 'rollout-rollback.jsonl', [
    meta(), // 1
    user('keep me'), // 2
    assistant('kept'), // 3
    user('undo me'), // 4
    call('c1'), // 5
    rolledBack(1), // 6
    user('instead'), // 7
    call('c2'), // 8
    event('turn_aborted', { reason: 'interrupted' }), // 9
  ]);
  const m = await CodexModel.open(p);
  const rows = (await tree(m, 'default')).rows.map((r) => [r.entryId, r.label]);
  assert.deepEqual(rows, [
    ['L1', null],
    ['T2', null],
    ['L2', null],
    ['L3', null],
    ['T4', 'rolled back'],
    ['L4', 'rolled back'],
    ['L5', 'rolled back'],
    ['L6', null],
    ['T7', null],
    ['L7', null],
    ['L8', null],
    ['L9', null],
  ]);
  const views = await m.messages(null, 0, 10);
  assert.deepEqual(
    views.map((v) => v.entryId),
    ['L2', 'L3', 'L7', 'L8', 'L8~aborted'],
  );
  // at the rolled-back call itself, the context still holds it
  assert.deepEqual(
    (await m.messages('L5', 0, 10)).map((v) => v.entryId),
    ['L2', 'L3', 'L4', 'L5', 'L5~aborted'],
  );
  const s = await m.summary();
  assert.deepEqual(s.state, { kind: 'interrupted', label: 'interrupted', description: 'The last turn was interrupted (interrupted).' });
  assert.equal(s.leafCount, 3);
});

test('refresh: unchanged, appended (only the new lines read), reloaded (rewritten); an open turn is the state', async () => {
  const dir = tempDir();
  const first = [meta(), event('task_started', { turn_id: 't1' }), user('one'), assistant('a')];
  const p = writeRollout(dir, 'rollout-live.jsonl', first);
  const m = await CodexModel.open(p);
  assert.equal((await m.summary()).state?.kind, 'open');
  assert.equal((await m.refresh()).kind, 'unchanged');
  writeFileSync(p, rolloutText([...first, event('task_complete', { turn_id: 't1' }), user('two')]));
  const grown = await m.refresh();
  assert.equal(grown.kind, 'appended');
  assert.deepEqual([grown.summary.entryCount, grown.summary.revision, grown.summary.state, grown.summary.defaultLeafId], [6, 2, null, 'L6']);
  assert.equal((await m.context(null)).messageCount, 3);
  writeFileSync(p, rolloutText([meta({ id: 'other' }), user('x')]));
  const again = await m.refresh();
  assert.equal(again.kind, 'reloaded');
  assert.deepEqual([again.summary.sessionId, again.summary.entryCount, again.summary.revision], ['other', 2, 3]);
});

test('a .jsonl.zst rollout opens through the same model (A.1): encoding zstd, the same context as the plain file', async () => {
  const dir = tempDir();
  const p = writeRollout(dir, 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl.zst', zstdFrame(readFileSync(F1), { check: false }));
  const z = await CodexModel.open(p);
  const plain = await CodexModel.open(F1);
  const s = await z.summary();
  assert.equal(s.encoding, 'zstd');
  assert.deepEqual([s.entryCount, s.totals.messages, s.sizeBytes], [112, 54, readFileSync(p).length]);
  assert.deepEqual(await z.messages(null, 0, 60), await plain.messages(null, 0, 60));
  // a compressed file is read again whole on change
  writeFileSync(p, zstdFrame(rolloutText([meta(), user('new')])));
  assert.equal((await z.refresh()).kind, 'reloaded');
});

test('the title comes from session_index.jsonl of the Codex home (A.1: the last entry per id wins)', async () => {
  const home = tempDir('loom-codex-home-');
  const day = join(home, 'sessions', '2026', '01', '02');
  mkdirSync(day, { recursive: true });
  const p = writeRollout(day, 'rollout-2026-01-02T03-04-05-thread-1.jsonl', [meta({ id: 'thread-1' }), user('hello')]);
  writeFileSync(join(home, 'session_index.jsonl'), ['{"id":"thread-1","thread_name":"first name","updated_at":"2026-01-02T03:05:00Z"}', '{"id":"thread-9","thread_name":"other"}', '{"id":"thread-1","thread_name":"renamed","updated_at":"2026-01-02T04:00:00Z"}', ''].join('\n'));
  assert.equal((await (await CodexModel.open(p)).summary()).title, 'renamed');
  assert.equal((await (await CodexModel.open(p, { codexHome: null })).summary()).title, null);
});

test('images: a data URL that is not an inert image type, or a remote URL, is refused with a sentence', async () => {
  const dir = tempDir();
  const p = writeRollout(dir, 'rollout-img.jsonl', [
    meta(),
    item({ type: 'message', role: 'user', content: [{ type: 'input_image', image_url: PNG_DATA_URL }, { type: 'input_image', image_url: 'data:image/svg+xml;base64,PHN2Zz4=' }, { type: 'input_image', image_url: 'https://example.com/a.png' }] }),
    call('v'),
    item({ type: 'function_call_output', call_id: 'v', output: [{ type: 'input_image', image_url: PNG_DATA_URL }] }),
  ]);
  const m = await CodexModel.open(p);
  assert.deepEqual(await m.image('L2', 0), { kind: 'data', dataUrl: PNG_DATA_URL });
  assert.deepEqual(await m.image('L2', 1), { kind: 'error', message: 'not shown: image/svg+xml images are not displayed' });
  assert.deepEqual(await m.image('L2', 2), { kind: 'error', message: 'image https://example.com/a.png not shown: only images stored in the session are displayed' });
  assert.deepEqual(await m.image('L4', 0), { kind: 'data', dataUrl: PNG_DATA_URL });
  const [, , result] = await m.messages(null, 0, 3);
  assert.deepEqual(result!.blocks, [{ kind: 'image', entryId: 'L4', blockIndex: 0, mimeType: 'image/png', blobHash: null }]);
});

test('the preview notes of a context: a rolled-back turn, a call the CLI answers "aborted", an output without its call, a compaction rebuilt without replacement_history (its recipe unverified)', async () => {
  const dir = tempDir();
  const plain = writeRollout(dir, 'plain.jsonl', [meta(), envContext(), user('u1'), assistant('a1')]);
  assert.deepEqual((await (await CodexModel.open(plain)).context(null)).notes, [], 'nothing to say about a plain context');
  const file = writeRollout(dir, 'noted.jsonl', [
    meta(),
    turnContext(),
    envContext(),
    user('u1'),
    call('c1'), // never answered
    item({ type: 'function_call_output', call_id: 'ghost', output: 'no call' }),
    assistant('a1'),
    compacted('the summary'), // no replacement_history: rebuilt (B.3)
    user('u2'),
    assistant('a2'),
    user('u3'),
    assistant('a3'),
    rolledBack(1),
  ]);
  const notes = ContextInfoSchema.parse(await (await CodexModel.open(file)).context(null)).notes;
  assert.deepEqual(notes, [
    '2 items were rolled back (thread_rolled_back) and are not sent.',
    'The compaction recorded no replacement history: it is rebuilt as the CLI of this version would, in its structure, not its exact wording (which recipe a version used is unverified).',
  ]);
  // before the compaction: the call without output and the output without call
  const early = ContextInfoSchema.parse(await (await CodexModel.open(file)).context('L7')).notes;
  assert.deepEqual(early, ['1 tool call has no output in the file: the CLI sends "aborted" for it.', '1 tool output is not sent: its call is not in the history.']);
});
