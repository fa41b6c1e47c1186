// The replay that rebuilds what the model sees (codex-format.md Part B), rule by rule, over small
// synthetic rollouts: the real fixtures hold no compaction, no rollback, no unanswered call and
// no image-less model, so each of those shapes is built here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ABORTED_OUTPUT,
  attributeUsage,
  contextualTagOf,
  dropLastUserTurns,
  IMAGE_OMITTED_TEXT,
  isUserTurnBoundary,
  normalizeForModel,
  readCodexRolloutBytes,
  replayRollout,
  truncateMiddle,
  UNPOLICED_OUTPUT_FLAG_BYTES,
  type CodexRollout,
  type HistoryItem,
} from '../../src/core/formats/codex/index';
import { displayUsage } from '../../src/core/engine/codex/codexDisplay';
import { assistant, call, compacted, developer, envContext, event, item, meta, output, PNG_DATA_URL, reasoning, rolledBack, rolloutText, tokenCount, turnContext, user, userItem, usage } from '../helpers/codexBuild';

type Obj = Record<string, unknown>;
const read = (lines: Obj[]): Promise<CodexRollout> => readCodexRolloutBytes(Buffer.from(rolloutText(lines)));
const ids = (h: readonly HistoryItem[]): string[] => h.map((x) => x.id);
const textOf = (h: HistoryItem): string => ((h.item.content as Obj[] | undefined) ?? []).map((c) => String(c.text ?? '')).join('');

test('B.2 API items: system messages, compaction_trigger, unknown types and ghost snapshots are not sent; agent_message and compaction are', async () => {
  const r = await read([
    meta(),
    item({ type: 'message', role: 'system', content: [{ type: 'input_text', text: 'sys' }] }),
    user('hi'),
    item({ type: 'compaction_trigger' }),
    item({ type: 'ghost_snapshot', ghost_commit: { id: 'abc' } }),
    item({ type: 'something_new', x: 1 }),
    item({ type: 'agent_message', content: [] }),
    item({ type: 'compaction', encrypted_content: 'enc' }),
    item({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'q' } }),
  ]);
  assert.deepEqual(ids(replayRollout(r.records).history), ['L3', 'L7', 'L8', 'L9']);
});

test('B.2 user-turn boundaries and A.4 contextual messages: the tags, AGENTS.md, case and leading space; agent_message counts', () => {
  assert.equal(contextualTagOf('  <ENVIRONMENT_CONTEXT>\n<cwd>/</cwd>', 'user'), 'ENVIRONMENT_CONTEXT'.toLowerCase());
  assert.equal(contextualTagOf('# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>x</INSTRUCTIONS>', 'user'), 'AGENTS.md');
  assert.equal(contextualTagOf('<user_instructions>be nice</user_instructions>', 'user'), 'user_instructions');
  assert.equal(contextualTagOf('<turn_aborted>', 'user'), 'turn_aborted');
  assert.equal(contextualTagOf('<permissions instructions>…', 'developer'), 'permissions instructions');
  assert.equal(contextualTagOf('<permissions instructions>…', 'user'), null);
  assert.equal(contextualTagOf('please fix <environment_context>', 'user'), null);
  assert.equal(isUserTurnBoundary(userItem('real prompt')), true);
  assert.equal(isUserTurnBoundary(userItem('<environment_context>x</environment_context>')), false);
  assert.equal(isUserTurnBoundary({ type: 'agent_message', content: [] }), true);
  assert.equal(isUserTurnBoundary({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'x' }] }), false);
});

