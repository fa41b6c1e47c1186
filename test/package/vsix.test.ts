// What the VSIX ships: exactly the bundles, the codicons, the media and the documents.
// Builds production into dist/ (the shape `npm run package` ships), lists with vsce, then
// restores the development build the other suites use.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

const root = resolve(__dirname, '..', '..');
const run = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('VSIX contents (vsce ls)', () => {
  let files: string[] = [];

  before(() => {
    // A clean dist: a stale .map from a development build must not reach the listing.
    rmSync(join(root, 'dist'), { recursive: true, force: true });
    run(process.execPath, ['esbuild.mjs', '--production']);
    const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
    files = run(process.execPath, [vsce, 'ls', '--no-dependencies'])
      .split('\n')
      .map((l) => l.trim().replace(/\\/g, '/'))
      .filter((l) => l !== '');
  });

  after(() => {
    run(process.execPath, ['esbuild.mjs']);
  });

  const required = [
    'package.json',
    // The manifest's strings (%key% references in package.json) resolve from here.
    'package.nls.json',
    // The runtime strings (vscode.l10n.t) resolve from here (package.json "l10n": "./l10n").
    'l10n/bundle.l10n.json',
    'README.md',
    'CHANGELOG.md',
    'LICENSE',
    'dist/extension.js',
    'dist/cli.js',
    // The CLI's bundle, which dist/cli.js runs through V8's code cache (src/cli/launch.ts).
    'dist/cliMain.js',
    // The thread sessions are read and held in (issue 11), started beside dist/extension.js.
    'dist/modelWorker.js',
    // The search index's worker thread (issue 12), started beside dist/extension.js.
    'dist/searchWorker.js',
    // The read-ahead thread of a bulk index build, started beside dist/searchWorker.js and dist/cli.js.
    'dist/searchReadWorker.js',
    // The SQLite WASM binary the dsh store reader loads from beside the bundles.
    'dist/sqlite3.wasm',
    'dist/codicons/codicon.css',
    'dist/codicons/codicon.ttf',
    'media/activity.svg',
    'media/icon.png',
    // README images resolve relative to the installed extension, so the screenshots ship.
    'docs/screenshots/editor-dark.png',
  ];
  if (existsSync(join(root, 'webview', 'main.ts'))) required.push('dist/webview/main.js');

  for (const file of required) {
    it(`ships ${file}`, () => {
      assert.ok(files.includes(file), `${file} missing from:\n${files.join('\n')}`);
    });
  }

  it('ships no sources, tests, fixtures, samples, source maps or node_modules', () => {
    const forbidden = files.filter(
      (f) =>
        /^(src|test|webview|samples|fixtures|out|bench|scripts|node_modules|\.vscode-test|test-results)\//.test(f) ||
        /(^|\/)fixtures\//.test(f) ||
        f.endsWith('.map') ||
        f.endsWith('.ts'),
    );
    assert.deepEqual(forbidden, []);
  });

  it('npm run package builds a .vsix that VS Code 1.100 installs', (t) => {
    const server = join(root, '.vscode-test', 'code-server-4.100.3', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
    if (!existsSync(server)) {
      // The integration step installs code-server; `npm test` runs this suite after it.
      t.skip('code-server is not installed yet (run test/integration/setup.mjs)');
      return;
    }
    const vsix = join(root, 'dist-vsix', 'session-loom.vsix');
    rmSync(vsix, { force: true });
    const packaged = spawnSync('npm', ['run', 'package'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.equal(packaged.status, 0, `npm run package failed:\n${packaged.stdout}\n${packaged.stderr}`);
    assert.ok(existsSync(vsix), 'npm run package wrote no dist-vsix/session-loom.vsix');
    // One production build (vsce runs vscode:prepublish), not one by the script and another by vsce.
    const builds = `${packaged.stdout}\n${packaged.stderr}`.split('\n').filter((l) => l.startsWith('[build] production'));
    assert.equal(builds.length, 1, `the build ran ${builds.length} times:\n${builds.join('\n')}`);
    const extensionsDir = mkdtempSync(join(tmpdir(), 'loom-vsix-'));
    try {
      const out = run(process.execPath, [server, '--install-extension', vsix, '--extensions-dir', extensionsDir]);
      assert.match(out, /successfully installed/i);
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
      const installed = readdirSync(extensionsDir).find((d) => d === `session-loom.session-loom-${pkg.version}`);
      assert.ok(installed, `not installed: ${readdirSync(extensionsDir).join(', ')}`);
      assert.ok(existsSync(join(extensionsDir, installed, 'dist', 'extension.js')));
    } finally {
      rmSync(extensionsDir, { recursive: true, force: true });
    }
  });
});
