// What Session Loom calls a session where it chooses the name (issue 25: tabs, dialogs,
// notifications, export names): its title, else its first prompt, else its file name.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readSessionName, sessionFileStem, sessionName } from '../../src/core/sessionName';
import { REPO_ROOT } from '../helpers/fixtures';

const fixtures = join(REPO_ROOT, 'test', 'fixtures');

test('a session is named by its title, else its first prompt on one line, else its file name', () => {
  assert.equal(sessionName({ title: 'Fix the parser', firstPrompt: 'ignored', fileName: 'a.jsonl' }), 'Fix the parser');
  assert.equal(sessionName({ title: null, firstPrompt: 'do you know\n\nhow to create a custom tool?', fileName: 'a.jsonl' }), 'do you know how to create a custom tool?');
  assert.equal(sessionName({ title: null, firstPrompt: null, fileName: 'session.jsonl' }), 'session.jsonl');
  assert.equal(sessionName({ title: '   ', firstPrompt: null, fileName: 'session.jsonl' }), 'session.jsonl', 'a blank title names nothing');
  assert.equal(sessionName({ title: 'x'.repeat(100), firstPrompt: null, fileName: 'f' }, 20), `${'x'.repeat(19)}…`);
});

test('an export is named after the session: letters and digits of any script kept, accents dropped, the rest one dash', () => {
  assert.equal(sessionFileStem({ title: 'Add --json to `report`!', firstPrompt: null, fileName: 'f.jsonl' }), 'Add-json-to-report');
  assert.equal(sessionFileStem({ title: 'Élan vital: café', firstPrompt: null, fileName: 'f.jsonl' }), 'Elan-vital-cafe');
  assert.equal(sessionFileStem({ title: 'agent native ide 들이 많아지고', firstPrompt: null, fileName: 'f.jsonl' }), 'agent-native-ide-들이-많아지고');
  assert.equal(sessionFileStem({ title: '../../etc/passwd', firstPrompt: null, fileName: 'f.jsonl' }), 'etc-passwd', 'never a path');
  assert.equal(sessionFileStem({ title: '!!!', firstPrompt: null, fileName: '2026-03-01T09-00-00-000Z_abc.jsonl' }), '2026-03-01T09-00-00-000Z_abc', 'nothing left: the file name');
  assert.ok(sessionFileStem({ title: 'word '.repeat(40), firstPrompt: null, fileName: 'f' }).length <= 48);
  assert.doesNotMatch(sessionFileStem({ title: 'word '.repeat(40), firstPrompt: null, fileName: 'f' }), /-$/, 'no dash left at the cut');
});

test('read from a real session file: the first prompt of an untitled pi session, the header title once set', async () => {
  const name = await readSessionName(join(fixtures, 'upstream-full', 'pi-session.jsonl'));
  assert.match(name, /^do you know how to create a custom tool\?/);
  const dir = mkdtempSync(join(tmpdir(), 'loom-name-'));
  const titled = join(dir, 'session.jsonl');
  copyFileSync(join(fixtures, 'real-v3', 'gjc-04-awesome-agent-ide.jsonl'), titled);
  assert.match(await readSessionName(titled), /^cmux, superset, orca/);
  writeFileSync(titled, '{"type":"session","version":3,"id":"t1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","title":"IDE survey"}\n');
  assert.equal(await readSessionName(titled), 'IDE survey');
  assert.equal(await readSessionName(join(dir, 'missing.jsonl')), 'missing.jsonl', 'an unreadable file: its name');
});
