// Runs the mocha integration suite (out/test/suite/index.js) inside a real VS Code 1.100.3:
// the code-server build of the VS Code server runs the Node extension host, headless
// Chromium shows the workbench. Offline; see /work/shared/docs/real-vscode-testing.md.
//
// Environment:
//   SESSION_LOOM_TEST_TIMEOUT_MS   give up after this long (default 15 minutes)
//   SESSION_LOOM_TEST_GREP         only run tests whose full title matches (mocha --grep)
//   SESSION_LOOM_PERF_1M=1         also open a generated 1M-entry (459 MB) session, for the figures
//   SESSION_LOOM_KEEP_TMP=1        keep the temp folder (fake home, workspace, server data)
//
// The extension host gets (through the server's environment):
//   HOME=<fake home>                 so os.homedir() points at the fixture sessions
//   SESSION_LOOM_TEST_HOME           the same path, for assertions
//   SESSION_LOOM_FIXTURES            test/fixtures
//   SESSION_LOOM_HARNESS_PORT        the Playwright API of harness.mjs
//   SESSION_LOOM_SCREENSHOTS         where screenshots land (test-results/screenshots)
//   SESSION_LOOM_SEARCH_BATCH_BYTES  the search index's first build commits every 1 MB (64 MB in
//                                    use), so a test sees results come in between its batches
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { explainLine, formatAutomationLog, isNoise, launchBrowser, startCodeServer } from './codeServer.mjs';
import { startHarness } from './harness.mjs';
import { isInstalled, repoRoot, requireChromium } from './setup.mjs';
import { buildTestHome, fixturesDir } from './workspace.mjs';

const timeoutMs = Number(process.env.SESSION_LOOM_TEST_TIMEOUT_MS ?? 15 * 60_000);
const testsEntry = path.join(repoRoot, 'out', 'test', 'suite', 'index.js');
const resultsDir = path.join(repoRoot, 'test-results');
const screenshotsDir = path.join(resultsDir, 'screenshots');
const logsDir = path.join(resultsDir, 'integration');

requireChromium();
if (!isInstalled()) {
  console.error('[run] code-server is not installed: run `node test/integration/setup.mjs` first (npm run test:integration does).');
  process.exit(1);
}
if (!existsSync(testsEntry)) {
  console.error(`[run] ${path.relative(repoRoot, testsEntry)} is missing: run \`node esbuild.mjs\` first.`);
  process.exit(1);
}

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'session-loom-it-'));
mkdirSync(logsDir, { recursive: true });

/** @type {(() => Promise<void>)[]} cleanup steps, run once */
const cleanups = [];
let cleaning;
let interrupted = false;
function cleanup() {
  cleaning ??= (async () => {
    // In creation order: the browser goes first, so it does not log the server's departure.
    for (const step of cleanups) {
      try {
        await step();
      } catch (err) {
        console.error(`[run] cleanup: ${err instanceof Error ? err.message : err}`);
      }
    }
    if (process.env.SESSION_LOOM_KEEP_TMP === '1') console.log(`[run] kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`[run] ${signal}: stopping the server and the browser`);
    void cleanup().then(() => process.exit(130));
  });
}

async function main() {
  const world = buildTestHome(tmp);
  console.log(`[run] fake home ${world.home} (${Object.values(world.projects).flat().length} sessions in ${Object.keys(world.projects).length} projects)`);

  const { browser, page } = await launchBrowser();
  cleanups.push(() => browser.close());
  const harness = await startHarness(page, { screenshotsDir });
  cleanups.push(() => harness.close());

  const server = await startCodeServer({
    dataDir: tmp,
    home: world.home,
    logFile: path.join(logsDir, 'server.log'),
    onSpawn: (stop) => cleanups.push(stop),
    env: {
      SESSION_LOOM_TEST_HOME: world.home,
      SESSION_LOOM_FIXTURES: fixturesDir,
      SESSION_LOOM_HARNESS_PORT: String(harness.port),
      SESSION_LOOM_SCREENSHOTS: screenshotsDir,
      SESSION_LOOM_SEARCH_BATCH_BYTES: String(1024 * 1024),
      ...(process.env.SESSION_LOOM_TEST_GREP ? { SESSION_LOOM_TEST_GREP: process.env.SESSION_LOOM_TEST_GREP } : {}),
      ...(process.env.SESSION_LOOM_PERF_1M ? { SESSION_LOOM_PERF_1M: process.env.SESSION_LOOM_PERF_1M } : {}),
    },
  });
  console.log(`[run] VS Code server on ${server.base} (pid ${server.pid}), harness on 127.0.0.1:${harness.port} [${elapsed()}]`);

  // Everything the workbench logs goes to a file; stdout gets the test output and real errors.
  const workbenchLog = createWriteStream(path.join(logsDir, 'workbench.log'));
  cleanups.push(() => new Promise((r) => workbenchLog.end(r)));
  let finished = false;
  const result = new Promise((resolve) => {
    void page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = formatAutomationLog(args);
      workbenchLog.write(`${type}\t${line}\n`);
      if (finished || !line || isNoise(line)) return;
      const shown = explainLine(line);
      if (shown !== null) (type === 'error' && shown === line ? console.error : console.log)(shown);
    });
    // The workbench calls this when the test entry's run() settles (0 = resolved). Newer
    // workbenches pass their log files too; keep them for post-mortems.
    void page.exposeFunction('codeAutomationExit', (code, logs) => {
      if (Array.isArray(logs)) {
        for (const { relativePath, contents } of logs) {
          if (typeof relativePath !== 'string') continue;
          const file = path.join(logsDir, 'workbench', relativePath);
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, contents ?? '');
        }
      }
      resolve({ code: Number(code) });
    });
    server.exited.then(({ code, signal }) => resolve({ code: 1, reason: `the VS Code server exited early (code ${code}, signal ${signal})` }));
    setTimeout(() => resolve({ code: 1, reason: `timed out after ${Math.round(timeoutMs / 1000)}s (SESSION_LOOM_TEST_TIMEOUT_MS)` }), timeoutMs).unref();
  });
  page.on('pageerror', (err) => {
    if (!isNoise(err.message)) console.error(`[page error] ${err.message}`);
  });

  const url = server.workbenchUrl({
    folder: world.workspaceDir,
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: testsEntry,
  });
  await page.goto(url);
  const { code, reason } = await result;
  finished = true;
  if (interrupted) return 130;
  if (reason) {
    console.error(`[run] giving up: ${reason}. Server log: ${path.relative(repoRoot, path.join(logsDir, 'server.log'))}`);
    await page.screenshot({ path: path.join(screenshotsDir, 'failure-last-state.png') }).catch(() => {});
  }
  console.log(`[run] integration tests ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${elapsed()}`);
  return code;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  console.error(`[run] ${err instanceof Error ? err.stack : err}`);
} finally {
  await cleanup();
}
process.exit(exitCode);
