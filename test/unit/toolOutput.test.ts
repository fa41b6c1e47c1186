// Tool results in a text editor of their own (issue 13): the diff an `edit` result carries, and the
// language of a tool's output chosen from what the tool was asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { outputDocName, resultDiff } from '../../src/core/compare/toolOutput';
import { fixtureFiles } from '../helpers/fixtures';

test("the agent's numbered edit diff (details.diff): kept lines on both sides, removed left, added right, skipped lines as ⋯", () => {
  const d = resultDiff(' 1|...\n 3|# Title\n-4|old line\n+4|new line\n+5|another\n 6|tail');
  assert.deepEqual(d, { before: '⋯\n# Title\nold line\ntail', after: '⋯\n# Title\nnew line\nanother\ntail' });
});

test('a unified diff with two hunks; text that is no diff gives null', () => {
  const d = resultDiff('--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n@@ -10,1 +10,1 @@\n-y\n+z\n');
  assert.deepEqual(d, { before: 'a\nb\n⋯\ny', after: 'a\nc\n⋯\nz' });
  assert.equal(resultDiff('just some output\nof a command'), null);
  assert.equal(resultDiff(' 1|only\n 2|context'), null, 'no change, no diff');
});

test('every edit result with details.diff in the real fixtures reads as a diff whose sides differ (spec silent: matches the agent’s numbered format)', () => {
  let n = 0;
  for (const line of fixtureFiles('real-v3').flatMap((f) => readFileSync(f, 'utf8').split('\n'))) {
    if (!line.includes('"details":{"diff"')) continue;
    const m = (JSON.parse(line) as { message: { details: { diff: string } } }).message;
    const d = resultDiff(m.details.diff);
    assert.ok(d && d.before !== d.after, line.slice(0, 120));
    n++;
  }
  assert.ok(n >= 8, `${n} edit results with a diff`);
});

test('the output document is named for its language: the file a read showed, .diff for git diff, else .log', () => {
  assert.equal(outputDocName('read', { path: '/w/src/main.ts' }, null), 'main.ts');
  assert.equal(outputDocName('bash', { command: 'git diff HEAD~1' }, null), 'output.diff');
  assert.equal(outputDocName('bash', { command: 'cat package.json' }, null), 'package.json');
  assert.equal(outputDocName('bash', { command: 'cat a.json | jq .' }, null), 'output.log', 'a pipeline prints something else');
  assert.equal(outputDocName(null, null, 'sed -n 1,40p src/x.py'), 'x.py');
  assert.equal(outputDocName('bash', { command: 'npm test' }, null), 'output.log');
  assert.equal(outputDocName('read', { path: '/w/Makefile' }, null), 'output.log');
});
