// The dsh reader inside a CommonJS bundle made with dist/'s own esbuild options
// (scripts/esbuild-node.mjs): the SQLite WASM (sqlite3.wasm beside the bundle), xxhash-wasm
// (inlined) and fzstd must all initialise under plain `node`, run from an unrelated folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { REPO_ROOT } from '../helpers/fixtures';
import { dshFixtureText, storeSessionOf, writeDshStore, zstdLogOf } from '../helpers/dshBuild';

test('a bundle of the dsh reader reads a zstd log and a dsh SQLite store under plain node', async () => {
  const { copySqliteWasm, nodeBundleOptions } = (await import(join(REPO_ROOT, 'scripts', 'esbuild-node.mjs'))) as {
    copySqliteWasm: (root: string, dir: string) => void;
    nodeBundleOptions: (o?: { shebang?: boolean }) => Record<string, unknown>;
  };
  const out = mkdtempSync(join(tmpdir(), 'loom-dsh-bundle-'));
  buildSync({
    ...nodeBundleOptions({ shebang: true }),
    entryPoints: [join(REPO_ROOT, 'test', 'cli', 'fixtures', 'dshBundleEntry.ts')],
    outfile: join(out, 'entry.js'),
    bundle: true,
    logLevel: 'error',
  });
  copySqliteWasm(REPO_ROOT, out);
  // the bundle carries its modules itself: no node_modules reference left in it
  assert.doesNotMatch(readFileSync(join(out, 'entry.js'), 'utf8'), /require\(["']@sqlite\.org|require\(["']fzstd|require\(["']xxhash-wasm/);

  const data = mkdtempSync(join(tmpdir(), 'loom-dsh-bundle-data-'));
  const text = dshFixtureText('dsh-packed-chunks.session.jsonl');
  writeFileSync(join(data, 'session.jsonl.zstd'), zstdLogOf(text));
  await writeDshStore(join(data, 'store.db'), [storeSessionOf(text, 'only')]);
  const stdout = execFileSync(process.execPath, [join(out, 'entry.js'), join(data, 'session.jsonl.zstd'), join(data, 'store.db')], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  assert.deepEqual(JSON.parse(stdout), { encoding: 'zstd', events: 124, state: 'complete', sessions: ['only'], dbEvents: 124 });
});
