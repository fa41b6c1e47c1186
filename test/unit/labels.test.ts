// Row labels at the default sidebar width (issue 14, point 8): the words that tell rows apart
// first. A project is named by the last part of its path; the rest goes to the description.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSessionInfo } from '../../src/core/discovery/discovery';
import { isMeaningfulPrompt } from '../../src/core/discovery/prompts';
import { test } from 'node:test';
import { projectLabelParts } from '../../src/extension/sessions/labels';

test('a project row shows its last path part, with the folder it is in (home as ~) after it', () => {
  assert.deepEqual(projectLabelParts('/Users/badlogic/workspaces/pi-mono', '/home/dev'), { name: 'pi-mono', where: '/Users/badlogic/workspaces' });
  assert.deepEqual(projectLabelParts('/home/dev/projects/weather-cli/', '/home/dev'), { name: 'weather-cli', where: '~/projects' });
  assert.deepEqual(projectLabelParts('/home/dev/notes', '/home/dev'), { name: 'notes', where: '~' });
  assert.deepEqual(projectLabelParts('/demo', '/home/dev'), { name: 'demo', where: '/' });
  assert.deepEqual(projectLabelParts('/', '/home/dev'), { name: '/', where: '' });
  assert.deepEqual(projectLabelParts('--not-decodable--', '/home/dev'), { name: '--not-decodable--', where: '' });
});

test('a bare slash command or a bare id does not name a session; anything else does', () => {
  for (const p of ['/mode', '/them', '/model claude-opus-4-5', '  /compact  ', '2638daee-0588-4baa-bd33-68b4c002818e', '5d1e0c0ffee00001', '']) assert.equal(isMeaningfulPrompt(p), false, p);
  for (const p of ['ls', 'Fix the flaky timezone test', '/compact but keep the parser notes and the failing test names', '/home/dev/x.ts: why does this fail?', '/mode\nthen read the theme docs']) {
    assert.equal(isMeaningfulPrompt(p), true, p);
  }
});

test('an untitled session is named by its first prompt that says something, also beyond the 4 KB prefix', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-prompt-'));
  const file = join(dir, 's.jsonl');
  const msg = (id: string, role: string, text: string) => JSON.stringify({ type: 'message', id, parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role, content: [{ type: 'text', text }] } });
  writeFileSync(
    file,
    [JSON.stringify({ type: 'session', version: 3, id: 'p1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' }), msg('a', 'user', '/mode'), msg('b', 'assistant', 'x'.repeat(5000)), msg('c', 'user', 'Read the theme docs in full'), ''].join('\n'),
  );
  const info = (await readSessionInfo(file))!;
  assert.equal(info.firstUserMessage, '/mode');
  assert.equal(info.firstPrompt, 'Read the theme docs in full');
});
