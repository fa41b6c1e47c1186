// Decompression bombs against the dsh readers (issue 22, points 9, 10, 11): a zstd frame whose
// header claims a huge content size or window, and frames of RLE blocks (a 4-byte block expands
// to 128 KiB) that decode to gigabytes. Each is read in a child process that reports its own peak
// RSS: the readers must refuse the frame with a diagnostic naming its byte offset, and stay far
// below what the bomb would decode to. The bombs are written by hand (RFC 8878 §3.1.1): frame
// header, RLE blocks (Block_Type = 1, one byte each), an optional checksum.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dshFixtureText, storeSessionOf, writeDshStore, zstdFrame } from '../helpers/dshBuild';
import { dshLogPath } from '../reference/dshPaths';
import { readInChild, RSS_CEILING_MB } from '../helpers/dshChild';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'loom-bomb-'));

/** A zstd frame header: content size (8 bytes) when given, single segment or a window of 2^windowLog. */
function frameHeader(o: { contentSize?: number; singleSegment?: boolean; checksum?: boolean; windowLog?: number }): Buffer {
  const fcs = o.contentSize !== undefined;
  const single = o.singleSegment === true && fcs;
  const fhd = (fcs ? 3 << 6 : 0) | (single ? 1 << 5 : 0) | (o.checksum ? 1 << 2 : 0);
  const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, fhd])];
  if (!single) parts.push(Buffer.from([((o.windowLog ?? 17) - 10) << 3]));
  if (fcs) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(o.contentSize!));
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/** `count` RLE blocks, each `size` copies of `byte` (the last one flagged last). */
function rleBlocks(byte: number, size: number, count: number): Buffer {
  const out = Buffer.alloc(count * 4);
  for (let i = 0; i < count; i++) {
    const h = (i === count - 1 ? 1 : 0) | (1 << 1) | (size << 3);
    out[i * 4] = h & 0xff;
    out[i * 4 + 1] = (h >> 8) & 0xff;
    out[i * 4 + 2] = (h >> 16) & 0xff;
    out[i * 4 + 3] = byte;
  }
  return out;
}

/** A frame of `count` full RLE blocks (128 KiB each) of `byte`, no content size, a (wrong) checksum. */
function rleBomb(count: number, byte = 0x78, checksum = true): Buffer {
  return Buffer.concat([frameHeader({ checksum, windowLog: 17 }), rleBlocks(byte, 128 * 1024, count), checksum ? Buffer.alloc(4) : Buffer.alloc(0)]);
}

const HEADER = JSON.stringify({ type: 'session', version: 0, id: 'bomb', createdAt: 1783600629539, cwd: '/work/bomb', delegationDepth: 0 });


type Diag = { kind: string; message: string; offset?: number };

test('(9) a .jsonl.zstd frame of RLE blocks decoding to 1.5 GB: doctor reports the frame as corruption at its byte offset, decodes at most 64 MiB of it', () => {
  const dir = tmp();
  const header = zstdFrame(HEADER + '\n');
  const file = join(dir, 'bomb.jsonl.zstd');
  // 12 000 blocks × 128 KiB = 1.5 GiB from a 48 KB frame
  writeFileSync(file, Buffer.concat([header, rleBomb(12_000)]));
  const { out, maxRssMb } = readInChild('log', file);
  assert.equal(out.state, 'corrupt');
  const diags = out.diagnostics as Diag[];
  const frame = diags.find((d) => d.kind === 'dsh-frame');
  assert.ok(frame, JSON.stringify(diags));
  assert.match(frame.message, new RegExp(`the zstd frame at byte ${header.length} decodes to more than 64 MiB`));
  assert.equal(frame.offset, header.length);
  assert.ok(maxRssMb < RSS_CEILING_MB, `peak RSS ${maxRssMb} MB`);
});

test('(9) the same bomb as the header frame: listing (ls) and loading refuse it at byte 0 within the 1 MiB header cap', () => {
  const root = join(tmp(), 'sessions');
  const file = dshLogPath(root, '/work/bomb', 'bomb', 'zstd');
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, rleBomb(12_000));
  const listed = readInChild('listing', file);
  assert.equal(listed.out.ok, false);
  assert.match(String(listed.out.reason), /the zstd frame at byte 0 decodes to more than 1 MiB/);
  assert.ok(listed.maxRssMb < RSS_CEILING_MB, `listing: peak RSS ${listed.maxRssMb} MB`);
  const loaded = readInChild('log', file);
  assert.equal(loaded.out.state, 'corrupt');
  assert.match((loaded.out.diagnostics as Diag[])[0]!.message, /the zstd frame at byte 0 decodes to more than 1 MiB/);
  assert.ok(loaded.maxRssMb < RSS_CEILING_MB, `load: peak RSS ${loaded.maxRssMb} MB`);
});

