import { test as nodeTest } from 'node:test';
import assert from 'node:assert/strict';
import { buildSessionContext } from '../reference/context';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { buildTreeIndex } from '../../src/core/tree/tree';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { fixture } from '../helpers/fixtures';
import { FIXTURE_EXPECTATIONS } from '../cli/fixture-expectations';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { XcshModel as ReferenceModel } from '../reference/xcshModel';
import { assertSameAnswers, oldSessionFile } from '../helpers/modelParity';

const T0 = '2026-02-16T10:20:30.000Z';
let seq = 0;
function E(type: string, id: string, parentId: string | null, fields: Record<string, unknown> = {}): SessionEntry {
  return { type, id, parentId, timestamp: new Date(Date.parse(T0) + seq++ * 1000).toISOString(), ...fields } as SessionEntry;
}
const user = (id: string, p: string | null, text = id) => E('message', id, p, { message: { role: 'user', content: text } });
const asst = (id: string, p: string | null, provider = 'anthropic', model = 'claude') =>
  E('message', id, p, { message: { role: 'assistant', provider, model, content: [{ type: 'text', text: id }] } });
const roles = (c: { messages: { role: string }[] }) => c.messages.map((m) => m.role);

// Both call forms (plain map and tree index) must agree on every case. Each case is also kept for the
// last test, which asks the product's engine (the lazy model) the same question.
const cases: { name: string; entries: SessionEntry[]; leaf: string | null | undefined }[] = [];
let current = '';
function both(entries: SessionEntry[], leaf: string | null | undefined) {
  const a = buildSessionContext(entries, leaf);
  const b = buildSessionContext(entries, leaf, buildTreeIndex(entries));
  assert.deepEqual(b, a);
  cases.push({ name: current, entries, leaf });
  return a;
}
/** node:test's `test`, noting the case's name for the engine's pass at the end. */
const test = (name: string, fn: () => void | Promise<void>): void => {
  nodeTest(name, () => {
    current = name;
    return fn();
  });
};

test('leaf null → empty context with defaults', () => {
  const c = both([user('a', null), asst('b', 'a')], null);
  assert.deepEqual(c.messages, []);
  assert.equal(c.leafId, null);
  assert.equal(c.thinkingLevel, 'off');
  assert.deepEqual(c.models, {});
  assert.deepEqual(c.injectedTtsrRules, []);
  assert.equal(c.mode, 'none');
  assert.equal(c.modeData, undefined);
});

test('no entries → empty context', () => {
  assert.deepEqual(both([], undefined).messages, []);
});

test('explicit found leaf → that entry; unknown leaf and undefined → last entry', () => {
  const es = [user('a', null), asst('b', 'a'), user('c', 'b'), user('x', 'a')];
  assert.deepEqual(both(es, 'c').messageSources, ['a', 'b', 'c']);
  assert.equal(both(es, 'c').leafId, 'c');
  assert.deepEqual(both(es, 'nope').messageSources, ['a', 'x']);
  assert.deepEqual(both(es, undefined).messageSources, ['a', 'x']);
  assert.equal(both(es, undefined).leafId, 'x');
});

test('only the root→leaf path contributes (siblings excluded)', () => {
  const es = [user('a', null), asst('b', 'a'), user('c', 'b'), asst('d', 'c'), user('e', 'b'), asst('f', 'e')];
  assert.deepEqual(both(es, 'f').messageSources, ['a', 'b', 'e', 'f']);
});

test('thinkingLevel: newest on the path wins; default off; off-path changes ignored', () => {
  const es = [
    user('a', null),
    E('thinking_level_change', 't1', 'a', { thinkingLevel: 'high' }),
    E('thinking_level_change', 't2', 't1', { thinkingLevel: 'low' }),
    E('thinking_level_change', 'tx', 'a', { thinkingLevel: 'medium' }),
  ];
  assert.equal(both(es, 't2').thinkingLevel, 'low');
  assert.equal(both(es, 't1').thinkingLevel, 'high');
  assert.equal(both(es, 'a').thinkingLevel, 'off');
  assert.equal(both(es, 'tx').thinkingLevel, 'medium');
});