test('B.2 rollback: drop the last n user turns, contextual messages above the cut go too, the initial context always survives', async () => {
  const lines = [
    meta(), // 1
    developer('<permissions instructions>ro</permissions instructions>'), // 2
    envContext(), // 3
    user('u1'), // 4
    assistant('a1'), // 5
    envContext('/other'), // 6 (a context update before turn 2)
    user('u2'), // 7
    assistant('a2'), // 8
    user('u3'), // 9
    assistant('a3'), // 10
  ];
  const dropped: string[][] = [];
  const one = replayRollout((await read([...lines, rolledBack(1)])).records, { onRollback: (d) => dropped.push(ids(d)) });
  assert.deepEqual(ids(one.history), ['L2', 'L3', 'L4', 'L5', 'L6', 'L7', 'L8']);
  assert.deepEqual(dropped, [['L9', 'L10']]);
  // two turns: the cut before u2 moves above the environment update (L6) — never above u1
  assert.deepEqual(ids(replayRollout((await read([...lines, rolledBack(2)])).records).history), ['L2', 'L3', 'L4', 'L5']);
  // more turns than there are: everything from the first user turn goes, the initial context stays
  assert.deepEqual(ids(replayRollout((await read([...lines, rolledBack(9)])).records).history), ['L2', 'L3']);
  // zero: nothing
  assert.deepEqual(ids(replayRollout((await read([...lines, rolledBack(0)])).records).history).length, 9);
  // the lines stay in the file; turns after a rollback append again
  const again = replayRollout((await read([...lines, rolledBack(1), user('u3 again'), assistant('a3 again')])).records);
  assert.deepEqual(ids(again.history).slice(-3), ['L8', 'L12', 'L13']);
  // a rollback before any user turn does nothing
  assert.deepEqual(dropLastUserTurns([], 3), []);
});

test('A.6 remote compaction (replacement_history): the history is replaced verbatim, ghost snapshots stripped; items after it append', async () => {
  const r = await read([
    meta(),
    envContext(), // 2
    user('u1'), // 3
    assistant('a1'), // 4
    user('u2'), // 5
    compacted('', [userItem('u1'), { type: 'ghost_snapshot', ghost_commit: {} }, userItem('u2'), { type: 'compaction', encrypted_content: 'ENC' }]), // 6
    user('u3'), // 7
    assistant('a3'), // 8
  ]);
  const rp = replayRollout(r.records);
  assert.deepEqual(ids(rp.history), ['L6.0', 'L6.2', 'L6.3', 'L7', 'L8']);
  assert.deepEqual(
    rp.history.map((h) => h.origin),
    ['replacement', 'replacement', 'replacement', 'record', 'record'],
  );
  assert.equal(rp.history[2]!.summary, true);
  assert.equal(rp.compaction?.line, 6);
  assert.equal(rp.compaction?.recipe, 'replacement');
  assert.deepEqual(ids(rp.compaction!.cut), ['L2', 'L3', 'L4', 'L5']);
  // before the compaction line, the old history
  assert.deepEqual(ids(replayRollout(r.records, { upto: 4 }).history), ['L2', 'L3', 'L4', 'L5']);
  assert.equal(replayRollout(r.records, { upto: 4 }).compaction, null);
});

test('A.6 local compaction with replacement_history (2026): the summary is the user message carrying compacted.message', async () => {
  const r = await read([meta(), user('u1'), assistant('a1'), compacted('SUMMARY: did things', [envContext().payload as Obj, userItem('u1'), userItem('PREFIX\nSUMMARY: did things')]), user('u2')]);
  const rp = replayRollout(r.records);
  assert.deepEqual(ids(rp.history), ['L4.0', 'L4.1', 'L4.2', 'L5']);
  assert.deepEqual(
    rp.history.map((h) => h.summary === true),
    [false, false, true, false],
  );
});

