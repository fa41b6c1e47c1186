// Starts the VS Code server from the code-server install (see setup.mjs) and opens its
// workbench in headless Chromium. Shared by run.mjs (tests) and demo.mjs (a live demo).
// The recipe and its reasons are in /work/shared/docs/real-vscode-testing.md.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { format } from 'node:util';
import { chromium } from 'playwright-core';
import { chromiumPath, serverMain } from './setup.mjs';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A free TCP port on 127.0.0.1 (the tiny race until the server binds it is acceptable here). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The environment of the caller without what a surrounding VS Code injects (it would confuse the server). */
function cleanEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  }
  return env;
}

/**
 * Starts server-main.js. `home` becomes HOME of the server and therefore of the extension
 * host it spawns, so the extension's os.homedir() points at the fake home.
 * Resolves once the server answers HTTP. `onSpawn(stop)` is called as soon as the process
 * exists, so a caller interrupted during startup can still stop it.
 */
export async function startCodeServer({ dataDir, home, env = {}, port, logFile, host = '127.0.0.1', onSpawn }) {
  port ??= await freePort();
  const serverDataDir = path.join(dataDir, 'server-data');
  const userDataDir = path.join(dataDir, 'user-data');
  mkdirSync(serverDataDir, { recursive: true });
  mkdirSync(userDataDir, { recursive: true });
  mkdirSync(path.dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  const args = [
    serverMain,
    '--host', host,
    '--port', String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--disable-workspace-trust',
    '--server-data-dir', serverDataDir,
    '--user-data-dir', userDataDir,
  ];
  // detached: the server gets its own process group, so stop() also ends the extension
  // host and file watchers it spawned.
  const child = spawn(process.execPath, args, {
    env: { ...cleanEnv(), ...(home ? { HOME: home } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  let exited = false;
  const exitPromise = new Promise((resolve) => child.on('exit', (code, signal) => {
    exited = true;
    resolve({ code, signal });
  }));

  const stop = async () => {
    if (!exited) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 3000);
      await exitPromise;
      clearTimeout(timer);
    }
    await new Promise((r) => log.end(r));
  };

  onSpawn?.(stop);

  const base = `http://${host}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`VS Code server exited during startup; see ${logFile}`);
    try {
      await fetch(`${base}/version`); // any answer means it listens
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`VS Code server did not answer on ${base} within 60s; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  /** The workbench URL: folder to open, plus the payload the workbench reads dev/test paths from. */
  const workbenchUrl = ({ folder, extensionDevelopmentPath, extensionTestsPath }) => {
    const remote = (p) => `vscode-remote://${host}:${port}${p}`;
    const payload = [];
    if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
    if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
    payload.push(['skipWelcome', 'true']);
    const q = new URLSearchParams();
    if (folder) q.set('folder', folder);
    q.set('payload', JSON.stringify(payload));
    return `${base}/?${q.toString()}`;
  };

  return { port, base, pid: child.pid, workbenchUrl, stop, exited: exitPromise };
}

/**
 * Headless Chromium with a page sized like a small laptop screen. Playwright's own signal
 * handlers are off: on Ctrl-C they would kill the browser and exit at once, before the
 * caller stops the VS Code server.
 */
export async function launchBrowser({ width = 1400, height = 900 } = {}) {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  return { browser, page };
}

/** Lines every run prints that mean nothing for us (doc: "Noise to expect and ignore"). */
const NOISE = [
  /vsda/i,
  /\[Service Worker\]|service ?worker/i,
  /ENOTFOUND/,
  /marketplace|gallery|open-vsx/i,
  /Failed to load resource: the server responded with a status of 404/,
  // the workbench's own connection chatter
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket \(/,
  /^\[remote-connection\]/,
  /^Updating additional builtin extensions cache/,
  /^ChatSessionStore:/,
  /An iframe which has both allow-scripts and allow-same-origin/,
  // the workbench's start-up timings (kept in workbench.log)
  /^Creation of workbench contribution '[^']*' took \d+ms\.$/,
];

/**
 * Lines VS Code prints that look alarming in a test run but are expected here: each is printed once with what it
 * means instead of as it is (the whole log keeps the original in workbench.log).
 */
const EXPLAINED = [
  [
    /^Extension host \(Remote\) is unresponsive\.$/,
    "[vscode] VS Code's watchdog found the extension host busy for a moment (expected on a loaded 2-core machine during the 100k/1M-entry tests; the perf suite reports which stalls are ours)",
  ],
  [/^Extension host \(Remote\) is responsive\.$/, null],
];

/** The line to print for `line`: the line itself, an explanation of it, or null to print nothing. */
export function explainLine(line) {
  for (const [re, explanation] of EXPLAINED) if (re.test(line)) return explanation;
  return line;
}

export function isNoise(line) {
  return NOISE.some((re) => re.test(line));
}

/**
 * Turns codeAutomationLog(type, args) into one plain line: the args are console.log
 * arguments (mocha's reporter sends printf-style formats such as `"    ✔ %s", title`).
 */
export function formatAutomationLog(args) {
  return format(...(Array.isArray(args) ? args : [args])).trimEnd();
}
