// The session editor's display pipeline under plain node: the windows the webview gets must
// list exactly the messages of buildSessionContext, pass the protocol schemas, and mark the
// compaction segments; the branch tree rows keep the main line flat.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BlobStore } from '../../src/core/blobs';
import { buildSessionContext } from '../../src/core/context';
import { ContextWindows } from '../../src/extension/editor/contextWindows';
import { loadSnapshot } from '../../src/extension/editor/sessionSnapshot';
import { flattenTree, treeRows } from '../../src/extension/editor/treeRows';
import { Requests } from '../../src/protocol/messages';
import { REPO_ROOT, fixture } from '../helpers/fixtures';

const demo = join(REPO_ROOT, 'samples/sessions/--demo-project--/2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl');
const blobs = new BlobStore(join(REPO_ROOT, 'test-results', 'no-blobs'));

describe('session editor windows', () => {
  it('windows list the context messages in order, with segments around the compaction', async () => {
    const snap = await loadSnapshot(demo, blobs, 1);
    const w = new ContextWindows(snap);
    const info = Requests.getContext.result.parse(w.context(null));
    const ctx = buildSessionContext(snap.loaded.entries, undefined, snap.index);
    assert.equal(info.messageCount, ctx.messages.length);
    const { items } = Requests.getMessages.result.parse({ revision: 1, items: w.messages(null, 0, 100) });
    assert.deepEqual(items.map((m) => m.entryId), ctx.messageSources);
    assert.deepEqual(items.map((m) => m.role), ctx.messages.map((m) => m.role));
    assert.deepEqual(items.map((m) => m.segment), ['summary', 'kept', 'kept', 'kept', 'kept', 'after', 'after']);
    assert.equal(info.compaction?.cutCount, ctx.cutEntryIds.length);
    const cut = w.cutEntries(null, 0, 100);
    assert.deepEqual(cut.map((c) => c.entryId), ctx.cutEntryIds);
    const call = items.find((m) => m.role === 'assistant')!.blocks.find((b) => b.kind === 'toolCall');
    assert.ok(call && call.kind === 'toolCall' && call.resultIndex === 3, 'the screenshot call points at its result');
    assert.ok(items[items.length - 1]!.cumulativeTokensEst >= items[0]!.tokensEst);
    assert.deepEqual(w.locate(null, 'a100000a'), { messageIndex: 1, cutIndex: null });
    assert.deepEqual(w.locate(null, 'a1000003'), { messageIndex: null, cutIndex: 2 }); // after model_change and thinking_level_change
  });

  it('the branch tree keeps the main line at depth 0 and indents side branches', async () => {
    const snap = await loadSnapshot(demo, blobs, 1);
    const flat = flattenTree(snap.index, 'all', '', snap.index.defaultLeafId);
    const rows = treeRows(snap.index, flat, 0, 1000);
    assert.equal(rows.length, snap.loaded.entries.length);
    const branch = rows.find((r) => r.entryId === 'b2000001')!;
    assert.equal(branch.depth, 1);
    assert.equal(branch.forks, true);
    assert.ok(rows.filter((r) => r.onPath).every((r) => r.depth === 0));
    assert.equal(flat.selectedIndex, rows.findIndex((r) => r.entryId === snap.index.defaultLeafId));
  });

  it('real compaction fixture: windows match the context and validate', async () => {
    const snap = await loadSnapshot(fixture('real-v3', 'gjc-03-raddit-dashboard-pr.jsonl'), blobs, 1);
    const w = new ContextWindows(snap);
    const info = w.context(null);
    const all: unknown[] = [];
    for (let s = 0; s < info.messageCount; s += 40) all.push(...Requests.getMessages.result.parse({ revision: 1, items: w.messages(null, s, 40) }).items);
    assert.equal(all.length, info.messageCount);
    assert.equal((all[0] as { role: string }).role, 'compactionSummary');
    assert.ok(info.compaction && info.compaction.cutCount > 0);
  });
});
