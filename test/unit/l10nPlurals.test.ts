// "1 messages" (issue 14, point 8): l10n has no plural API, so every count shown with a noun has a
// key of its own for one — "{0} message" beside "{0} messages" — and the code picks by the number.
// Checked on the bundle the build writes from the sources (l10n/bundle.l10n.json, kept current by
// test/unit/l10n.test.ts): a plural noun after a placeholder needs its singular twin.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(__dirname, '..', '..');

/** Count nouns and their singular. */
const NOUNS: Record<string, string> = {
  messages: 'message',
  msgs: 'msg',
  entries: 'entry',
  leaves: 'leaf',
  sessions: 'session',
  matches: 'match',
  lines: 'line',
  chars: 'char',
  characters: 'character',
  ids: 'id',
  records: 'record',
  compactions: 'compaction',
  roles: 'role',
  branches: 'branch',
  diagnostics: 'diagnostic',
  problems: 'problem',
  tokens: 'token',
};

/** Counts that are never one, by construction. */
const NEVER_ONE: Record<string, string> = {
  '{0} branches': 'an entry row says so only when it has two branches or more',
  '{0} days ago': 'one day ago reads "yesterday"',
  'Migrate {0} sessions to v3?': 'one session is asked about by its name',
  'Migrated {0} sessions to v3. Backups next to them: {1}.': 'one has its own sentence ("Backup next to it")',
  'Migrated {0} of {1} sessions to v3. Backup next to it: {2}. Not migrated (left unchanged): {3}.': 'some were left unchanged: two or more were asked for',
  'Migrated {0} of {1} sessions to v3. Backups next to them: {2}. Not migrated (left unchanged): {3}.': 'some were left unchanged: two or more were asked for',
};

test('every count shown with a plural noun has a singular key for one (no "1 messages")', () => {
  const keys = Object.keys(JSON.parse(readFileSync(join(root, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>);
  const known = new Set(keys);
  const missing: string[] = [];
  for (const key of keys) {
    if (key in NEVER_ONE) continue;
    // "{0} messages", and one word between: "{0} more problems", "{0} unreadable lines".
    for (const m of key.matchAll(new RegExp(`(\\{\\d+\\}) (?:[A-Za-z]+ )?(${Object.keys(NOUNS).join('|')})\\b`, 'g'))) {
      const singular = NOUNS[m[2]!]!;
      const twin = key.slice(0, m.index) + m[0].slice(0, m[0].length - m[2]!.length) + singular + key.slice(m.index! + m[0].length);
      if (!known.has(twin)) missing.push(`${JSON.stringify(key)} needs ${JSON.stringify(twin)}`);
    }
  }
  assert.deepEqual(missing, []);
});