test('(11) a ~60-byte frame claiming 1 GiB of content is refused from its header: nothing of that size is allocated', () => {
  const dir = tmp();
  const header = zstdFrame(HEADER + '\n');
  const claim = Buffer.concat([frameHeader({ contentSize: 2 ** 30, singleSegment: true, checksum: true }), rleBlocks(0x7b, 16, 8), Buffer.alloc(4)]);
  assert.ok(claim.length < 200);
  const file = join(dir, 'claim.jsonl.zstd');
  writeFileSync(file, Buffer.concat([header, claim]));
  const { out, maxRssMb } = readInChild('log', file);
  assert.equal(out.state, 'corrupt');
  const frame = (out.diagnostics as Diag[]).find((d) => d.kind === 'dsh-frame');
  assert.ok(frame);
  assert.match(frame.message, new RegExp(`the zstd frame at byte ${header.length} declares 1073741824 bytes of content, above the 64 MiB a frame may hold`));
  assert.ok(maxRssMb < RSS_CEILING_MB, `peak RSS ${maxRssMb} MB`);

  // the same claim as the header frame, and a window claim (not single-segment, window 2^31)
  const file2 = join(dir, 'claim-header.jsonl.zstd');
  writeFileSync(file2, claim);
  const listed = readInChild('listing', file2);
  assert.match(String(listed.out.reason), /the zstd frame at byte 0 declares 1073741824 bytes of content, above the 1 MiB/);
  assert.ok(listed.maxRssMb < RSS_CEILING_MB);
  const file3 = join(dir, 'window.jsonl.zstd');
  writeFileSync(file3, Buffer.concat([header, frameHeader({ windowLog: 31, checksum: true }), rleBlocks(0x7b, 16, 1), Buffer.alloc(4)]));
  const win = readInChild('log', file3);
  assert.match((win.out.diagnostics as Diag[]).find((d) => d.kind === 'dsh-frame')!.message, /asks for a 2147483648-byte decoding window, above zstd's own limit of 128 MiB/);
  assert.ok(win.maxRssMb < RSS_CEILING_MB);
});

test('(9) a torn final bomb frame recovers at most 64 MiB and says so', () => {
  const dir = tmp();
  const header = zstdFrame(HEADER + '\n');
  const bomb = rleBomb(12_000);
  const file = join(dir, 'torn.jsonl.zstd');
  writeFileSync(file, Buffer.concat([header, bomb.subarray(0, bomb.length - 10)]));
  const { out, maxRssMb } = readInChild('log', file);
  const torn = (out.diagnostics as Diag[]).find((d) => d.kind === 'torn-tail');
  assert.ok(torn, JSON.stringify(out.diagnostics));
  assert.match(torn.message, /more than the 64 MiB a frame may hold: decoding stopped there/);
  assert.ok(maxRssMb < RSS_CEILING_MB, `peak RSS ${maxRssMb} MB`);
});

test('(10) a zstd bomb as the `data` BLOB of a dsh SQLite store: listing and loading its session stay bounded and report the row', async () => {
  const dir = tmp();
  const db = join(dir, 'store.db');
  await writeDshStore(db, [storeSessionOf(dshFixtureText('dsh-subagent-child.session.jsonl'), 'bomb')]);
  const blob = join(dir, 'bomb.zst');
  writeFileSync(blob, rleBomb(12_000, 0x20, false));
  execFileSync('/usr/bin/sqlite3', [db, `UPDATE events SET data = readfile('${blob}') WHERE session_id = 'bomb' AND type = 'session/title';`]);
  const titleSeq = Number(execFileSync('/usr/bin/sqlite3', [db, "SELECT min(seq) FROM events WHERE session_id = 'bomb' AND type = 'session/title';"], { encoding: 'utf8' }));

  const listed = readInChild('store-list', db);
  const [s] = listed.out.sessions as Array<{ id: string; title: string | null; titleProblem?: string }>;
  assert.equal(s!.id, 'bomb');
  assert.equal(s!.title, null);
  assert.match(String(s!.titleProblem), /decodes to more than 1 MiB/);
  assert.ok(listed.maxRssMb < RSS_CEILING_MB, `list: peak RSS ${listed.maxRssMb} MB`);

  const loaded = readInChild('store-load', db);
  const bad = (loaded.out.diagnostics as Array<Diag & { seq?: number }>).find((d) => d.kind === 'dsh-bad-record');
  assert.ok(bad, JSON.stringify(loaded.out.diagnostics));
  assert.equal(bad.seq, titleSeq);
  assert.match(bad.message, /the row does not decode: the zstd BLOB's frame at byte 0 decodes to more than 64 MiB/);
  assert.ok(loaded.maxRssMb < RSS_CEILING_MB, `load: peak RSS ${loaded.maxRssMb} MB`);
});