test('models: role ?? default; explicit model_change default beats assistant messages (before or after)', () => {
  const es = [
    asst('a1', null, 'openai', 'gpt-4o'),
    E('model_change', 'm1', 'a1', { model: 'anthropic/claude-sonnet-4-5' }),
    asst('a2', 'm1', 'google', 'gemini'),
    E('model_change', 'm2', 'a2', { model: 'openai/gpt-4o-mini', role: 'small' }),
  ];
  const c = both(es, 'm2');
  assert.deepEqual(c.models, { default: 'anthropic/claude-sonnet-4-5', small: 'openai/gpt-4o-mini' });
});

test('models: without a model_change, default is the LAST assistant provider/model on the path', () => {
  const es = [asst('a1', null, 'openai', 'gpt-4o'), user('u', 'a1'), asst('a2', 'u', 'google', 'gemini'), user('u2', 'a2')];
  assert.deepEqual(both(es, 'u2').models, { default: 'google/gemini' });
  assert.deepEqual(both(es, 'u').models, { default: 'openai/gpt-4o' });
});

test('models: a non-default role change does not stop the assistant fallback for default', () => {
  const es = [E('model_change', 'm', null, { model: 'x/small', role: 'small' }), asst('a', 'm', 'p', 'big')];
  assert.deepEqual(both(es, 'a').models, { small: 'x/small', default: 'p/big' });
});

test('models: v1 model_change {provider, modelId} contributes nothing (as upstream)', () => {
  const es = [asst('a', null, 'p', 'm'), E('model_change', 'm1', 'a', { provider: 'openai', modelId: 'gpt-4o' })];
  assert.deepEqual(both(es, 'm1').models, { default: 'p/m' });
});

test('injectedTtsrRules: deduplicated, first-seen order', () => {
  const es = [
    E('ttsr_injection', 'r1', null, { injectedRules: ['b', 'a'] }),
    E('ttsr_injection', 'r2', 'r1', { injectedRules: ['a', 'c', 'b'] }),
  ];
  assert.deepEqual(both(es, 'r2').injectedTtsrRules, ['b', 'a', 'c']);
});

test('mode and modeData from the newest mode_change; default none', () => {
  const es = [
    user('a', null),
    E('mode_change', 'p', 'a', { mode: 'plan', data: { planFile: '/tmp/plan.md' } }),
    E('mode_change', 'q', 'p', { mode: 'act' }),
  ];
  const c1 = both(es, 'p');
  assert.equal(c1.mode, 'plan');
  assert.deepEqual(c1.modeData, { planFile: '/tmp/plan.md' });
  const c2 = both(es, 'q');
  assert.equal(c2.mode, 'act');
  assert.equal(c2.modeData, undefined);
  assert.equal(both(es, 'a').mode, 'none');
});

test('custom_message → role custom with epoch-ms timestamp; branch_summary → branchSummary', () => {
  const es = [
    user('a', null),
    E('custom_message', 'cm', 'a', { customType: 'note', content: 'hi', display: true, details: { k: 1 } }),
    E('branch_summary', 'bs', 'cm', { fromId: 'root', summary: 'went elsewhere' }),
  ];
  const c = both(es, 'bs');
  assert.deepEqual(c.messages[1], {
    role: 'custom',
    customType: 'note',
    content: 'hi',
    display: true,
    details: { k: 1 },
    timestamp: Date.parse((es[1] as { timestamp: string }).timestamp),
  });
  assert.deepEqual(c.messages[2], {
    role: 'branchSummary',
    summary: 'went elsewhere',
    fromId: 'root',
    timestamp: Date.parse((es[2] as { timestamp: string }).timestamp),
  });
  assert.equal(typeof c.messages[2]!.timestamp, 'number');
});

test('message entries pass through unchanged (same object)', () => {
  const es = [user('a', null)];
  assert.equal(both(es, 'a').messages[0], (es[0] as { message: unknown }).message);
});

test('custom, label, session_init and state entries contribute no messages; unknown types neither', () => {
  const es = [
    E('session_init', 's', null, { systemPrompt: 'sys', task: 't', tools: [] }),
    E('custom', 'c', 's', { customType: 'state', data: {} }),
    user('u', 'c'),
    E('label', 'l', 'u', { targetId: 'u', label: 'x' }),
    E('model_change', 'm', 'l', { model: 'a/b' }),
    E('thinking_level_change', 't', 'm', { thinkingLevel: 'high' }),
    E('ttsr_injection', 'r', 't', { injectedRules: ['x'] }),
    E('mode_change', 'md', 'r', { mode: 'plan' }),
    E('title_change', 'tc', 'md', { title: 'x' }),
    E('future_thing', 'f', 'tc', {}),
  ];
  assert.deepEqual(both(es, 'f').messageSources, ['u']);
});

