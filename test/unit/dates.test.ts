// One date format everywhere (src/protocol/dates.ts): the cached formatters give exactly what
// toLocaleString & co. give, per locale, and a row on another day than the session's first says
// which day.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDateTime, formatTimeOfDay } from '../../src/protocol/dates';

const when = ['2026-03-01T09:00:21Z', '2026-12-31T23:59:59.999Z', 1_780_000_000_000];

test('the cached formatters answer as toLocaleString / toLocaleTimeString would, in each locale asked', () => {
  for (const locale of ['en', 'de', 'ja', undefined]) {
    for (const v of when) {
      const d = new Date(v);
      assert.equal(formatDateTime(v, locale), d.toLocaleString(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' }));
      assert.equal(formatTimeOfDay(v, locale), d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit' }));
    }
  }
});

test('a time on another day than the session start names the day; no date is empty, a non-date is itself', () => {
  const d = new Date('2026-03-02T09:00:21');
  assert.equal(formatTimeOfDay(d, 'en', new Date('2026-03-02T01:00:00')), d.toLocaleTimeString('en', { hour: '2-digit', minute: '2-digit', second: '2-digit' }));
  assert.match(formatTimeOfDay(d, 'en', new Date('2026-03-01T01:00:00')), /^Mar 2, /);
  assert.equal(formatDateTime(null), '');
  assert.equal(formatTimeOfDay('not a date'), 'not a date');
});
