// Issue 22 §4, deterministic: bytes a writer lands in the OLD inode after the rename must come
// before what is appended to the NEW file meanwhile (file order decides the default leaf). The
// race is staged through the fault seam: at the directory fsync (after the rename and the first
// look at the old inode) one record is appended to the new file by path, then a record is written
// through an fd opened on the old file before the rename — the order pi's appendFileSync produces
// when it opens the path just before the rename and again just after it. (The real-process race
// is test/cli/writeOrderXattr.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { rewriteHeaderLine, rewriteSessionFile, type RewriteOptions } from '../../src/core/store/rewrite';

const H3 = '{"type":"session","version":3,"id":"s"}';
const H1 = '{"type":"session","id":"s"}';
const E = (i: number) => JSON.stringify({ type: 'message', id: `e${String(i).padStart(7, '0')}`, parentId: i ? `e${String(i - 1).padStart(7, '0')}` : null, message: { role: 'user', content: `m${i}` } });
const V1 = (text: string) => JSON.stringify({ type: 'message', message: { role: 'user', content: text } });
const rec = (k: number) => `${V1(`seq-${k}`)}\n`;

function session(text: string): { d: string; p: string; crumbs: string } {
  const d = mkdtempSync(join(tmpdir(), 'loom-order-'));
  const crumbs = join(d, 'crumbs');
  mkdirSync(crumbs);
  const p = join(d, 's.jsonl');
  writeFileSync(p, text);
  const t = new Date(Date.now() - 60_000);
  utimesSync(p, t, t);
  return { d, p, crumbs };
}

/** seq-0 reaches the old file before our last look, seq-1 the old inode late, seq-2 the new file first. */
function racingWriter(p: string): RewriteOptions['faults'] & { stage: () => number } {
  let fd = -1;
  let stage = 0;
  return {
    stage: () => stage,
    beforeWrite: (op) => {
      if (op === 'rename' && stage === 0) {
        appendFileSync(p, rec(0)); // carried before the rename
        fd = openSync(p, 'a'); // opened before the rename: this writer's next record lands in the old inode
        stage = 1;
      } else if (op === 'fsync-dir' && stage === 1) {
        appendFileSync(p, rec(2)); // opened after the rename: the new file
        writeSync(fd, rec(1)); // the late record, written after seq-2 reached the new file…
        closeSync(fd); // …but opened (and so written, for a writer that appends in order) before it
        stage = 2;
      }
    },
  };
}

function seqs(text: string): number[] {
  return [...text.matchAll(/seq-(\d+)/g)].map((m) => Number(m[1]));
}

test('§4 title: a record that reached the old inode after the rename comes before the one appended to the new file meanwhile', async () => {
  const { d, p, crumbs } = session(`${H3}\n${Array.from({ length: 30 }, (_, i) => E(i)).join('\n')}\n`);
  const before = readFileSync(p);
  const l = await loadSessionFile(p);
  const faults = racingWriter(p);
  const r = await rewriteHeaderLine(p, { ...l.header!, title: 'Ordered' }, { expected: l.stat!, breadcrumbsDir: crumbs, faults });
  assert.equal(faults.stage(), 2, 'the race was staged');
  const text = readFileSync(p, 'utf8');
  assert.equal(JSON.parse(text.split('\n')[0]!).title, 'Ordered');
  assert.deepEqual(seqs(text), [0, 1, 2], 'every record once, in the order written');
  const nl = before.indexOf(0x0a);
  assert.ok(text.endsWith(before.subarray(nl + 1).toString('utf8') + rec(0) + rec(1) + rec(2)), 'every original byte after the header, then the records in order');
  assert.equal(r.carriedBytes, rec(0).length + rec(1).length);
  assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl'], 'no temp left');
});

test('§4 migrate: the same race; the records keep their order after the migrated ones', async () => {
  const { d, p, crumbs } = session(`${H1}\n${Array.from({ length: 30 }, (_, i) => V1(`m${i}`)).join('\n')}\n`);
  const l = await loadSessionFile(p);
  const faults = racingWriter(p);
  await rewriteSessionFile(p, l, { expected: l.stat!, breadcrumbsDir: crumbs, faults });
  assert.equal(faults.stage(), 2, 'the race was staged');
  const text = readFileSync(p, 'utf8');
  assert.equal(JSON.parse(text.split('\n')[0]!).version, 3);
  assert.deepEqual(seqs(text), [0, 1, 2]);
  assert.ok(text.endsWith(rec(0) + rec(1) + rec(2)));
  const ms = [...text.matchAll(/"content":"m(\d+)"/g)].map((m) => Number(m[1]));
  assert.deepEqual(ms, Array.from({ length: 30 }, (_, i) => i), 'the original messages, once each, in order');
  assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl'], 'no temp left');
});

test('§4 when the repair that would restore the order cannot be written: no byte dropped, and an error says the records may be out of order', async () => {
  const { d, p, crumbs } = session(`${H3}\n${Array.from({ length: 10 }, (_, i) => E(i)).join('\n')}\n`);
  const l = await loadSessionFile(p);
  const staged = racingWriter(p);
  const faults = {
    beforeWrite: (op: Parameters<NonNullable<typeof staged.beforeWrite>>[0], path: string) => {
      if (op === 'rename' && staged.stage() === 2) throw new Error('injected: the repair cannot be renamed');
      staged.beforeWrite!(op, path);
    },
  };
  await assert.rejects(rewriteHeaderLine(p, { ...l.header!, title: 'Late' }, { expected: l.stat!, breadcrumbsDir: crumbs, faults }), (e: Error) => {
    assert.match(e.message, new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\d+ bytes another program appended to the old file during the rewrite are at the end of the new file, .*records may be out of the order they were written in \\(injected`));
    return true;
  });
  const text = readFileSync(p, 'utf8');
  assert.equal(JSON.parse(text.split('\n')[0]!).title, 'Late', 'the rewrite itself is done');
  assert.deepEqual(seqs(text), [0, 2, 1], 'every record kept (the late one at the end), as the error says');
  assert.deepEqual(readdirSync(d).sort(), ['crumbs', 's.jsonl'], 'no temp left');
});
