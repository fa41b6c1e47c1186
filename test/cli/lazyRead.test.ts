// The built CLI reads a big session through the lazy index (issue 11) in bounded memory: on a
// generated session of over 150 MB, `context` runs under a 128 MB heap (the eager document needs
// several times the file: it ran out of heap there, checked by hand) and says what the lazy model
// says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSession } from '../../bench/generate';
import { IndexCache } from '../../src/core/engine/xcsh/lazy/indexCache';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { runCli } from '../helpers/runCli';

const HEAP_MB = 128;
let dir = '';
let big = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'sl-cli-lazy-'));
  big = join(dir, 'big.jsonl');
  generateSession(big, 360_000, 3);
  assert.ok(statSync(big).size >= 150 << 20, 'the session is over 150 MB');
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI under a small heap, stdout to a file (the test process does not buffer it). */
function boundedCli(outFile: string, ...args: string[]): { status: number | null; stderr: string } {
  const fd = openSync(outFile, 'w');
  try {
    return runCli(args, { env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') }, nodeArgs: [`--max-old-space-size=${HEAP_MB}`], stdoutFd: fd });
  } finally {
    closeSync(fd);
  }
}

test(`context on a session of over 150 MB runs under a ${HEAP_MB} MB heap and prints the lazy model's context`, async () => {
  const out = join(dir, 'context.json');
  const r = boundedCli(out, 'context', big);
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  const ctx = JSON.parse(readFileSync(out, 'utf8')) as { leafId: string; messages: unknown[]; messageSources: string[] };
  const model = await LazyXcshModel.open(big);
  assert.ok(model);
  const info = await model.context(null);
  assert.equal(ctx.leafId, info.leafId);
  assert.equal(ctx.messages.length, info.messageCount);
  assert.equal(ctx.messageSources.length, info.messageCount);
  assert.ok(info.messageCount > 10_000, 'a context far bigger than one window');
});

test('the CLI keeps a big session\'s index in its cache folder: the next command opens it from there (the cache file used, not rewritten) and prints the same', () => {
  const cacheFile = new IndexCache(join(dir, 'cache', 'session-loom', 'index')).fileFor(big);
  const first = join(dir, 'context-1.json');
  assert.equal(boundedCli(first, 'context', big).status, 0);
  assert.ok(existsSync(cacheFile), 'the index was kept');
  utimesSync(cacheFile, new Date(0), new Date(0));
  const ino = statSync(cacheFile).ino;
  const second = join(dir, 'context-2.json');
  const r = boundedCli(second, 'context', big);
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  assert.ok(readFileSync(second).equals(readFileSync(first)), 'the same context, byte for byte');
  assert.equal(statSync(cacheFile).ino, ino, 'not written again');
  assert.ok(statSync(cacheFile).mtimeMs > 0, 'used (a use marks it recent)');
});

test(`doctor (text and --json) on a session of over 150 MB runs under a ${HEAP_MB} MB heap: clean, every entry counted`, async () => {
  const model = await LazyXcshModel.open(big);
  assert.ok(model);
  const text = boundedCli(join(dir, 'doctor.txt'), 'doctor', big);
  assert.equal(text.status, 0, text.stderr.slice(-2000));
  assert.equal(text.stderr, `${big}: clean (${model.index.n} entries)\n`);
  const out = join(dir, 'doctor.json');
  const json = boundedCli(out, 'doctor', big, '--json');
  assert.equal(json.status, 0, json.stderr.slice(-2000));
  const report = JSON.parse(readFileSync(out, 'utf8')) as { entries: number; findings: number; version: number };
  assert.deepEqual([report.entries, report.findings, report.version], [360_000, 0, 3]);
});

/**
 * A long main line with a short side branch every 20 000 entries. The --json form nests the rest
 * of the main line one level deeper at each branch point (a dozen levels here; the bench session,
 * branching every 40 turns, would print gigabytes of indentation with --pretty); the text form
 * keeps the main line at one level and each side branch one level under its fork point.
 */
function mainLineSession(path: string, bytes: number): number {
  const fd = openSync(path, 'w');
  writeSync(fd, JSON.stringify({ type: 'session', version: 3, id: 'main-line', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' }) + '\n');
  const filler = 'lorem ipsum dolor sit amet '.repeat(14);
  let written = 0;
  let n = 0;
  let prev: string | null = null;
  let chunk = '';
  const emit = (e: Record<string, unknown>): string => {
    const id = `e${(n++).toString(16).padStart(7, '0')}`;
    chunk += JSON.stringify({ id, timestamp: '2026-01-01T00:00:00.000Z', ...e }) + '\n';
    return id;
  };
  while (written < bytes) {
    const role = n % 2 === 0 ? 'user' : 'assistant';
    prev = emit({ type: 'message', parentId: prev, message: { role, content: [{ type: 'text', text: `${n} ${filler}` }] } });
    if (n % 20_000 === 0) emit({ type: 'message', parentId: prev, message: { role: 'user', content: 'a side branch' } });
    if (chunk.length > 1 << 20) {
      written += writeSync(fd, chunk);
      chunk = '';
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  return n;
}

test(`tree (text and --json) on a session of over 150 MB runs under a ${HEAP_MB} MB heap: a row per entry, the default leaf marked`, async () => {
  const big = join(dir, 'main-line.jsonl');
  mainLineSession(big, 160 << 20);
  const model = await LazyXcshModel.open(big);
  assert.ok(model);
  const n = model.index.n;
  const leaf = await model.defaultLeaf();
  const textOut = join(dir, 'tree.txt');
  const text = boundedCli(textOut, 'tree', big);
  assert.equal(text.status, 0, text.stderr.slice(-2000));
  const rows = readFileSync(textOut, 'utf8').split('\n').filter((l) => l !== '');
  assert.equal(rows.length, n);
  assert.equal(rows.filter((l) => l.endsWith('  ← leaf')).length, 1);
  assert.ok(rows.some((l) => l.includes(`${leaf} `) && l.endsWith('  ← leaf')));
  const jsonOut = join(dir, 'tree.json');
  const json = boundedCli(jsonOut, 'tree', big, '--json');
  assert.equal(json.status, 0, json.stderr.slice(-2000));
  interface Seg {
    entries: { id: string; line: number }[];
    children: Seg[];
  }
  const doc = JSON.parse(readFileSync(jsonOut, 'utf8')) as { defaultLeafId: string; roots: Seg[] };
  assert.equal(doc.defaultLeafId, leaf);
  let count = 0;
  const stack = [...doc.roots];
  while (stack.length > 0) {
    const s = stack.pop()!;
    count += s.entries.length;
    stack.push(...s.children);
  }
  assert.equal(count, n);
});

test(`relabel on a session of over 150 MB runs under a ${HEAP_MB} MB heap: it reads the engine's index, not the whole file, and appends one label after the default leaf`, async () => {
  const before = await LazyXcshModel.open(big);
  const leaf = (await before.defaultLeaf())!;
  const size = statSync(big).size;
  const out = join(dir, 'relabel.json');
  const r = boundedCli(out, 'relabel', big, leaf, 'checkpoint');
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  const { entry } = JSON.parse(readFileSync(out, 'utf8')) as { entry: { type: string; id: string; parentId: string; targetId: string; label: string } };
  assert.deepEqual([entry.type, entry.parentId, entry.targetId, entry.label], ['label', leaf, leaf, 'checkpoint']);
  // appended, nothing before it touched
  const fd = openSync(big, 'r');
  const tail = Buffer.alloc(statSync(big).size - size);
  readSync(fd, tail, 0, tail.length, size);
  closeSync(fd);
  assert.deepEqual(JSON.parse(tail.toString('utf8')), entry);
  const after = await LazyXcshModel.open(big);
  assert.equal(await after.defaultLeaf(), entry.id);
});
