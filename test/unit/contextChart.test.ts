// The context-size chart (issue 13): one point per assistant turn along the branch, as the
// provider reported it, so a compaction is a drop; totals per model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHART_MAX_MESSAGES, chartPoints, modelTotals } from '../../src/protocol/chartData';
import { XcshModel } from '../reference/xcshModel';
import { openSessionModel } from '../../src/core/engine/openModel';
import { allMessages } from '../../src/core/export/contextMarkdown';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelHost } from '../../src/core/engine/worker/modelHost';
import { ChartDataSchema, type MessageView } from '../../src/protocol/messages';
import { fixture, fixtureFiles } from '../helpers/fixtures';
import { bundleModelWorker } from '../helpers/modelWorkerBundle';

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

test('model.chart(leaf) is the chart of the leaf\'s messages and cut entries, for the eager, lazy and dsh models and through the model worker', async () => {
  const files = [...fixtureFiles('upstream-full'), ...fixtureFiles('real-v3'), ...fixtureFiles('dsh')];
  const { dir, workerFile } = await bundleModelWorker('loom-chart-');
  const host = new ModelHost({ workerFile });
  let drawn = 0;
  let compacted = 0;
  try {
    for (const file of files) {
      for (const how of ['eager', 'lazy', 'worker'] as const) {
        const model = how === 'worker' ? await host.open({ path: file }) : how === 'eager' ? await XcshModel.open(file) : await openSessionModel(file);
        try {
          const leaves = [await model.defaultLeaf(), null];
          for (const leafId of leaves) {
            const info = await model.context(leafId);
            const msgs = await allMessages(model, info.leafId, info.messageCount);
            const cut: MessageView[] = [];
            for (let s = 0; s < (info.compaction?.cutCount ?? 0); s += 500) cut.push(...(await model.cutEntries(info.leafId, s, 500)));
            const chart = await model.chart(leafId);
            assert.deepEqual(chart, { leafId: info.leafId, omitted: false, points: chartPoints(info, msgs, cut), totals: modelTotals(msgs, cut) }, `${file} (${how}, leaf ${leafId})`);
            ChartDataSchema.parse(chart);
            if (chart.points.length > 0) drawn++;
            if (chart.points.some((p) => p.afterCompaction)) compacted++;
          }
        } finally {
          model.dispose();
        }
      }
    }
    assert.ok(drawn >= 10 && compacted >= 3, `charts with points: ${drawn}, with a compaction drop: ${compacted}`);
  } finally {
    host.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a context of more than CHART_MAX_MESSAGES messages leaves the chart out (the model reads none of them for it)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-chart-big-'));
  try {
    const file = join(dir, 'big.jsonl');
    // One linear branch, no compaction: every entry is a message of the context.
    const lines = [JSON.stringify({ type: 'session', version: 3, id: 'c0ffee', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' })];
    for (let i = 0; i < CHART_MAX_MESSAGES + 10; i++) {
      const message = i % 2 === 0 ? { role: 'user', content: [{ type: 'text', text: `q${i}` }] } : { role: 'assistant', content: [{ type: 'text', text: `a${i}` }], usage: { input: i, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } } };
      lines.push(JSON.stringify({ type: 'message', id: `m${i}`, parentId: i === 0 ? null : `m${i - 1}`, timestamp: '2026-01-01T00:00:01.000Z', message }));
    }
    writeFileSync(file, lines.join('\n') + '\n');
    const model = await openSessionModel(file);
    try {
      const info = await model.context(null);
      assert.ok(info.messageCount > CHART_MAX_MESSAGES, `${info.messageCount} messages`);
      assert.deepEqual(await model.chart(null), { leafId: info.leafId, omitted: true, points: [], totals: [] });
    } finally {
      model.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
