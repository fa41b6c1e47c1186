// Issue 22 point 29, spec Part B §22: the context carries the service tier, the active context and
// the MCP tool selection — each from the last such entry on the path, absent when there is none —
// in the eager builder (buildSessionContext → the editor's ContextInfo), the lazy one (LazyContexts
// → ContextInfo, and rawContextHead for the CLI's raw `context`), which agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { buildSessionContext } from '../reference/context';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { XcshModel } from '../reference/xcshModel';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { buildLazyIndex } from '../../src/core/engine/xcsh/lazy/lazyIndex';
import { LazyTree } from '../../src/core/engine/xcsh/lazy/lazyTree';
import { LazyContexts } from '../../src/core/engine/xcsh/lazy/lazyContext';
import { BodyReader } from '../../src/core/engine/xcsh/lazy/bodyReader';
import { rawContextHead } from '../../src/core/engine/xcsh/lazy/rawContext';
import { ContextInfoSchema } from '../../src/protocol/messages';
import { assertTextParity, oldSessionFile } from '../helpers/modelParity';

const ts = (n: number): string => new Date(Date.UTC(2026, 5, 1, 10, n)).toISOString();
const line = (o: object): string => JSON.stringify(o) + '\n';
const msg = (id: string, parentId: string | null, n: number, role: string, text: string): object => ({
  type: 'message',
  id,
  parentId,
  timestamp: ts(n),
  message: role === 'assistant' ? { role, content: [{ type: 'text', text }], provider: 'p', model: 'm', stopReason: 'stop' } : { role, content: [{ type: 'text', text }] },
});

/**
 * A v3 session: a main line with two tier changes (the last wins), a context change, an MCP
 * selection and a later context change, and a side branch from before any of them (none there).
 */
const SESSION =
  line({ type: 'session', version: 3, id: 's22', timestamp: ts(0), cwd: '/work/s22' }) +
  line(msg('a0000001', null, 1, 'user', 'hello')) +
  line(msg('a0000002', 'a0000001', 2, 'assistant', 'hi')) +
  line({ type: 'service_tier_change', id: 'b0000001', parentId: 'a0000002', timestamp: ts(3), serviceTier: 'flex' }) +
  line({ type: 'context_change', id: 'b0000002', parentId: 'b0000001', timestamp: ts(4), contextName: 'staging', tenant: 'acme' }) +
  line({ type: 'mcp_tool_selection', id: 'b0000003', parentId: 'b0000002', timestamp: ts(5), selectedToolNames: ['github.search', 'jira.create'] }) +
  line({ type: 'service_tier_change', id: 'b0000004', parentId: 'b0000003', timestamp: ts(6), serviceTier: 'priority' }) +
  line({ type: 'context_change', id: 'b0000005', parentId: 'b0000004', timestamp: ts(7), contextName: 'prod', tenant: 'acme', namespace: 'payments' }) +
  line(msg('a0000003', 'b0000005', 8, 'user', 'go on')) +
  line(msg('a0000004', 'a0000003', 9, 'assistant', 'done')) +
  // the side branch: a sibling of the first tier change
  line(msg('c0000001', 'a0000002', 10, 'user', 'another way')) +
  line(msg('c0000002', 'c0000001', 11, 'assistant', 'sure'));

const MAIN_LEAF = 'a0000004';
const SIDE_LEAF = 'c0000002';

test('buildSessionContext carries the last service tier, active context and MCP selection on the path; none off it', async () => {
  const p = oldSessionFile(SESSION, 'loom-ctx22-');
  const loaded = await loadSessionFile(p);
  const main = buildSessionContext(loaded.entries, MAIN_LEAF);
  assert.equal(main.serviceTier, 'priority');
  assert.equal(main.activeContextName, 'prod');
  assert.equal(main.activeContextTenant, 'acme');
  assert.equal(main.activeContextNamespace, 'payments');
  assert.deepEqual(main.selectedMCPToolNames, ['github.search', 'jira.create']);
  assert.equal(main.hasPersistedMCPToolSelection, true);
  // Midway (at the MCP selection): the first tier and the first context, whose namespace is absent.
  const mid = buildSessionContext(loaded.entries, 'b0000003');
  assert.equal(mid.serviceTier, 'flex');
  assert.equal(mid.activeContextName, 'staging');
  assert.equal(mid.activeContextNamespace, null);
  // The side branch has none of them: absent (old output unchanged).
  const side = buildSessionContext(loaded.entries, SIDE_LEAF);
  for (const k of ['serviceTier', 'activeContextName', 'activeContextTenant', 'activeContextNamespace', 'selectedMCPToolNames', 'hasPersistedMCPToolSelection']) {
    assert.equal(k in side, false, `${k} absent without such an entry`);
  }
});