test('branch_summary with an empty summary emits nothing (as upstream)', () => {
  const es = [user('a', null), E('branch_summary', 'bs', 'a', { fromId: 'a', summary: '' })];
  assert.deepEqual(both(es, 'bs').messageSources, ['a']);
});

test('compaction: summary first, then kept from firstKeptEntryId up to it, then after; cut entries reported', () => {
  const es = [
    user('u1', null),
    asst('a1', 'u1'),
    user('u2', 'a1'),
    asst('a2', 'u2'),
    E('compaction', 'c', 'a2', { summary: 'S', shortSummary: 's', firstKeptEntryId: 'u2', tokensBefore: 1234 }),
    user('u3', 'c'),
    asst('a3', 'u3'),
  ];
  const c = both(es, 'a3');
  assert.deepEqual(roles(c), ['compactionSummary', 'user', 'assistant', 'user', 'assistant']);
  assert.deepEqual(c.messageSources, ['c', 'u2', 'a2', 'u3', 'a3']);
  assert.deepEqual(c.messages[0], {
    role: 'compactionSummary',
    summary: 'S',
    shortSummary: 's',
    tokensBefore: 1234,
    timestamp: Date.parse((es[4] as { timestamp: string }).timestamp),
  });
  assert.deepEqual(c.cutEntryIds, ['u1', 'a1']);
  assert.deepEqual(c.compaction, { id: 'c', firstKeptEntryId: 'u2', keptFound: true, remote: false });
});

test('compaction: the LAST compaction on the path wins', () => {
  const es = [
    user('u1', null),
    E('compaction', 'c1', 'u1', { summary: 'first', firstKeptEntryId: 'u1', tokensBefore: 1 }),
    user('u2', 'c1'),
    asst('a2', 'u2'),
    E('compaction', 'c2', 'a2', { summary: 'second', firstKeptEntryId: 'a2', tokensBefore: 2 }),
    user('u3', 'c2'),
  ];
  const c = both(es, 'u3');
  assert.deepEqual(c.messageSources, ['c2', 'a2', 'u3']);
  assert.equal(c.messages[0]!.summary, 'second');
  assert.deepEqual(c.cutEntryIds, ['u1', 'c1', 'u2']);
  assert.equal(c.compaction?.id, 'c2', 'all of them cut by the last compaction');
  // at a leaf before c2, c1 governs
  assert.deepEqual(both(es, 'a2').messageSources, ['c1', 'u1', 'u2', 'a2']);
});

test('compaction: firstKeptEntryId not on the path (or absent) keeps nothing before the compaction', () => {
  const es = [
    user('u1', null),
    asst('a1', 'u1'),
    user('side', 'u1'),
    E('compaction', 'c', 'a1', { summary: 'S', firstKeptEntryId: 'side', tokensBefore: 1 }),
    user('u2', 'c'),
  ];
  const c = both(es, 'u2');
  assert.deepEqual(c.messageSources, ['c', 'u2']);
  assert.deepEqual(c.compaction, { id: 'c', firstKeptEntryId: 'side', keptFound: false, remote: false });
  assert.deepEqual(c.cutEntryIds, ['u1', 'a1']);
  const es2 = [user('u1', null), E('compaction', 'c', 'u1', { summary: 'S', tokensBefore: 1 })];
  assert.deepEqual(both(es2, 'c').messageSources, ['c']);
  // firstKeptEntryId naming an entry AFTER the compaction keeps nothing before it either
  const es3 = [user('u1', null), E('compaction', 'c', 'u1', { summary: 'S', firstKeptEntryId: 'u2', tokensBefore: 1 }), user('u2', 'c')];
  assert.deepEqual(both(es3, 'u2').messageSources, ['c', 'u2']);
});

