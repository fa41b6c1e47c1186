// The same mocha suite (out/test/suite/index.js) in desktop VS Code 1.100.3 through
// @vscode/test-electron, for machines that can download VS Code (it fails offline; use
// run.mjs there). Tests that need the Playwright harness (screenshots, UI clicks) skip.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { buildTestHome, fixturesDir, repoRoot } from './workspace.mjs';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'session-loom-electron-'));
let exitCode = 1;
try {
  const world = buildTestHome(tmp);
  exitCode = await runTests({
    version: '1.100.3',
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: path.join(repoRoot, 'out', 'test', 'suite', 'index.js'),
    // os.homedir() reads HOME (USERPROFILE on Windows); VS Code's own state stays in the
    // temp user-data and extensions dirs below, so the fake home changes nothing else.
    extensionTestsEnv: {
      HOME: world.home,
      USERPROFILE: world.home,
      SESSION_LOOM_TEST_HOME: world.home,
      SESSION_LOOM_FIXTURES: fixturesDir,
      ...(process.env.SESSION_LOOM_TEST_GREP ? { SESSION_LOOM_TEST_GREP: process.env.SESSION_LOOM_TEST_GREP } : {}),
    },
    launchArgs: [
      world.workspaceDir,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
      `--user-data-dir=${path.join(tmp, 'user-data')}`,
      `--extensions-dir=${path.join(tmp, 'extensions')}`,
    ],
  });
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`[run-electron] ${message}`);
  if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|download/i.test(message)) {
    console.error('[run-electron] VS Code could not be downloaded. Offline, run the suite in code-server instead: npm run test:integration');
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(exitCode);