test('B.3 generation 2 (unverified choice: a truncation_policy in the turn_context before it): initial context + newest user messages within 20,000 tokens + the summary', async () => {
  const big = 'b'.repeat(70_000); // 17,500 tokens
  const r = await read([
    meta({ cli_version: '0.50.0' }),
    developer('<permissions instructions>x</permissions instructions>'), // 2
    envContext(), // 3
    user('first'), // 4
    assistant('a'), // 5
    user('x'.repeat(16_000)), // 6: 4,000 tokens — does not fit after `big`, cut
    user(big), // 7
    user('last'), // 8: 1 token
    turnContext({ truncation_policy: { mode: 'tokens', limit: 10_000 } }), // 9
    compacted('PREFIX\nthe summary'), // 10
    user('next'), // 11
  ]);
  const rp = replayRollout(r.records);
  assert.equal(rp.compaction?.recipe, 'messages');
  assert.deepEqual(ids(rp.history), ['L10.r0', 'L10.r1', 'L10.r2', 'L10.r3', 'L10.r4', 'L10.r5', 'L11']);
  assert.deepEqual(
    rp.history.map((h) => h.origin),
    ['rebuilt', 'rebuilt', 'rebuilt', 'rebuilt', 'rebuilt', 'rebuilt', 'record'],
  );
  // the initial context: copies of the messages before the first real user message
  assert.equal(textOf(rp.history[0]!), '<permissions instructions>x</permissions instructions>');
  assert.ok(textOf(rp.history[1]!).startsWith('<environment_context>'));
  // newest first: `last` (1), `big` (17,500), then 2,499 tokens left for the 4,000-token message: cut, selection ends
  const kept = rp.history.slice(2, 5).map(textOf);
  assert.equal(kept[1], big);
  assert.equal(kept[2], 'last');
  assert.ok(kept[0]!.length < 16_000 && /…\d+ tokens truncated…/.test(kept[0]!), kept[0]!.slice(0, 80));
  assert.ok(kept[0]!.length >= 2_499 * 4 - 4 && kept[0]!.length <= 2_499 * 4 + 40);
  assert.equal(textOf(rp.history[5]!), 'PREFIX\nthe summary');
  assert.equal(rp.history[5]!.summary, true);
  assert.deepEqual(ids(rp.compaction!.cut), ['L2', 'L3', 'L4', 'L5', 'L6', 'L7', 'L8']);
  // an empty summary is "(no summary available)"; a second compaction does not keep the first summary
  const twice = await read([meta(), user('q1'), turnContext({ truncation_policy: { mode: 'bytes', limit: 10_000 } }), compacted(''), user('q2'), compacted('S2')]);
  const h2 = replayRollout(twice.records).history;
  assert.deepEqual(h2.map(textOf), ['q1', 'q2', 'S2']);
  const h1 = replayRollout(twice.records, { upto: 3 }).history;
  assert.deepEqual(h1.map(textOf), ['q1', '(no summary available)']);
});

test('B.3 generation 1 (unverified choice: no truncation_policy recorded): one bridge user message with every user message and the summary, flagged approximate', async () => {
  const r = await read([meta({ cli_version: '0.40.0' }), envContext(), user('alpha'), assistant('x'), user('beta'), turnContext(), compacted('the summary'), user('gamma')]);
  const rp = replayRollout(r.records);
  assert.equal(rp.compaction?.recipe, 'bridge');
  assert.deepEqual(ids(rp.history), ['L7.r0', 'L7.r1', 'L8']);
  const bridge = rp.history[1]!;
  assert.equal(bridge.summary, true);
  assert.equal(bridge.approximate, true);
  assert.equal(textOf(bridge), 'Earlier user messages:\n\nalpha\n\nbeta\n\nSummary:\n\nthe summary');
  const none = replayRollout((await read([meta(), envContext(), compacted('')])).records).history;
  assert.equal(textOf(none[1]!), 'Earlier user messages:\n\n(none)\n\nSummary:\n\n(no summary available)');
  // the joined messages are cut in the middle to 80,000 bytes
  const long = replayRollout((await read([meta(), user('a'.repeat(50_000)), user('z'.repeat(50_000)), compacted('s')])).records).history;
  const t = textOf(long[0]!);
  assert.ok(t.includes('…20002 bytes truncated…'), t.slice(39_980, 40_060));
  assert.ok(t.startsWith('Earlier user messages:\n\naaa') && t.includes('zzz\n\nSummary:\n\ns'));
});

test('B.2 a rollback after a compaction cuts into its new history; cut past the summary, the compaction no longer leads the context', async () => {
  const lines = [meta(), user('u1'), assistant('a1'), user('u2'), compacted('', [userItem('u1'), userItem('u2'), { type: 'compaction', encrypted_content: 'E' }]), user('u3'), assistant('a3')];
  const one = replayRollout((await read([...lines, rolledBack(1)])).records);
  assert.deepEqual(ids(one.history), ['L5.0', 'L5.1', 'L5.2']);
  assert.equal(one.compaction?.line, 5);
  const all = replayRollout((await read([...lines, rolledBack(5)])).records);
  assert.deepEqual(ids(all.history), []);
  assert.equal(all.compaction, null);
});