test('compaction on a sibling branch does not apply', () => {
  const es = [user('u1', null), E('compaction', 'c', 'u1', { summary: 'S', firstKeptEntryId: 'u1', tokensBefore: 1 }), user('u2', 'u1')];
  const c = both(es, 'u2');
  assert.deepEqual(c.messageSources, ['u1', 'u2']);
  assert.equal(c.compaction, null);
  assert.deepEqual(c.cutEntryIds, []);
});

test('state is derived over the whole path, including the cut part', () => {
  const es = [
    E('thinking_level_change', 't', null, { thinkingLevel: 'high' }),
    E('model_change', 'm', 't', { model: 'a/b' }),
    user('u1', 'm'),
    E('compaction', 'c', 'u1', { summary: 'S', tokensBefore: 1 }),
    user('u2', 'c'),
  ];
  const c = both(es, 'u2');
  assert.equal(c.thinkingLevel, 'high');
  assert.deepEqual(c.models, { default: 'a/b' });
});

test('cycles and self-parents never hang (Part C §5)', () => {
  const es = [user('a', 'c'), user('b', 'a'), user('c', 'b')];
  const c = buildSessionContext(es, 'c');
  assert.deepEqual(c.messageSources, ['a', 'b', 'c']);
  const self = [user('s', 's')];
  assert.deepEqual(buildSessionContext(self, 's').messageSources, ['s']);
  assert.deepEqual(buildSessionContext(self, 's', buildTreeIndex(self)).messageSources, ['s']);
});

// ---- the real fixtures: expectations derived independently (see test/cli/fixture-expectations.ts) ----
for (const x of FIXTURE_EXPECTATIONS) {
  test(`fixture ${x.file}: context at the default leaf`, async () => {
    const loaded = await loadSessionFile(fixture(...x.file.split('/')));
    assert.equal(loaded.entries.length, x.entries);
    const tree = buildTreeIndex(loaded.entries, loaded.entryLines);
    const c = buildSessionContext(loaded.entries, tree.defaultLeafId, tree);
    const got: Record<string, number> = {};
    for (const m of c.messages) got[m.role] = (got[m.role] ?? 0) + 1;
    assert.deepEqual(got, x.roles);
    assert.equal(c.messages.length, Object.values(x.roles).reduce((a, b) => a + b, 0));
    assert.equal(c.cutEntryIds.length, x.cut);
    assert.equal(c.thinkingLevel, x.thinkingLevel);
    assert.deepEqual(c.models, x.models);
    assert.equal(c.compaction !== null, x.compaction === true);
    if (c.compaction) assert.equal(c.messages[0]!.role, 'compactionSummary');
    assert.equal(c.leafId, loaded.entries[loaded.entries.length - 1]!.id);
    assert.equal(c.messageSources.length, c.messages.length);
    // the plain-map form agrees with the indexed form
    assert.deepEqual(buildSessionContext(loaded.entries, undefined), c);
  });
}

// The rules above are the reference's; the product builds contexts in its engine (the lazy model,
// engine/xcsh/lazy/lazyContext.ts). Every hand-built case, written as a v3 file, is asked of both
// models at its leaf (and at the default leaf): the same messages, sources, cut entries, models,
// thinking level, mode — everything the editor and the CLI are given.
nodeTest('the product\'s engine answers every hand-built case above as the reference does', async () => {
  assert.ok(cases.length > 30, `the cases were collected (${cases.length})`);
  const blobDir = join(tmpdir(), 'sl-no-blobs');
  for (const c of cases) {
    const text = [{ type: 'session', version: 3, id: 'ctx-case', timestamp: T0, cwd: '/work/ctx' }, ...c.entries].map((e) => JSON.stringify(e)).join('\n') + '\n';
    const file = oldSessionFile(text, 'sl-ctx-case-');
    const reference = await ReferenceModel.open(file, { blobDir });
    const engine = await LazyXcshModel.open(file, { blobDir });
    assert.ok(engine, `${c.name}: the engine opens it`);
    try {
      await assertSameAnswers(reference, engine, { leaves: typeof c.leaf === 'string' ? [c.leaf] : [], window: 50 });
    } catch (e) {
      throw new Error(`${c.name} (leaf ${String(c.leaf)}): ${(e as Error).message}`);
    } finally {
      reference.dispose();
      engine.dispose();
    }
  }
});
