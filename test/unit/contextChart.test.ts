// The context-size chart (issue 13): one point per assistant turn along the branch, as the
// provider reported it, so a compaction is a drop; totals per model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chartPoints, modelTotals } from '../../webview/chartData';
import { openSessionModel } from '../../src/core/engine/openModel';
import { allMessages } from '../../src/core/export/contextMarkdown';
import { fixture } from '../helpers/fixtures';

test('a compaction on the branch is a drop in the chart, at the first turn after it; cut turns come first and are not clickable', async () => {
  const model = await openSessionModel(fixture('upstream-full', 'pi-before-compaction.jsonl'));
  const info = await model.context(await model.defaultLeaf());
  const msgs = await allMessages(model, info.leafId, info.messageCount);
  const cut = await model.cutEntries(info.leafId, 0, Math.min(500, info.compaction!.cutCount));
  const points = chartPoints(info, msgs, cut);
  const at = points.findIndex((p) => p.afterCompaction);
  assert.ok(at > 0, 'a compaction mark');
  assert.equal(points.filter((p) => p.afterCompaction).length, 1);
  assert.ok(points[at]!.tokens < points[at - 1]!.tokens / 2, `a drop: ${points[at - 1]!.tokens} → ${points[at]!.tokens}`);
  assert.ok(points.slice(0, points.findIndex((p) => p.messageIndex !== null)).length > 0, 'the cut turns first');
  for (const p of points) if (p.messageIndex !== null) assert.equal(msgs[p.messageIndex]!.entryId, p.entryId, 'a click jumps to the message of the point');
  const totals = modelTotals(msgs, cut);
  assert.ok(totals.length >= 1);
  const sum = totals.reduce((n, t) => n + t.output, 0);
  assert.equal(sum, [...cut, ...msgs].filter((m) => m.role === 'assistant').reduce((n, m) => n + (m.usage?.output ?? 0), 0));
  model.dispose();
});
