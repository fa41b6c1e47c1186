// Junk in dsh raw logs (issue 22, point 15): a sparse file of NULs, a zeroed tail after a crash,
// lines that cannot be JSON. Memory must follow the log's records, not the junk: the file reader
// (readRawLogFile) keeps bytes only up to the first junk line and reports junk by byte range,
// never holding it. Checked by peak RSS in a child process (a 1 GiB sparse NUL tail), and by
// equivalence with the in-memory reader (readDshLog) on the fixtures with junk spliced in, read in
// chunks as small as 7 bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assembleDshLog, readDshLog } from '../../src/core/formats/dsh/load';
import { readRawLogFile } from '../../src/core/formats/dsh/rawLog';
import { dshLogPath } from '../reference/dshPaths';
import { DSH_FIXTURES, dshFixtureText, zstdLogFrames } from '../helpers/dshBuild';
import { readInChild, RSS_CEILING_MB } from '../helpers/dshChild';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'loom-junk-'));
const GIB = 1024 * 1024 * 1024;


type Diag = { kind: string; message: string; offset?: number; line: number };

test('(15) a raw log whose tail is a sparse 1 GiB of NULs (no newline): torn tail reported by byte range, memory bounded', () => {
  const file = join(tmp(), 'session.jsonl');
  const text = dshFixtureText('dsh-cancel-aborted.session.jsonl');
  writeFileSync(file, text);
  truncateSync(file, Buffer.byteLength(text) + GIB);
  const { out, maxRssMb } = readInChild('log', file);
  assert.equal(out.state, 'torn');
  const torn = (out.diagnostics as Diag[]).find((d) => d.kind === 'torn-tail');
  assert.ok(torn);
  assert.equal(torn.offset, Buffer.byteLength(text));
  assert.match(torn.message, new RegExp(`\\(byte ${Buffer.byteLength(text)}, ${GIB} bytes\\) has no newline`));
  assert.ok(maxRssMb < RSS_CEILING_MB, `peak RSS ${maxRssMb} MB`);
});

test('(15) 1 GiB of NUL lines before a later turn/end: corrupt (dsh refuses it), the junk line reported and skipped unread', () => {
  const file = join(tmp(), 'session.jsonl');
  const lines = dshFixtureText('dsh-cancel-aborted.session.jsonl').split('\n');
  const head = lines.slice(0, 4).join('\n') + '\n';
  const tail = '\n' + lines.slice(4).join('\n');
  writeFileSync(file, head);
  truncateSync(file, Buffer.byteLength(head) + GIB);
  appendFileSync(file, tail);
  const { out, maxRssMb } = readInChild('log', file);
  assert.equal(out.state, 'corrupt');
  const bad = (out.diagnostics as Diag[]).find((d) => d.kind === 'dsh-bad-record');
  assert.ok(bad, JSON.stringify(out.diagnostics));
  assert.equal(bad.offset, Buffer.byteLength(head));
  assert.match(bad.message, new RegExp(`line 5 \\(byte ${Buffer.byteLength(head)}\\): the record is not JSON \\(it starts with byte 0x00, not "\\{"; it holds a NUL byte .*\\): ${GIB} byte\\(s\\) skipped`));
  assert.equal(out.events, 3);
  assert.ok(maxRssMb < RSS_CEILING_MB, `peak RSS ${maxRssMb} MB`);
});

test('(15) listing a sparse 1 GiB NUL file named session.jsonl: refused from its first bytes, memory bounded', () => {
  const root = join(tmp(), 'sessions');
  const file = dshLogPath(root, '/work/junk', 'junk', 'raw');
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, '');
  truncateSync(file, GIB);
  const { out, maxRssMb } = readInChild('listing', file);
  assert.equal(out.ok, false);
  assert.match(String(out.reason), /not JSON|NUL/);
  assert.ok(maxRssMb < RSS_CEILING_MB, `peak RSS ${maxRssMb} MB`);
  // a header line followed by NULs: the header is read, the NULs are not
  writeFileSync(file, dshFixtureText('dsh-cancel-aborted.session.jsonl').split('\n')[0] + '\n');
  truncateSync(file, GIB);
  const listed = readInChild('listing', file);
  assert.equal(listed.out.ok, true, JSON.stringify(listed.out));
  assert.ok(listed.maxRssMb < RSS_CEILING_MB, `peak RSS ${listed.maxRssMb} MB`);
});

