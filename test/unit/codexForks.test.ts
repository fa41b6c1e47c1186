// Forks across files (codex-format.md A.8, Part C §10): the fork relation lives only in
// session_meta.forked_from_id (subagents: parent_thread_id), the child repeats its parent's items.
// No collected rollout is a fork: these are synthetic chains of files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildForkForest, loadCodexRollout, readRolloutFacts, replayRollout, type ForkNode, type CodexRolloutFacts } from '../../src/core/formats/codex/index';
import { forkPoint } from '../reference/codexForks';
import { assistant, meta, reasoning, rolloutText, tempDir, turnContext, user, writeRollout } from '../helpers/codexBuild';

type Obj = Record<string, unknown>;
const shape = (nodes: ForkNode<CodexRolloutFacts>[]): unknown => nodes.map((n) => ({ id: n.rollout.id, relation: n.relation, missing: n.missingParent, dup: n.duplicates.length, children: shape(n.children) }));

test('a fork chain across three files, a subagent thread, a fork whose parent is gone: the forest by forked_from_id / parent_thread_id', async () => {
  const dir = tempDir();
  const base = [turnContext(), user('q1'), assistant('a1'), user('q2'), assistant('a2')];
  const root = writeRollout(dir, 'rollout-a.jsonl', [meta({ id: 'A', timestamp: '2026-01-01T00:00:00.000Z' }), ...base]);
  // B forks A before its second prompt; C forks B; both repeat the parent's meta and prefix
  const rootMeta = meta({ id: 'A', timestamp: '2026-01-01T00:00:00.000Z' });
  const b = writeRollout(dir, 'rollout-b.jsonl', [meta({ id: 'B', forked_from_id: 'A', timestamp: '2026-01-01T01:00:00.000Z' }), rootMeta, ...base.slice(0, 3), user('q2 other'), assistant('b')]);
  const c = writeRollout(dir, 'rollout-c.jsonl', [meta({ id: 'C', forked_from_id: 'B', timestamp: '2026-01-01T02:00:00.000Z' }), rootMeta, ...base.slice(0, 3), user('q2 other'), user('q3')]);
  const sub = writeRollout(dir, 'rollout-s.jsonl', [meta({ id: 'S', parent_thread_id: 'A', source: { subagent: 'review' }, timestamp: '2026-01-01T00:30:00.000Z' }), user('review this')]);
  const orphan = writeRollout(dir, 'rollout-o.jsonl', [meta({ id: 'O', forked_from_id: 'GONE', timestamp: '2025-12-31T00:00:00.000Z' }), user('x')]);
  const facts = await Promise.all([c, sub, orphan, b, root].map((p) => readRolloutFacts(p)));
  assert.equal(facts[1]!.meta?.source, 'subagent:review');
  const forest = buildForkForest(facts);
  assert.deepEqual(shape(forest), [
    { id: 'O', relation: 'root', missing: 'GONE', dup: 0, children: [] },
    {
      id: 'A',
      relation: 'root',
      missing: null,
      dup: 0,
      children: [
        { id: 'S', relation: 'subagent', missing: null, dup: 0, children: [] },
        { id: 'B', relation: 'fork', missing: null, dup: 0, children: [{ id: 'C', relation: 'fork', missing: null, dup: 0, children: [] }] },
      ],
    },
  ]);
  // only the first session_meta is the thread's (A.3): B's copy of A's meta is history
  const rb = await loadCodexRollout(b);
  assert.equal(rb.meta?.id, 'B');
  assert.equal(rb.records.filter((r) => r.type === 'session_meta').length, 2);
  // the child replays its copied prefix and its own turns
  assert.deepEqual(
    replayRollout(rb.records).history.map((h) => (h.item.content as Obj[])[0]!.text),
    ['q1', 'a1', 'q2 other', 'b'],
  );
});

test('forkPoint (unverified: copied items are byte-identical): where in the parent a child branched off, where its own items start', async () => {
  const parentLines = [meta({ id: 'P' }), user('q1'), reasoning('r'), assistant('a1'), user('q2'), assistant('a2')];
  const parent = await loadCodexRollout(writeRollout(tempDir(), 'rollout-p.jsonl', parentLines));
  const childText = rolloutText([meta({ id: 'K', forked_from_id: 'P' }), parentLines[0]!, parentLines[1]!, parentLines[2]!, parentLines[3]!, user('q2 edited'), assistant('k')]);
  const child = await loadCodexRollout(writeRollout(tempDir(), 'rollout-k.jsonl', childText));
  assert.deepEqual(forkPoint(parent.records, child.records), { shared: 3, parentLine: 4, childLine: 6 });
  // a child that shares nothing, and one that is an exact copy
  assert.deepEqual(forkPoint(parent.records, (await loadCodexRollout(writeRollout(tempDir(), 'x.jsonl', [meta({ id: 'X' }), user('new')]))).records), { shared: 0, parentLine: null, childLine: 2 });
  assert.deepEqual(forkPoint(parent.records, parent.records), { shared: 5, parentLine: 6, childLine: null });
});

test('the same thread in two files: the plain .jsonl wins over its .jsonl.zst sibling (A.1); a parent loop is cut into a root', () => {
  const f = (path: string, id: string, forkedFromId: string | null = null) => ({ path, id, forkedFromId, created: '2026-01-01T00:00:00Z' });
  const forest = buildForkForest([f('/s/rollout-x.jsonl.zst', 'X'), f('/s/rollout-x.jsonl', 'X'), f('/s/rollout-y.jsonl', 'Y', 'X')]);
  assert.equal(forest.length, 1);
  assert.equal(forest[0]!.rollout.path, '/s/rollout-x.jsonl');
  assert.deepEqual(
    forest[0]!.duplicates.map((d) => d.path),
    ['/s/rollout-x.jsonl.zst'],
  );
  assert.deepEqual(
    forest[0]!.children.map((c) => c.rollout.id),
    ['Y'],
  );
  const loop = buildForkForest([f('/l/a', 'L1', 'L2'), f('/l/b', 'L2', 'L1'), f('/l/self', 'L3', 'L3'), { path: '/l/none', id: null, forkedFromId: null }]);
  assert.deepEqual(
    loop.map((n) => [n.rollout.path, n.missingParent, n.children.map((c) => c.rollout.path)]),
    [
      ['/l/none', null, []],
      ['/l/b', 'L1', ['/l/a']],
      ['/l/self', 'L3', []],
    ],
  );
});