test('the preview\'s ContextInfo.runtime shows them, eager and lazy alike (and validates; old data without them too)', async () => {
  const p = oldSessionFile(SESSION, 'loom-ctx22-');
  const opts = { blobDir: join(tmpdir(), 'sl-no-blobs') };
  const eager = await XcshModel.open(p, opts);
  const lazy = await LazyXcshModel.open(p, opts);
  assert.ok(lazy, 'in the lazy scope');
  const e = await eager.context(MAIN_LEAF);
  const l = await lazy.context(MAIN_LEAF);
  assert.equal(e.runtime.serviceTier, 'priority');
  assert.deepEqual(e.runtime.activeContext, { name: 'prod', tenant: 'acme', namespace: 'payments' });
  assert.deepEqual(e.runtime.selectedMCPToolNames, ['github.search', 'jira.create']);
  assert.equal(e.runtime.hasPersistedMCPToolSelection, true);
  assert.deepEqual(l.runtime, e.runtime, 'lazy = eager');
  assert.deepEqual(ContextInfoSchema.parse(e), e);
  const side = await eager.context(SIDE_LEAF);
  assert.deepEqual(await lazy.context(SIDE_LEAF), side);
  assert.equal(side.runtime.serviceTier, undefined);
  assert.equal(side.runtime.activeContext, undefined);
  assert.equal(side.runtime.hasPersistedMCPToolSelection, undefined);
  const old = { ...side, runtime: { thinkingLevel: 'off', models: {}, mode: 'none', modeDataJson: null, injectedTtsrRules: [] } };
  assert.deepEqual(ContextInfoSchema.parse(old), old, 'a ContextInfo without the new fields still validates');
  // A cleared tier (null) and a per-family map read as one line.
  const more =
    SESSION +
    line({ type: 'service_tier_change', id: 'd0000001', parentId: MAIN_LEAF, timestamp: ts(20), serviceTier: null }) +
    line({ type: 'service_tier_change', id: 'd0000002', parentId: 'd0000001', timestamp: ts(21), serviceTier: { openai: 'flex', anthropic: 'priority' } });
  const p2 = oldSessionFile(more, 'loom-ctx22-');
  const e2 = await XcshModel.open(p2, opts);
  const l2 = await LazyXcshModel.open(p2, opts);
  assert.ok(l2);
  assert.equal((await e2.context('d0000001')).runtime.serviceTier, null);
  assert.equal((await e2.context('d0000002')).runtime.serviceTier, 'openai flex, anthropic priority');
  assert.deepEqual((await l2.context('d0000001')).runtime, (await e2.context('d0000001')).runtime);
  assert.deepEqual((await l2.context('d0000002')).runtime, (await e2.context('d0000002')).runtime);
});

test('the lazy raw context (the CLI\'s `context` of a big session) carries them as buildSessionContext does', async () => {
  const p = oldSessionFile(SESSION, 'loom-ctx22-');
  const loaded = await loadSessionFile(p);
  const ix = await buildLazyIndex(p);
  const tree = new LazyTree(ix);
  for (const leaf of [MAIN_LEAF, 'b0000003', SIDE_LEAF]) {
    const plan = await new LazyContexts(ix, tree, new BodyReader(ix), 1).plan(leaf);
    const { messages: _messages, ...eager } = buildSessionContext(loaded.entries, leaf);
    const head = rawContextHead(ix, tree, plan);
    assert.deepEqual(head, eager, `at ${leaf}`);
    assert.equal(JSON.stringify(head), JSON.stringify(eager), `same keys in the same order at ${leaf}`);
    if (leaf === MAIN_LEAF) {
      assert.equal(head.serviceTier, 'priority');
      assert.equal(head.activeContextNamespace, 'payments');
      assert.deepEqual(head.selectedMCPToolNames, ['github.search', 'jira.create']);
    }
  }
});

test('eager and lazy models answer alike over the whole session (modelParity)', async () => {
  await assertTextParity(SESSION);
});