test('B.4 an unanswered call gets a synthetic "aborted" output right after it; outputs without a call are removed; the file is not changed', async () => {
  const r = await read([
    meta(),
    user('go'), // 2
    call('c1'), // 3 — answered
    output('c1', 'ok'), // 4
    call('c2'), // 5 — interrupted
    item({ type: 'custom_tool_call', call_id: 'c3', name: 'apply_patch', input: '*** Begin Patch' }), // 6
    item({ type: 'local_shell_call', call_id: 'c4', status: 'in_progress', action: { type: 'exec', command: ['ls'] } }), // 7
    item({ type: 'tool_search_call', call_id: 'c5', execution: 'client', arguments: { query: 'x' } }), // 8
    output('ghost', 'orphan'), // 9
    item({ type: 'custom_tool_call_output', call_id: 'nobody', output: 'x' }), // 10
    item({ type: 'tool_search_output', execution: 'server', tools: [] }), // 11: server-side, kept
    event('turn_aborted', { reason: 'interrupted' }),
  ]);
  const replayed = replayRollout(r.records).history;
  assert.deepEqual(ids(replayed), ['L2', 'L3', 'L4', 'L5', 'L6', 'L7', 'L8', 'L9', 'L10', 'L11']);
  const n = normalizeForModel(replayed, { imageInput: true });
  assert.deepEqual(ids(n), ['L2', 'L3', 'L4', 'L5', 'L5~aborted', 'L6', 'L6~aborted', 'L7', 'L7~aborted', 'L8', 'L8~aborted', 'L11']);
  assert.deepEqual(n[4]!.item, { type: 'function_call_output', call_id: 'c2', output: ABORTED_OUTPUT });
  assert.deepEqual(n[6]!.item, { type: 'custom_tool_call_output', call_id: 'c3', output: 'aborted' });
  assert.deepEqual(n[8]!.item, { type: 'function_call_output', call_id: 'c4', output: 'aborted' });
  assert.deepEqual(n[10]!.item, { type: 'tool_search_output', call_id: 'c5', status: 'completed', execution: 'client', tools: [] });
  assert.equal(n[4]!.origin, 'synthetic');
  // the replayed history itself is untouched
  assert.equal(replayed.length, 10);
});

test('B.4 images: for a model without image input every input_image becomes the placeholder text, in messages and tool outputs', async () => {
  const r = await read([
    meta(),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_text', text: '<image>' }, { type: 'input_image', image_url: PNG_DATA_URL }, { type: 'input_text', text: '</image>' }] }),
    call('v1'),
    item({ type: 'function_call_output', call_id: 'v1', output: [{ type: 'input_text', text: 'shot' }, { type: 'input_image', image_url: PNG_DATA_URL }] }),
  ]);
  const h = replayRollout(r.records).history;
  const kept = normalizeForModel(h, { imageInput: true });
  assert.equal((kept[0]!.item.content as Obj[])[2]!.type, 'input_image');
  const stripped = normalizeForModel(h, { imageInput: false });
  assert.deepEqual((stripped[0]!.item.content as Obj[])[2], { type: 'input_text', text: IMAGE_OMITTED_TEXT });
  assert.deepEqual((stripped[2]!.item.output as Obj[])[1], { type: 'input_text', text: 'image content omitted because you do not support image input' });
  assert.deepEqual(
    stripped.map((x) => x.imagesOmitted ?? 0),
    [1, 0, 1],
  );
  // the stored items are not changed
  assert.equal((h[0]!.item.content as Obj[])[2]!.type, 'input_image');
});

