import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDshListing, scanZstdFrames } from '../../src/core/formats/dsh/index';
import { dshFixture, dshFixtureText, zstdLogOf } from '../helpers/dshBuild';
import { ev, meta, oneTurnLog, rawLog } from '../helpers/dshLogs';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'loom-dsh-list-'));

test('a subagent child lists with its lineage from the header, raw and zstd alike', async () => {
  const dir = tmp();
  const zst = join(dir, 'session.jsonl.zstd');
  writeFileSync(zst, zstdLogOf(dshFixtureText('dsh-subagent-child.session.jsonl')));
  for (const [path, encoding] of [[dshFixture('dsh-subagent-child.session.jsonl'), 'raw'], [zst, 'zstd']] as const) {
    const r = await readDshListing(path);
    assert.ok(r.ok, path);
    const l = r.listing;
    assert.equal(l.encoding, encoding);
    assert.equal(l.id, 'ea339828-7885-42e1-9083-4355e6f1708d');
    assert.equal(l.parentSession, '5138ed0d-e86e-4a7d-b75b-803307e92b17');
    assert.equal(l.origin, 'subagent');
    assert.equal(l.delegationDepth, 1);
    assert.equal(l.createdAt, 1783352120855);
    assert.equal(l.cwd, '{{cwd}}');
    assert.equal(l.title, 'Reply with exactly the word');
  }
});

test('a zstd header frame longer than 8 KB is listed', async () => {
  const dir = tmp();
  const file = join(dir, 'session.jsonl.zstd');
  // random-looking text so the first frame itself is longer than 8 KiB compressed
  const preset = Array.from({ length: 3000 }, (_, i) => ((i * 2654435761) >>> 0).toString(36)).join('');
  const bytes = zstdLogOf(rawLog(oneTurnLog(), { ...meta(), agentPreset: preset }));
  assert.ok(scanZstdFrames(bytes).frames[0]!.end > 8192);
  writeFileSync(file, bytes);
  const r = await readDshListing(file, { title: false });
  assert.ok(r.ok);
  assert.equal(r.listing.agentPreset, preset);
});

test('the latest title is found at the end of a large raw log, an early one when the tail has none', async () => {
  const dir = tmp();
  const title = (seq: number, t: string): unknown => ev('session/title', seq, { title: t, messageSeqs: [], source: { kind: 'fallback' } });
  const filler = (from: number, n: number): unknown[] => Array.from({ length: n }, (_, i) => ev('hook/result', from + i, { pad: 'x'.repeat(1000) }));
  const late = join(dir, 'late.jsonl');
  writeFileSync(late, rawLog([title(0, 'first'), ...filler(1, 400), title(401, 'renamed'), ...filler(402, 10)]));
  const a = await readDshListing(late);
  assert.ok(a.ok);
  assert.equal(a.listing.title, 'renamed');
  const early = join(dir, 'early.jsonl');
  writeFileSync(early, rawLog([title(0, 'first'), ...filler(1, 400)]));
  const b = await readDshListing(early);
  assert.ok(b.ok);
  assert.equal(b.listing.title, 'first');
});

test('files that are no dsh session give a reason, never a throw', async () => {
  const dir = tmp();
  const cases: Array<[string, string | Buffer]> = [
    ['empty', ''],
    ['xcsh', JSON.stringify({ type: 'session', version: 3, id: 'x', timestamp: '2026-01-01T00:00:00Z', cwd: '/' }) + '\n'],
    ['torn zstd', zstdLogOf(rawLog(oneTurnLog())).subarray(0, 10)],
    ['garbage', Buffer.from([1, 2, 3, 4, 5])],
  ];
  for (const [name, content] of cases) {
    const p = join(dir, name);
    writeFileSync(p, content);
    const r = await readDshListing(p);
    assert.equal(r.ok, false, name);
  }
  assert.equal((await readDshListing(join(dir, 'absent'))).ok, false);
  assert.equal((await readDshListing(dir)).ok, false);
});
