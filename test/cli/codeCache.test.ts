// dist/cli.js runs the CLI's bundle (dist/cliMain.js) through V8's code cache (src/cli/launch.ts),
// kept in the CLI's cache folder: written once, then read (not written again while it fits), private
// like the rest of that folder, not made by --help or --version, and never
// trusted blindly — garbage in its place is rejected by V8 and replaced, a FIFO there is not waited on.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureFiles } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';

let home: string;
const dirs: string[] = [];

const cli = (cache: string, ...args: string[]) => runCli(args, { env: { ...process.env, HOME: home, XDG_CACHE_HOME: cache }, timeout: 60_000 });

const fresh = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'sl-codecache-'));
  dirs.push(d);
  return d;
};
const cacheFiles = (cache: string): string[] => {
  const d = join(cache, 'session-loom', 'code-cache');
  return existsSync(d) ? readdirSync(d).map((n) => join(d, n)) : [];
};

before(() => {
  assertCliBuilt();
  home = fresh();
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('the first command writes the code cache (0600 in a 0700 folder), the next ones read it without writing it again, with the same output', () => {
  const cache = fresh();
  const file = fixtureFiles('real-v3')[0]!;
  const root = join(home, 'sessions');
  mkdirSync(root, { recursive: true });
  // A search on an index that exists changes a V8 flag while it runs (SQLite's WASM stays on the
  // baseline tier): the cache it writes must have been made before, or the next process rejects it.
  assert.equal(cli(cache, 'search', '--root', root, 'word').code, 0);
  for (const f of cacheFiles(cache)) rmSync(f);
  const first = cli(cache, 'search', '--root', root, 'word');
  assert.equal(first.code, 0, first.stderr);
  const [written, ...more] = cacheFiles(cache);
  assert.ok(written, 'a cache was written');
  assert.deepEqual(more, []);
  assert.match(written, /cli-\d+-\d+-v\d+\.\d+\.\d+-\w+\.v8cache$/);
  assert.equal(statSync(written).mode & 0o777, 0o600);
  assert.equal(statSync(join(cache, 'session-loom', 'code-cache')).mode & 0o777, 0o700);
  const before = statSync(written);
  const tree = cli(cache, 'tree', file);
  assert.equal(tree.code, 0, tree.stderr);
  for (const args of [['tree', file], ['search', '--root', root, 'word']]) {
    const r = cli(cache, ...args);
    assert.equal(r.code, 0, r.stderr);
    if (args[0] === 'tree') assert.equal(r.stdout, tree.stdout);
  }
  const afterRuns = statSync(written);
  assert.deepEqual([afterRuns.ino, afterRuns.mtimeMs], [before.ino, before.mtimeMs], 'read, not written again (V8 accepted it)');
});

test('--version and --help make no folders (no code cache for a question about the CLI itself)', () => {
  const cache = fresh();
  for (const args of [['--version'], ['--help']]) assert.equal(cli(cache, ...args).code, 0);
  assert.deepEqual(readdirSync(cache), []);
});

test('garbage in the cache file is rejected by V8 and replaced; a FIFO there is not waited on', () => {
  const cache = fresh();
  const file = fixtureFiles('real-v3')[0]!;
  const expected = cli(cache, 'tree', file);
  const [written] = cacheFiles(cache);
  assert.ok(written);
  writeFileSync(written, Buffer.alloc(4096, 0x5a));
  const r = cli(cache, 'tree', file);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, expected.stdout);
  assert.equal(r.stderr, expected.stderr);
  assert.notEqual(statSync(written).size, 4096, 'replaced by a cache V8 made');
  rmSync(written);
  execFileSync('mkfifo', [written]);
  const t = performance.now();
  const viaFifo = cli(cache, 'tree', file);
  assert.equal(viaFifo.code, 0, viaFifo.stderr);
  assert.equal(viaFifo.stdout, expected.stdout);
  assert.ok(performance.now() - t < 50_000, 'did not hang on the FIFO');
});
