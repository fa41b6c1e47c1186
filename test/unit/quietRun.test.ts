// A clean `npm test` prints no warnings it could fix (issue 14, point 9). Node warns when a test
// leaves a FileHandle for the garbage collector to close (DEP0137); the manager tests used to
// leave one per session manager they opened. The suite runs in a child process that collects
// garbage before it exits, so a leaked handle is reported every time, not only when the
// collector happened to run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const root = resolve(__dirname, '..', '..');

test('the session manager tests close every file handle they open (no DEP0137 warning)', () => {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--import', pathToFileURL(join(root, 'test', 'helpers', 'gcOnExit.mjs')).href, join(root, 'test', 'unit', 'manager.test.ts')],
    { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  assert.equal(run.status, 0, run.stdout.slice(-2000) + run.stderr.slice(-2000));
  assert.doesNotMatch(run.stderr, /Closing file descriptor \d+ on garbage collection|DEP0137/);
});
