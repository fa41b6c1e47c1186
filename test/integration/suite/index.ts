// The mocha entry the workbench loads into the extension host (bundled by esbuild.mjs to
// out/test/suite/index.js, with mocha and vscode left external). Used by both runners:
// run.mjs (code-server + Chromium, offline) and run-electron.mjs (@vscode/test-electron).
import Mocha from 'mocha';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import { EXTENSION_ID } from './util';

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  const grep = process.env.SESSION_LOOM_TEST_GREP;
  if (grep) mocha.grep(grep);

  // In a bundle there are no test files for mocha to load: install its globals
  // (describe, it, before, …) by hand, then evaluate the suites; esbuild turns these
  // dynamic imports into lazy module initialisers inside the bundle. A new suite file is
  // one more line here.
  mocha.suite.emit('pre-require', globalThis, 'session-loom-integration', mocha);
  // Each test opens editors as a new user would: not where an earlier test left a session (the
  // editor keeps the user's place per file across its tabs; a test of that keeps it within itself).
  mocha.suite.beforeEach(() => {
    const ext = vscode.extensions.getExtension<SessionLoomApi>(EXTENSION_ID);
    if (ext?.isActive) ext.exports.editor.forgetPlaces();
  });
  await import('./activation.test.js');
  await import('./sessions.test.js');
  await import('./editor.test.js');
  await import('./handoff.test.js');
  await import('./rowClicks.test.js');
  await import('./editorTreeLayout.test.js');
  await import('./viewMenus.test.js');
  await import('./viewNumbers.test.js');
  await import('./sessionsBig.test.js');
  await import('./polish.test.js');
  await import('./searchHistory.test.js');
  await import('./dsh.test.js');
  await import('./agentSessions.test.js');
  await import('./share.test.js');
  await import('./foreignAgents.test.js');
  await import('./agentSummaryLive.test.js');

  const stats = await new Promise<Mocha.Stats>((resolve) => {
    const runner = mocha.run(() => resolve(runner.stats ?? { passes: 0, failures: 1, pending: 0 } as Mocha.Stats));
  });
  const skipped = stats.pending > 0 ? `, ${stats.pending} skipped` : '';
  console.log(`${stats.passes} passed, ${stats.failures} failed${skipped}`);
  if (stats.failures > 0) throw new Error(`${stats.failures} integration test(s) failed`);
}
