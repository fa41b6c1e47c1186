// The Sessions view's rows below a session (src/extension/sessions/branchNodes.ts), against a real
// model worker: every node's parent — what `reveal` walks up with getParent — is the row that
// lists it under the current filter, however the filter was switched before. An entry node is one
// object shared by every filter's run that shows it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ModelHost } from '../../src/core/engine/worker/modelHost';
import type { TreeFilterMode } from '../../src/core/tree/treeView';
import { BranchNodes } from '../../src/extension/sessions/branchNodes';
import { readSessionMeta } from '../../src/extension/sessions/catalog';
import { ProjectNode, SessionNode, type EntryNode, type LoomNode, type RunNode } from '../../src/extension/sessions/nodes';
import { SessionModels } from '../../src/extension/sessions/sessionModels';
import { fixtureFiles } from '../helpers/fixtures';
import { bundleModelWorker } from '../helpers/modelWorkerBundle';

let bundleDir = '';
let workerFile = '';
let dir = '';
before(async () => {
  ({ dir: bundleDir, workerFile } = await bundleModelWorker('loom-branch-nodes-'));
  dir = mkdtempSync(join(tmpdir(), 'loom-branch-nodes-'));
});
after(() => {
  rmSync(bundleDir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

/** A session whose first entry (a model change) only the "all" filter shows, so the top run starts elsewhere per filter; a fork after e5. */
function forkedSession(): string {
  const t = (n: number) => `2026-01-05T10:${String(n).padStart(2, '0')}:00.000Z`;
  const msg = (id: string, parentId: string, n: number, role: string, text: string) => ({ type: 'message', id, parentId, timestamp: t(n), message: { role, content: [{ type: 'text', text }] } });
  const lines = [
    { type: 'session', version: 3, id: 'f00000000000b1', timestamp: t(0), cwd: '/work/loom' },
    { type: 'model_change', id: 'e1', parentId: null, timestamp: t(0), model: 'anthropic/claude-sonnet-4-5' },
    msg('e2', 'e1', 1, 'user', 'Fix the parser'),
    msg('e3', 'e2', 2, 'assistant', 'Looking'),
    msg('e4', 'e3', 3, 'user', 'Go on'),
    msg('e5', 'e4', 4, 'assistant', 'Split at boundaries'),
    msg('e6', 'e5', 5, 'user', 'Only report them instead'),
    msg('e7', 'e6', 6, 'assistant', 'Reported'),
    msg('e8', 'e5', 7, 'user', 'Add a test'),
    { type: 'label', id: 'e9', parentId: 'e8', timestamp: t(8), targetId: 'e5', label: 'fix' },
    msg('e10', 'e9', 9, 'assistant', 'Added'),
  ];
  const file = join(dir, '--work-loom--', '2026-01-05T10-00-00-000Z_f00000000000b1.jsonl');
  rmSync(dirname(file), { recursive: true, force: true });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

async function sessionNodeOf(file: string): Promise<SessionNode> {
  const meta = await readSessionMeta(file, dirname(dirname(file)), dirname(file));
  assert.ok(meta, `${basename(file)} is a session`);
  const project = new ProjectNode({ root: dirname(dirname(file)), dir: dirname(file), name: basename(dirname(file)), label: 'p', sessions: [meta] });
  return new SessionNode(meta, project);
}

/** Every row below the session under the current filter, each checked to point at the row that lists it. */
async function walk(branches: BranchNodes, session: SessionNode): Promise<EntryNode[]> {
  const entries: EntryNode[] = [];
  const visit = async (parent: SessionNode | RunNode | EntryNode, rows: LoomNode[]): Promise<void> => {
    for (const row of rows) {
      if (row.kind !== 'run' && row.kind !== 'entry') continue;
      assert.equal(row.parent, parent, `${row.id}: its parent is the row that lists it (${parent.id}), not ${row.parent.id}`);
      if (row.kind === 'run') {
        await visit(row, await branches.runChildren(row));
      } else {
        entries.push(row);
        if (row.hasBranches) await visit(row, await branches.segmentNodes(session, row, row.entryId));
      }
    }
  };
  await visit(session, await branches.segmentNodes(session, session, null));
  return entries;
}

test('every row points at the row that lists it, after the filter went back and forth (a reveal walks these parents)', async () => {
  const host = new ModelHost({ workerFile });
  const models = new SessionModels((file, signal) => host.open({ path: file }, signal));
  let filter: TreeFilterMode = 'all';
  const branches = new BranchNodes({ models, filter: () => filter, branchTokensOf: () => [] });
  try {
    for (const file of [forkedSession(), ...fixtureFiles('real-v3')]) {
      const session = await sessionNodeOf(file);
      const vs = await models.get(file);
      for (const mode of ['all', 'default', 'user-only', 'all', 'default', 'no-tools', 'all', 'labelled-only', 'default'] as const) {
        filter = mode;
        const shown = await walk(branches, session);
        // The node a reveal builds is the one the walk saw, and its chain of parents is the rows
        // that list it, up to the session.
        for (const entry of shown.filter((_, i) => i % 7 === 0 || i === shown.length - 1)) {
          const node = await branches.revealNode(session, vs, entry.entryId, () => undefined);
          assert.equal(node, entry, `${mode}: reveal of ${entry.entryId} builds the node the view lists`);
          let n: LoomNode = node!;
          while (n.kind === 'entry' || n.kind === 'run') {
            const parent: SessionNode | RunNode | EntryNode = n.parent;
            const listed = parent.kind === 'run' ? await branches.runChildren(parent) : await branches.segmentNodes(session, parent, parent.kind === 'session' ? null : parent.entryId);
            assert.ok(listed.includes(n), `${mode}: ${n.id} is listed by its parent ${parent.id}`);
            n = parent;
          }
          assert.equal(n, session);
        }
      }
    }
  } finally {
    models.dispose();
    host.dispose();
  }
});

/** One run of `n` messages (u0, a1, u2, …). */
function longRunSession(n: number): string {
  const msg = (i: number) => ({ type: 'message', id: `m${i}`, parentId: i === 0 ? null : `m${i - 1}`, timestamp: '2026-01-06T10:00:00.000Z', message: { role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `Message ${i}` }] } });
  const lines = [{ type: 'session', version: 3, id: 'f00000000000c2', timestamp: '2026-01-06T10:00:00.000Z', cwd: '/work/long' }, ...Array.from({ length: n }, (_, i) => msg(i))];
  const file = join(dir, '--work-long--', '2026-01-06T10-00-00-000Z_f00000000000c2.jsonl');
  rmSync(dirname(file), { recursive: true, force: true });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

test('a reveal past the pages of a run asks VS Code for its rows again only when it has listed them (issue 21.3)', async () => {
  const host = new ModelHost({ workerFile });
  const models = new SessionModels((file, signal) => host.open({ path: file }, signal));
  try {
    const file = longRunSession(1200);
    const session = await sessionNodeOf(file);
    const vs = await models.get(file);

    // Never listed (collapsed since the session was shown): VS Code has none of its rows, so nothing
    // is redrawn (a redraw drops the row commands below it, and the reveal waited a second for it).
    let branches = new BranchNodes({ models, filter: () => 'all', branchTokensOf: () => [] });
    let grown: RunNode[] = [];
    const far = await branches.revealNode(session, vs, 'm1100', (run) => grown.push(run));
    assert.equal(far?.entryId, 'm1100');
    assert.deepEqual(grown, [], 'a run never listed is not redrawn');
    assert.ok((await branches.runChildren(far!.parent as RunNode)).includes(far!), 'listed when expanded, down to the entry');

    // Listed (its first page shown): the run grows, and VS Code must ask for its rows again.
    branches = new BranchNodes({ models, filter: () => 'all', branchTokensOf: () => [] });
    grown = [];
    const [run] = (await branches.segmentNodes(session, session, null, vs)).filter((n): n is RunNode => n.kind === 'run');
    assert.ok(run);
    assert.equal((await branches.runChildren(run)).length, 501, 'a page and the "Show more" row');
    const node = await branches.revealNode(session, vs, 'm700', (r) => grown.push(r));
    assert.equal(node?.entryId, 'm700');
    assert.deepEqual(grown, [run], 'the listed run is redrawn with the page that holds the entry');
  } finally {
    models.dispose();
    host.dispose();
  }
});