test('B.2 truncate: tool outputs cut to the turn_context truncation policy ×1.2 (bytes or tokens), middle kept out; no policy: large outputs flagged (unverified 10 KiB mark)', async () => {
  const long = 'H'.repeat(500) + 'M'.repeat(1000) + 'T'.repeat(500);
  const r = await read([
    meta(),
    turnContext({ truncation_policy: { mode: 'bytes', limit: 100 } }),
    call('a'),
    output('a', long), // 4
    turnContext({ truncation_policy: { mode: 'tokens', limit: 50 } }),
    call('b'),
    output('b', long), // 7
    call('c'),
    item({ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_text', text: long }, { type: 'input_text', text: 'tail' }] }), // 9
    turnContext(),
    call('d'),
    output('d', 'x'.repeat(UNPOLICED_OUTPUT_FLAG_BYTES + 1)), // 12
    call('e'),
    output('e', 'x'.repeat(UNPOLICED_OUTPUT_FLAG_BYTES)), // 14
  ]);
  const h = replayRollout(r.records).history;
  const at = (id: string): HistoryItem => h.find((x) => x.id === id)!;
  const bytes = String(at('L4').item.output);
  assert.equal(bytes, `${'H'.repeat(60)}…1880 bytes truncated…${'T'.repeat(60)}`);
  assert.equal(at('L4').truncatedFrom, 2000);
  const tokens = String(at('L7').item.output);
  assert.equal(tokens, `${'H'.repeat(120)}…440 tokens truncated…${'T'.repeat(120)}`);
  const arr = at('L9').item.output as Obj[];
  assert.equal(arr[0]!.text, `${'H'.repeat(120)}…440 tokens truncated…${'T'.repeat(120)}`);
  // the budget is shared: the first part used it up
  assert.equal(arr[1]!.text, '…1 tokens truncated…');
  assert.equal(at('L12').mayBeTruncated, true);
  assert.equal(at('L12').truncatedFrom, undefined);
  assert.equal(at('L14').mayBeTruncated, undefined);
  // the stored record keeps the full text
  assert.equal(((r.records[3]!.payload as Obj).output as string).length, 2000);
  assert.deepEqual(truncateMiddle('short', 100, 'bytes'), { text: 'short', cut: false });
});

test('cache_write_input_tokens (2026; unverified: read as a part of input_tokens like the cached part) and cached tokens are not counted twice', async () => {
  const r = await read([meta(), user('q'), assistant('a'), event('token_count', { info: { last_token_usage: { input_tokens: 1000, cached_input_tokens: 600, cache_write_input_tokens: 300, output_tokens: 7, total_tokens: 1007 }, total_token_usage: null } })]);
  const u = attributeUsage(r.records).byLine.get(3)!;
  assert.deepEqual(u, { input: 1000, cachedInput: 600, cacheWrite: 300, output: 7, reasoningOutput: 0, total: 1007 });
  // the chart's context size (input + cacheRead + cacheWrite) is input_tokens again
  assert.deepEqual(displayUsage(u), { input: 100, output: 7, cacheRead: 600, cacheWrite: 300, cost: { total: 0 } });
});

test('token_count attribution (A.7, C §4): 0.40 writes it before the response, 2026 after; re-emissions and null info skipped', async () => {
  // 0.40 order: turn_context, token_count, then the response's items
  const old = await read([meta(), user('q'), turnContext(), tokenCount(100, 40, 10), reasoning('r'), call('c'), output('c', 'o'), turnContext(), tokenCount(200, 100, 20), reasoning('r2'), assistant('done')]);
  const u1 = attributeUsage(old.records);
  assert.deepEqual([...u1.byLine.keys()], [6, 11]);
  assert.equal(u1.byLine.get(6)!.input, 100);
  assert.equal(u1.byLine.get(11)!.cachedInput, 100);
  assert.equal(u1.requests, 2);
  // 2026 order: the response, then token_count; a repeat of the same cumulative total is no new request
  const total = usage(300, 0, 30);
  const now = await read([
    meta(),
    user('q'),
    reasoning('r'), // 3
    call('c'), // 4
    tokenCount(100, 0, 10, usage(100, 0, 10)),
    output('c', 'o'),
    assistant('done'), // 7
    tokenCount(200, 0, 20, total),
    tokenCount(200, 0, 20, total),
    event('token_count', { info: null, rate_limits: {} }),
  ]);
  const u2 = attributeUsage(now.records);
  assert.deepEqual([...u2.byLine.entries()].map(([l, u]) => [l, u.input]), [
    [4, 100],
    [7, 200],
  ]);
  assert.equal(u2.requests, 2);
  assert.equal(u2.total?.total, 330);
  assert.equal(u2.contextWindow, 272000);
});
