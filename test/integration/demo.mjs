// `npm run demo`: a VS Code with Session Loom loaded from this checkout, on the demo world of
// samples/demo/ (realistic sessions, built fresh into .vscode-test/demo/ on every start).
//
// - With `code` on PATH: opens desktop VS Code in a separate profile (its own user-data
//   dir, other extensions disabled) whose user settings point sessionLoom.sessionRoots at
//   the demo sessions. (The setting is machine-scoped, so VS Code ignores it in workspace
//   settings, and changing HOME would move the user's real profile.)
// - Otherwise (or with --web): starts the VS Code server from code-server with HOME set to
//   the demo home and prints a localhost URL; runs until Ctrl-C.
//
// --check: web mode, but instead of waiting, load the URL in headless Chromium, use the demo as a
// new user would (demoTour.mjs), save test-results/screenshots/demo.png and exit (0 = the view
// lists the demo's own projects first and its main session opens, with its images).
// --screenshots: the same, then take the README's screenshots into docs/screenshots/.
// SESSION_LOOM_DEMO_PORT picks the port (default: a free one).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser, startCodeServer } from './codeServer.mjs';
import { isInstalled, repoRoot, requireChromium } from './setup.mjs';
import { buildDemoHome } from '../../samples/demo/world.mjs';
import { checkDemo, takeReadmeScreenshots } from './demoTour.mjs';

const screenshots = process.argv.includes('--screenshots');
const check = screenshots || process.argv.includes('--check');
const web = check || process.argv.includes('--web') || !hasCode();
const demoDir = path.join(repoRoot, '.vscode-test', 'demo');

function hasCode() {
  return spawnSync(process.platform === 'win32' ? 'where' : 'which', ['code'], { stdio: 'ignore' }).status === 0;
}

function buildDemo() {
  rmSync(demoDir, { recursive: true, force: true });
  const world = buildDemoHome(demoDir);
  const count = Object.values(world.projects).flat().length;
  console.log(`[demo] ${count} sessions in ${Object.keys(world.projects).length} projects under ${world.sessionsDir}`);
  return world;
}

function desktop(world) {
  const userData = path.join(demoDir, 'user-data');
  mkdirSync(path.join(userData, 'User'), { recursive: true });
  writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify({ 'sessionLoom.sessionRoots': [world.sessionsDir], 'sessionLoom.blobStore': world.blobsDir }, null, 2) + '\n',
  );
  const args = ['--new-window', `--extensionDevelopmentPath=${repoRoot}`, `--user-data-dir=${userData}`, '--disable-extensions', world.workspaceDir];
  console.log(`[demo] code ${args.join(' ')}`);
  const child = spawn('code', args, { stdio: 'inherit', shell: process.platform === 'win32' });
  child.on('exit', (code) => process.exit(code ?? 0));
}

async function serve(world) {
  requireChromium();
  if (!isInstalled()) {
    console.error('[demo] code-server is not installed: run `node test/integration/setup.mjs` (npm run demo does).');
    process.exit(1);
  }
  const port = process.env.SESSION_LOOM_DEMO_PORT ? Number(process.env.SESSION_LOOM_DEMO_PORT) : undefined;
  const server = await startCodeServer({
    dataDir: path.join(demoDir, 'server'),
    home: world.home,
    port,
    logFile: path.join(demoDir, 'server.log'),
  });
  const url = server.workbenchUrl({ folder: world.workspaceDir, extensionDevelopmentPath: repoRoot });
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => void stop(0));
  void server.exited.then(({ code }) => {
    if (!stopping) {
      console.error(`[demo] the VS Code server exited (code ${code}); log: ${path.join(demoDir, 'server.log')}`);
      process.exit(1);
    }
  });

  if (!check) {
    console.log(`\nSession Loom demo (VS Code 1.100.3 in the browser) — open:\n\n  ${url}\n\nPress Ctrl-C to stop.`);
    return;
  }
  await stop(await checkInBrowser(url, world));
}

/** Loads the demo like a user would (demoTour.mjs); with --screenshots, takes the README's. */
async function checkInBrowser(url, world) {
  const { browser, page } = await launchBrowser();
  const shot = path.join(repoRoot, 'test-results', 'screenshots', 'demo.png');
  mkdirSync(path.dirname(shot), { recursive: true });
  try {
    await page.goto(url);
    await checkDemo(page);
    await page.screenshot({ path: shot });
    console.log(`[demo] check passed: the Sessions view lists the demo's projects and its main session opens with its images (${path.relative(repoRoot, shot)})`);
    if (screenshots) await takeReadmeScreenshots(page, world, path.join(repoRoot, 'docs', 'screenshots'));
    return 0;
  } catch (err) {
    await page.screenshot({ path: shot }).catch(() => {});
    console.error(`[demo] check failed: ${err instanceof Error ? err.message : err} (${path.relative(repoRoot, shot)})`);
    return 1;
  } finally {
    await browser.close();
  }
}

const world = buildDemo();
if (web) await serve(world);
else desktop(world);
