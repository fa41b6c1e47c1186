// `session-loom search` snippets through the BUILT binary (issue 21), over the default sessions
// root of a HOME (~/.xcsh/agent/sessions/<project>/): entries without an id in the file (a v1
// session, an id-less v2 entry; the index rows carry the ids made in memory) show their text, not
// a blank; and a snippet whose window edge falls inside a character of two UTF-16 units (emoji,
// CJK beyond the BMP) never shows half of it, which a terminal prints as U+FFFD.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';

let home: string;
let cache: string;
let project: string;
let indexDir: string;

const search = (...args: string[]) => runCli(['search', ...args, '--index', indexDir], { env: { ...process.env, HOME: home, XDG_CACHE_HOME: cache }, timeout: 120_000 });

const line = (o: object): string => JSON.stringify(o) + '\n';
/** Half of a surrogate pair on its own. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-snippet-home-'));
  cache = mkdtempSync(join(tmpdir(), 'sl-snippet-cache-'));
  indexDir = mkdtempSync(join(tmpdir(), 'sl-snippet-index-'));
  project = join(home, '.xcsh', 'agent', 'sessions', '--Users-badlogic-workspaces-pi-mono--');
  mkdirSync(project, { recursive: true });
  copyFileSync(fixture('upstream/pi-large-session.v1.head25.jsonl'), join(project, 'pi-large-session.v1.head25.jsonl'));
  // A v2 session with an entry that has no id (given one in memory) and a legacy hookMessage.
  writeFileSync(
    join(project, 'v2.jsonl'),
    line({ type: 'session', version: 2, id: 'v2session', timestamp: '2026-06-01T09:00:00.000Z', cwd: '/work/v2' }) +
      line({ type: 'message', id: 'v2a', parentId: null, timestamp: '2026-06-01T09:01:00.000Z', message: { role: 'user', content: 'hello molybdenum world' } }) +
      line({ type: 'message', id: 'v2b', parentId: 'v2a', timestamp: '2026-06-01T09:02:00.000Z', message: { role: 'hookMessage', content: 'the hook says molybdenum' } }) +
      line({ type: 'message', parentId: 'v2b', timestamp: '2026-06-01T09:03:00.000Z', message: { role: 'user', content: 'no id, still molybdenum' } }),
  );
  // Entries whose match sits among characters of two UTF-16 units (and some of one unit, é, to
  // shift the window's edges by one): at least one of them puts each edge inside a pair. One
  // session each, so that every one is shown.
  const wide = ['😀', '𠀀', '🙂é', 'é😀', '𝒳𝒴𝒵'];
  let k = 0;
  for (const w of wide) {
    for (let shift = 0; shift < 4; shift++) {
      const id = `wide${(++k).toString().padStart(4, '0')}`;
      const text = 'é'.repeat(shift) + w.repeat(120) + ' zirconium ' + w.repeat(120) + 'é'.repeat(shift);
      writeFileSync(
        join(project, `${id}.jsonl`),
        line({ type: 'session', version: 3, id: `s-${id}`, timestamp: '2026-06-01T10:00:00.000Z', cwd: '/work/wide' }) +
          line({ type: 'message', id, parentId: null, timestamp: '2026-06-01T10:01:00.000Z', message: { role: 'user', content: [{ type: 'text', text }] } }),
      );
    }
  }
});

after(() => {
  for (const d of [home, cache, indexDir]) rmSync(d, { recursive: true, force: true });
});

test('search over a HOME holding a v1 and a v2 session: snippets of entries without an id in the file show their text around the word (they were blank)', () => {
  const text = search('theme');
  assert.equal(text.code, 0, text.stderr);
  const rows = text.stdout.split('\n').filter((l) => l.startsWith('  '));
  assert.ok(rows.length >= 3, text.stdout);
  for (const r of rows) {
    const m = /^ {2}(\S+) {2}(.*)$/.exec(r);
    assert.ok(m, `an entry row: ${JSON.stringify(r)}`);
    assert.match(m[2]!, /\[theme\]/i, `a snippet with the word marked: ${JSON.stringify(r)}`);
  }
  const json = search('theme', '--json').json();
  const session = json.sessions.find((s: { file: string }) => s.file.endsWith('pi-large-session.v1.head25.jsonl'));
  assert.ok(session, JSON.stringify(json));
  assert.ok(session.entries.length >= 3);
  for (const e of session.entries) {
    assert.match(e.entryId, /^[0-9a-f]{8}$/, 'the id made in memory');
    assert.match(e.snippet, /theme/i);
    assert.ok(e.highlights.length > 0, JSON.stringify(e));
    for (const [a, b] of e.highlights) assert.equal(e.snippet.slice(a, b).toLowerCase(), 'theme');
  }
  // v2: the entry without an id in the file shows its text as the others do.
  const v2 = search('molybdenum', '--json').json().sessions[0];
  assert.deepEqual(
    v2.entries.map((e: { snippet: string }) => e.snippet),
    ['hello molybdenum world', 'the hook says molybdenum', 'no id, still molybdenum'],
  );
  // A phrase is checked on the entry's text, which the v1 rows now read too.
  const phrase = search('"the theme documentation"', '--json').json();
  assert.equal(phrase.sessions.length, 1, JSON.stringify(phrase));
  assert.match(phrase.sessions[0].entries[0].snippet, /the theme documentation/);
});

test('search snippets cut among emoji and CJK beyond the BMP: no half character (U+FFFD on a terminal), the word kept and marked', () => {
  const text = search('zirconium', '--limit', '50');
  assert.equal(text.code, 0, text.stderr);
  const rows = text.stdout.split('\n').filter((l) => l.startsWith('  wide'));
  assert.equal(rows.length, 20, text.stdout);
  assert.ok(!text.stdout.includes('\ufffd'), `no U+FFFD:\n${text.stdout}`);
  for (const r of rows) assert.match(r, / \[zirconium\]/);
  // --json: every snippet whole (JSON would keep a lone surrogate as an escape).
  const json = search('zirconium', '--limit', '50', '--json').json();
  const entries = json.sessions.flatMap((s: { entries: { snippet: string }[] }) => s.entries);
  assert.equal(entries.length, 20);
  for (const e of entries) {
    assert.ok(!LONE_SURROGATE.test(e.snippet) && !e.snippet.includes('\ufffd'), JSON.stringify(e.snippet));
    assert.ok(e.snippet.startsWith('…') && e.snippet.endsWith('…') && e.snippet.includes(' zirconium'), e.snippet);
  }
});