test('(15) a .jsonl.zstd log followed by a sparse 1 GiB of NULs, or torn inside a frame whose rest is NULs: reading stops where the frames end', () => {
  const dir = tmp();
  const { bytes, frames } = zstdLogFrames(dshFixtureText('dsh-cancel-aborted.session.jsonl'), 3);
  const file = join(dir, 'session.jsonl.zstd');
  writeFileSync(file, bytes);
  truncateSync(file, bytes.length + GIB);
  const { out, maxRssMb } = readInChild('log', file);
  assert.equal(out.state, 'corrupt');
  const frame = (out.diagnostics as Diag[]).find((d) => d.kind === 'dsh-frame');
  assert.ok(frame);
  assert.equal(frame.offset, bytes.length);
  assert.match(frame.message, new RegExp(`byte ${bytes.length} does not start a zstd frame`));
  assert.ok(maxRssMb < RSS_CEILING_MB, `peak RSS ${maxRssMb} MB`);

  // the last frame cut after its magic, the rest zeroed: a frame header of zeros, then 00 00 00 = an empty raw block, forever
  const [lastStart] = frames[frames.length - 1]!;
  const cutAt = lastStart + 4;
  const file2 = join(dir, 'torn.jsonl.zstd');
  writeFileSync(file2, bytes.subarray(0, cutAt));
  truncateSync(file2, cutAt + GIB);
  const torn = readInChild('log', file2);
  const bad = (torn.out.diagnostics as Diag[]).find((d) => d.kind === 'dsh-frame');
  assert.ok(bad, JSON.stringify(torn.out.diagnostics));
  assert.match(bad.message, new RegExp(`the zstd frame at byte ${lastStart} runs past 68157440 bytes without a last block`));
  assert.ok(torn.maxRssMb < RSS_CEILING_MB, `peak RSS ${torn.maxRssMb} MB`);
});

/** The same log read whole (readDshLog) and from its file in chunks of `chunk` bytes. */
async function both(bytes: Buffer, chunk: number) {
  const file = join(tmp(), 'session.jsonl');
  writeFileSync(file, bytes);
  const fh = await open(file, 'r');
  try {
    const streamed = assembleDshLog(await readRawLogFile(fh, bytes.length, chunk), 'raw', bytes.length, { mtimeMs: 0, now: 1e13 });
    const whole = await readDshLog(bytes, { mtimeMs: 0, now: 1e13 });
    return { streamed, whole };
  } finally {
    await fh.close();
  }
}

test('(15) the chunked file reader gives what the in-memory reader gives, junk spliced in anywhere, any chunk size', async () => {
  const junks = [Buffer.alloc(300), Buffer.from('garbage line\n'), Buffer.concat([Buffer.from('{"type":"turn/start"'), Buffer.alloc(40), Buffer.from('\n')]), Buffer.from('\n'), Buffer.from('  \t{"type":"x","seq":999,"time":0,"data":{}}\n')];
  for (const name of DSH_FIXTURES) {
    const text = Buffer.from(dshFixtureText(name));
    const nls: number[] = [];
    for (let i = text.indexOf(10); i !== -1; i = text.indexOf(10, i + 1)) nls.push(i + 1);
    const spots = [nls[0]!, nls[Math.floor(nls.length / 2)]!, nls[nls.length - 2]!, text.length];
    const inputs = [text, ...spots.flatMap((at) => junks.map((j) => Buffer.concat([text.subarray(0, at), j, text.subarray(at)])))];
    // a junk header, and a tail of NULs without newline
    inputs.push(Buffer.concat([Buffer.alloc(50), text]), Buffer.concat([text, Buffer.alloc(5000)]));
    for (const input of inputs) {
      for (const chunk of [7, 64, 1 << 20]) {
        const { streamed, whole } = await both(input, chunk);
        const what = `${name} (${input.length} bytes, chunks of ${chunk})`;
        assert.equal(streamed.state, whole.state, what);
        assert.deepEqual(streamed.events.slice(), whole.events.slice(), what);
        assert.deepEqual(streamed.closers, whole.closers, what);
        const shape = (ds: Diag[]) => ds.map((d) => `${d.kind}@${d.line}:${d.offset ?? ''}`);
        assert.deepEqual(shape(streamed.diagnostics), shape(whole.diagnostics), what);
      }
    }
  }
});
