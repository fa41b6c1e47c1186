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

// Issue 21 §7: what the test output says of the lines it expects — npm's EBADENGINE warning of the SQLite WASM
// package and VS Code's extension-host watchdog — is one explaining line each; anything else passes untouched.
test('CI turns the expected EBADENGINE block into one explaining line and keeps every other npm line', () => {
  const block = (pkg: string) =>
    ['npm warn EBADENGINE Unsupported engine {', `npm warn EBADENGINE   package: '${pkg}',`, "npm warn EBADENGINE   required: { node: '>=22' },", 'npm warn EBADENGINE }'].join('\n');
  const input = `${block('@sqlite.org/sqlite-wasm@3.54.1-build1')}\n${block('other@1.0.0')}\nadded 497 packages in 18s\n`;
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'quiet-npm.mjs')], { input, encoding: 'utf8' });
  assert.equal(run.status, 0);
  const lines = run.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^npm ci: @sqlite\.org\/sqlite-wasm asks for Node >= 22 \(its browser builds\); the Node build Session Loom loads runs on Node 20/);
  assert.deepEqual(lines.slice(1), [...block('other@1.0.0').split('\n'), 'added 497 packages in 18s']);
});

test("the integration run explains VS Code's unresponsive-host line once and hides the workbench's start-up timings", async () => {
  const { explainLine, isNoise } = (await import(pathToFileURL(join(root, 'test', 'integration', 'codeServer.mjs')).href)) as {
    explainLine: (line: string) => string | null;
    isNoise: (line: string) => boolean;
  };
  assert.match(explainLine('Extension host (Remote) is unresponsive.') ?? '', /^\[vscode\] VS Code's watchdog found the extension host busy/);
  assert.equal(explainLine('Extension host (Remote) is responsive.'), null);
  assert.equal(explainLine('  ✔ a test'), '  ✔ a test');
  assert.equal(isNoise("Creation of workbench contribution 'workbench.contrib.remoteStatusIndicator' took 21ms."), true);
  assert.equal(isNoise('Error: something real'), false);
});
