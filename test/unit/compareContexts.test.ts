// Compare with Leaf (issue 13): the shared prefix folded, the first divergent message aligned.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compareLeaves, sharedPrefix, loadSide } from '../../src/core/compare/compareContexts';
import { openSessionModel } from '../../src/core/engine/openModel';
import { forkSessionFile } from '../../src/core/fork/forkSession';
import { openSessionDocument } from '../reference/document';
import { REPO_ROOT, fixture } from '../helpers/fixtures';
import { pathToRoot } from '../reference/treeQueries';

const DEMO = join(REPO_ROOT, 'samples', 'sessions', '--demo-project--', '2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl');

/** How many leading messages two contexts share, from the raw contexts (entry by entry). */
function expectedShared(a: string[], b: string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function branched(): string {
  const T = '2026-01-01T00:00:00.000Z';
  const m = (id: string, parentId: string | null, role: string, text: string): string =>
    JSON.stringify({ type: 'message', id, parentId, timestamp: T, message: role === 'assistant' ? { role, provider: 'p', model: 'm', content: [{ type: 'text', text }] } : { role, content: [{ type: 'text', text }] } });
  const file = join(mkdtempSync(join(tmpdir(), 'sl-cmp-')), 's.jsonl');
  // a long header on one side only (a title line is the same; the leaf text differs) must not shift the alignment
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 'cmp', timestamp: T, cwd: '/w' }), m('u1', null, 'user', 'start'), m('a1', 'u1', 'assistant', 'ok'), m('u2', 'a1', 'user', 'plan A'), m('a2', 'u2', 'assistant', 'did A'), m('u3', 'a1', 'user', 'plan B'), m('a3', 'u3', 'assistant', 'did B'), m('u4', 'a3', 'user', 'more B')];
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

test('two leaves of one session: the shared messages fold into one line and the first divergent message is on the same line on both sides', async () => {
  const file = branched();
  const doc = await openSessionDocument(file);
  const [l1, l2] = doc.tree.leaves();
  const model = await openSessionModel(file);
  const c = await compareLeaves({ model, leafId: l1! }, { model, leafId: l2! });
  const shared = expectedShared(doc.context(l1).messageSources, doc.context(l2).messageSources);
  assert.ok(shared > 0 && shared < doc.context(l1).messages.length);
  assert.equal(c.shared, shared);
  assert.equal(shared, 2);
  for (const side of [c.left, c.right]) assert.match(side, new RegExp(`^> … ${shared} shared messages \\(the same on both sides\\) …$`, 'm'));
  assert.ok(c.divergenceLine.left !== null && c.divergenceLine.left === c.divergenceLine.right, JSON.stringify(c.divergenceLine));
  const at = (text: string): string => text.split('\n')[c.divergenceLine.left! - 1]!;
  assert.match(at(c.left), new RegExp(`^## ${shared + 1}\\. `));
  assert.match(at(c.right), new RegExp(`^## ${shared + 1}\\. `));
  // the line under each heading names its entry: different entries there
  const meta = (text: string): string => text.split('\n')[c.divergenceLine.left! + 1]!;
  assert.match(meta(c.left), /^_entry `u2`/);
  assert.match(meta(c.right), /^_entry `u3`/);
  // each side states its own totals
  assert.match(c.left, new RegExp(`${c.leftSide.info.messageCount} messages? · ≈`));
  assert.match(c.right, new RegExp(`${c.rightSide.info.messageCount} messages? · ≈`));
  model.dispose();
});

test('a session and its fork line up by entry id: the fork shares everything up to the entry it was made from', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cmp-'));
  const src = join(dir, 's.jsonl');
  copyFileSync(DEMO, src);
  const doc = await openSessionDocument(src);
  const other = doc.tree.leaves().find((l) => l !== doc.tree.defaultLeafId)!;
  const fork = await forkSessionFile(src, other);
  const a = await openSessionModel(src);
  const b = await openSessionModel(fork.path);
  const c = await compareLeaves({ model: a, leafId: doc.tree.defaultLeafId }, { model: b, leafId: undefined });
  assert.equal(c.shared, expectedShared(doc.context().messageSources, doc.context(other).messageSources));
  const same = await compareLeaves({ model: a, leafId: other }, { model: b, leafId: undefined });
  assert.equal(same.shared, doc.context(other).messages.length, 'the fork at its leaf is the source at that entry');
  assert.equal(same.divergenceLine.left, null);
  a.dispose();
  b.dispose();
});

test('a compaction on one side only is where that side diverges (its summary comes first)', async () => {
  const f = fixture('upstream-full', 'pi-before-compaction.jsonl');
  const doc = await openSessionDocument(f);
  const withCompaction = doc.tree.defaultLeafId!;
  const before = pathToRoot(doc.tree, withCompaction).find((e) => e.type === 'compaction')!;
  const model = await openSessionModel(f);
  const left = await loadSide(model, before.id);
  const right = await loadSide(model, withCompaction);
  assert.equal(right.messages[0]!.role, 'compactionSummary');
  assert.equal(sharedPrefix(left.messages, right.messages), 0);
  model.dispose();
});
