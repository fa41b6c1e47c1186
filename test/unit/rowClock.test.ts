// Relative times in the Sessions view refresh on a timer that redraws only the rows whose text
// changed (issue 14, point 5): never the whole tree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatRelativeTime, isLive } from '../../src/core/tree/treeView';
import { RowClock } from '../../src/extension/sessions/rowClock';

test('a tick redraws exactly the rows whose "live" mark or relative time changed since they were drawn', () => {
  const t0 = Date.parse('2026-03-01T12:00:00.000Z');
  const rows = { fresh: t0 - 40_000, minutes: t0 - 245_000, old: t0 - 3 * 86_400_000 };
  const redrawn: string[] = [];
  const clock = new RowClock<keyof typeof rows>((row, now) => `${isLive(rows[row], now)} ${formatRelativeTime(rows[row], now)}`, (row) => redrawn.push(row));
  try {
    for (const row of Object.keys(rows) as (keyof typeof rows)[]) clock.drawn(row, t0);
    assert.deepEqual(clock.tick(t0 + 1_000), [], 'nothing changed within a second');
    // 15 s later "just now" reads "1 min ago"; "4 min ago" and "3 days ago" still hold.
    assert.deepEqual(clock.tick(t0 + 15_000), ['fresh']);
    assert.deepEqual(redrawn, ['fresh']);
    clock.drawn('fresh', t0 + 15_000);
    // At 61 s the "live" mark ends, although "1 min ago" stays.
    assert.deepEqual(clock.tick(t0 + 21_000), ['fresh']);
    // "4 min ago" becomes "5 min ago"; the row not drawn again since its redraw is not redrawn again.
    assert.deepEqual(clock.tick(t0 + 30_000), ['minutes']);
  } finally {
    clock.dispose();
  }
});
