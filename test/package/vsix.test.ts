// What the VSIX ships: exactly the bundles, the codicons, the media and the documents.
// Builds production into dist/ (the shape `npm run package` ships), lists with vsce, then
// restores the development build the other suites use.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
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
    'README.md',
    'CHANGELOG.md',
    'LICENSE',
    'dist/extension.js',
    'dist/cli.js',
    'dist/codicons/codicon.css',
    'dist/codicons/codicon.ttf',
    'media/activity.svg',
    'media/icon.png',
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
});
