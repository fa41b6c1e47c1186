// Installs the real VS Code that the integration tests run in: code-server@4.100.3
// (VS Code 1.100.3 server + web workbench) into .vscode-test/, outside the project's own
// dependencies so `npm ci` stays fast and the VSIX stays small. Idempotent: does nothing
// when a complete install is already there. See /work/shared/docs/real-vscode-testing.md.
//
// Why each environment tweak (all learned the hard way on offline Debian machines):
// - npm_config_unsafe_perm: as root, code-server's postinstall refuses to run without it.
// - npm_config_yes: node-pty's postinstall calls `npx node-gyp`, and npx would prompt.
// - the ripgrep cache tarball: @vscode/ripgrep downloads `rg` from GitHub unless a tarball
//   is waiting in its cache folder; Debian's /usr/bin/rg is packed into one.
// - install scripts: npm 11 reviews dependency install scripts against `allowScripts`
//   (`npm warn install-scripts … not yet covered by allowScripts`). In npm 11.19 that review
//   is advisory unless `strict-allow-scripts` is on, and code-server's postinstall MUST run:
//   it `npm install`s lib/vscode and lib/vscode/extensions (projects we don't own) and builds
//   their native modules (node-pty, spdlog, kerberos, …). So the cache folder is a project
//   whose package.json `allowScripts` approves code-server and argon2, and the environment
//   pins `strict-allow-scripts=false` so a user-level npmrc cannot turn the nested installs'
//   warnings into errors. isInstalled() checks the built .node files, so a future npm that
//   silently skips the scripts fails here loudly instead of later in the tests.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
export const RIPGREP_CACHE_VERSION = '1.15.11';
export const RIPGREP_TARBALL = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const installDir = path.join(repoRoot, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`);
export const codeServerDir = path.join(installDir, 'node_modules', 'code-server');
export const serverMain = path.join(codeServerDir, 'lib', 'vscode', 'out', 'server-main.js');
export const chromiumPath = process.env.SESSION_LOOM_CHROMIUM ?? '/usr/bin/chromium';

/**
 * The Debian packages `npm test` needs (the README lists them; .ci/run installs the same): chromium shows the
 * workbench; zstd and sqlite3 build the deepseek-harness test inputs in the unit tests; attr checks that rewrites
 * keep extended attributes; ripgrep and the -dev
 * packages let code-server's postinstall build VS Code's native modules offline.
 */
export const APT_PACKAGES = ['chromium', 'ripgrep', 'zstd', 'sqlite3', 'attr', 'libkrb5-dev', 'libx11-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'pkg-config'];
const APT_HINT = `apt-get update && apt-get install -y ${APT_PACKAGES.join(' ')}`;

/**
 * server-main.js is in the tarball itself; the postinstall's products are what prove
 * the install finished (a killed install leaves server-main.js without them).
 */
export function isInstalled() {
  const vscodeDir = path.join(codeServerDir, 'lib', 'vscode');
  return [
    serverMain,
    path.join(vscodeDir, 'node_modules.asar'),
    path.join(vscodeDir, 'node_modules', 'node-pty', 'build', 'Release', 'pty.node'),
    path.join(vscodeDir, 'node_modules', '@vscode', 'spdlog', 'build', 'Release', 'spdlog.node'),
    path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'),
  ].every((f) => existsSync(f));
}

/** Exits with a clear message when Chromium is missing; the harness needs it to show the workbench. */
export function requireChromium() {
  if (!existsSync(chromiumPath)) {
    console.error(
      `[setup] Chromium not found at ${chromiumPath}. The integration tests drive the VS Code ` +
        `workbench in headless Chromium. Install it with:\n    ${APT_HINT}\n` +
        `(or set SESSION_LOOM_CHROMIUM to another Chromium binary).`,
    );
    process.exit(1);
  }
}

function prepareRipgrepCache() {
  const cacheDir = path.join(os.tmpdir(), `vscode-ripgrep-cache-${RIPGREP_CACHE_VERSION}`);
  const tarball = path.join(cacheDir, RIPGREP_TARBALL);
  if (existsSync(tarball)) return;
  const rg = '/usr/bin/rg';
  if (!existsSync(rg)) {
    console.error(`[setup] ${rg} not found; @vscode/ripgrep would try to download it from GitHub. Install it with:\n    ${APT_HINT}`);
    process.exit(1);
  }
  mkdirSync(cacheDir, { recursive: true });
  // The postinstall extracts the tarball and expects `rg` at its top level.
  execFileSync('tar', ['-czf', tarball, '-C', path.dirname(rg), path.basename(rg)]);
  console.log(`[setup] ripgrep cache: ${tarball} (from ${rg})`);
}

async function install() {
  if (Number(process.versions.node.split('.')[0]) !== 20) {
    console.error(`[setup] code-server ${CODE_SERVER_VERSION} needs Node 20; this is Node ${process.versions.node}.`);
    process.exit(1);
  }
  prepareRipgrepCache();
  // Start clean: a half-finished install would make npm skip the postinstall.
  rmSync(installDir, { recursive: true, force: true });
  mkdirSync(installDir, { recursive: true });
  writeFileSync(
    path.join(installDir, 'package.json'),
    JSON.stringify(
      {
        name: 'session-loom-vscode-test',
        private: true,
        description: 'Cache folder for the integration tests: a pinned code-server (VS Code server + web workbench).',
        dependencies: { 'code-server': CODE_SERVER_VERSION },
        allowScripts: { 'code-server': true, argon2: true },
      },
      null,
      2,
    ) + '\n',
  );
  const logFile = path.join(installDir, 'install.log');
  console.log(`[setup] installing code-server@${CODE_SERVER_VERSION} into ${path.relative(repoRoot, installDir)} (1-3 minutes; log: ${logFile})`);
  const started = Date.now();
  const env = {
    ...process.env,
    npm_config_unsafe_perm: 'true',
    npm_config_yes: 'true',
    npm_config_foreground_scripts: 'true',
    npm_config_strict_allow_scripts: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
  };
  const log = createWriteStream(logFile);
  const code = await new Promise((resolve) => {
    const child = spawn('npm', ['install', '--no-save', '--no-package-lock'], { cwd: installDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    // A heartbeat so CI logs show the install is alive.
    const beat = setInterval(() => console.log(`[setup] … still installing (${Math.round((Date.now() - started) / 1000)}s)`), 30_000);
    child.on('close', (c) => {
      clearInterval(beat);
      resolve(c ?? 1);
    });
  });
  await new Promise((r) => log.end(r));
  const seconds = Math.round((Date.now() - started) / 1000);
  if (code !== 0 || !isInstalled()) {
    const tail = readFileSync(logFile, 'utf8').split('\n').slice(-60).join('\n');
    console.error(`${tail}\n[setup] code-server install failed after ${seconds}s (npm exit ${code}). Full log: ${logFile}`);
    console.error(`[setup] Native modules need: ${APT_HINT}`);
    process.exit(1);
  }
  console.log(`[setup] code-server@${CODE_SERVER_VERSION} installed in ${seconds}s`);
}

/**
 * On a fresh Debian machine the README's commands must work as they are: when we run as root
 * and a package the harness needs is missing, install it with apt (the one network source,
 * besides npm, these machines reach). Anyone else gets the exact command to run.
 */
function ensureDebianPackages() {
  if (process.env.SESSION_LOOM_SKIP_APT === '1' || process.platform !== 'linux') return;
  let missing;
  try {
    missing = APT_PACKAGES.filter((p) => {
      try {
        return !execFileSync('dpkg-query', ['-W', '-f=${Status}', p], { stdio: ['ignore', 'pipe', 'ignore'] })
          .toString()
          .includes('install ok installed');
      } catch {
        return true;
      }
    });
  } catch {
    return; // not a dpkg system: requireChromium() explains what is needed
  }
  if (missing.length === 0) return;
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    console.error(`[setup] missing Debian packages: ${missing.join(' ')}. Install them with:\n    sudo ${APT_HINT}`);
    return;
  }
  console.log(`[setup] installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...APT_PACKAGES], { stdio: 'inherit', env });
}

async function main() {
  ensureDebianPackages();
  requireChromium();
  if (isInstalled()) {
    console.log(`[setup] code-server@${CODE_SERVER_VERSION} already installed in ${path.relative(repoRoot, installDir)}`);
    return;
  }
  await install();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
