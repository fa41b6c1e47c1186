// Issue 22 §15 and §18, the xcsh side: memory for junk is bounded, not linear in the junk, and one
// record too long for V8 does not make the file unreadable.
//  - §15: a line that cannot be a record (a NUL byte in it — JSON text never holds one — or a long
//    line not starting with `{`) is never held: the streaming reader keeps its byte range and
//    the few facts its diagnostic needs, and gives exactly what the in-memory reader gives.
//    Checked by bounded observable behaviour: a child process with --max-old-space-size=256 reads
//    a sparse 1 GiB of NULs after a header, in both models, with the right diagnostic and a small
//    peak RSS (before the fix: about twice the junk, 2+ GB).
//  - §18: a line past the record cap (MAX_RECORD_BYTES, 256 MiB; lowered here to 2 MB) is a
//    `too-large` error with its byte range; every other record is shown, in both models, and
//    the bytes stay verbatim on rewrite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseJsonlLenient, readJsonlFile } from '../../src/core/formats/xcsh/jsonl';
import { MAX_RECORD_BYTES, recordLimits } from '../../src/core/formats/xcsh/lineParser';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { severityOf } from '../../src/core/diagnostics';
import { rewriteSessionFile } from '../../src/core/store/rewrite';
import { auditSessionBytes } from '../../src/core/formats/xcsh/byteAudit';
import { assertTextParity, oldSessionFile } from '../helpers/modelParity';

const H3 = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}';
const msg = (id: string, parentId: string | null, text = 'x') => JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: text } });
const kinds = (r: { diagnostics: { line: number; kind: string }[] }) => r.diagnostics.map((d) => [d.line, d.kind]);
const NULS = (n: number) => '\0'.repeat(n);

/** With the record cap lowered to `cap` bytes (the test never allocates 256 MiB). */
async function withCap<T>(cap: number, f: () => Promise<T>): Promise<T> {
  const old = recordLimits.maxRecordBytes;
  recordLimits.maxRecordBytes = cap;
  try {
    return await f();
  } finally {
    recordLimits.maxRecordBytes = old;
  }
}

/** The streaming reader (lines spanning its reads, given up or held) gives what the in-memory one gives. */
async function sameAsInMemory(text: string): Promise<ReturnType<typeof parseJsonlLenient>> {
  const p = oldSessionFile(text, 'loom-hostile-');
  const streamed = await readJsonlFile(p);
  const whole = parseJsonlLenient(text);
  assert.deepEqual(streamed, whole);
  return whole;
}

// ---- §15: lines that cannot be records are not held --------------------------------------------

test('issue 22 §15: lines with NUL bytes, or long lines not starting with "{", read the same streamed (not held) as in memory', async () => {
  const a = msg('aaaaaaaa', null);
  const b = msg('bbbbbbbb', 'aaaaaaaa');
  const big = 400_000; // spans the reader's reads (64 KB, then 256 KB)
  const shapes: Record<string, string> = {
    'a NUL line between records': `${H3}\n${a}\n${NULS(big)}\n${b}\n`,
    'a torn record then NULs': `${H3}\n${a}\n{"type":"message","id":"x${NULS(big)}\n${b}\n`,
    'whitespace, then NULs': `${H3}\n${a}\n${' '.repeat(70_000)}${NULS(big)}\n${b}\n`,
    'NULs in CRLF lines': `${H3}\r\n${a}\r\n${NULS(big)}\r\n${b}\r\n`,
    'two NUL lines in a run, a blank between': `${H3}\n${a}\n${NULS(big)}\n\n${NULS(big)}\n${b}\n`,
    'an unterminated NUL tail': `${H3}\n${a}\n${NULS(big)}`,
    'a BOM, then NULs on line 1': `\ufeff${NULS(big)}\n${H3}\n${a}\n`,
    'a pretty-printed record open, then a NUL line': `${H3}\n${a}\n{\n  "type": "message",\n${NULS(big)}\n${b}\n`,
    'a long JSON array line (not parsed)': `${H3}\n${a}\n[${'1,'.repeat(600_000)}1]\n${b}\n`,
    'a shorter JSON array line (parsed: not an object)': `${H3}\n${a}\n[${'1,'.repeat(200_000)}1]\n${b}\n`,
    'a long line of text': `${H3}\n${a}\n${'z'.repeat(1_200_000)}\n${b}\n`,
  };
  for (const [name, text] of Object.entries(shapes)) {
    const r = await sameAsInMemory(text);
    const ids = r.records.map((x) => x.value.id);
    assert.ok(ids.includes('aaaaaaaa'), name);
    if (!name.includes('tail') && !name.includes('BOM')) assert.ok(ids.includes('bbbbbbbb'), `${name}: the record after the junk is read`);
    // Every byte of the junk is in an unparsed range (a rewrite copies it from the file).
    const junk = r.unparsed.reduce((n, u) => n + (u.end - u.start), 0);
    assert.ok(junk >= big || name.includes('array') || name.includes('text'), `${name}: ${junk} bytes kept by range`);
  }
  const nul = parseJsonlLenient(shapes['a NUL line between records']!);
  assert.deepEqual(kinds(nul), [[3, 'invalid-json']]);
  assert.match(nul.diagnostics[0]!.message, /NUL byte.*400000 bytes not read into memory/);
  const tail = parseJsonlLenient(shapes['an unterminated NUL tail']!);
  assert.deepEqual(kinds(tail), [[3, 'torn-tail']]);
  assert.match(tail.diagnostics[0]!.message, /unterminated fragment of 400000 bytes.*NUL/);
  assert.deepEqual(kinds(parseJsonlLenient(shapes['a long JSON array line (not parsed)']!)), [[3, 'invalid-json']]);
  assert.deepEqual(kinds(parseJsonlLenient(shapes['a shorter JSON array line (parsed: not an object)']!)), [[3, 'not-an-object']]);
});

test('issue 22 §15: a record after a NUL line keeps its parent and children, in both models; the junk stays verbatim on rewrite', async () => {
  const text = `${H3}\n${msg('aaaaaaaa', null)}\n${NULS(300_000)}\n${msg('bbbbbbbb', 'aaaaaaaa')}\n${msg('cccccccc', 'bbbbbbbb')}\n`;
  const p = await assertTextParity(text);
  const l = await loadSessionFile(p);
  assert.deepEqual(l.entries.map((e) => e.id), ['aaaaaaaa', 'bbbbbbbb', 'cccccccc']);
  assert.deepEqual(kinds(l), [[3, 'invalid-json']]);
  await rewriteSessionFile(p, l, { expected: l.stat!, force: true });
  assert.deepEqual(readFileSync(p), Buffer.from(text));
});

/** Runs `body` (an async function body; `path`, `load`, `lazy`, `audit` in scope) in a child with a 256 MB heap; its JSON output. */
function child(path: string, body: string): { rss: number } & Record<string, unknown> {
  const src = (f: string) => JSON.stringify(pathToFileURL(resolve('src', f)).href);
  const script = `
    // (tsx gives a CommonJS module's exports as \`default\` to an ES import)
    const of = async (f, name) => { const m = await import(f); return m[name] ?? m.default[name]; };
    const load = await of(${src('core/formats/xcsh/load.ts')}, 'loadSessionFile');
    const lazy = await of(${src('core/engine/xcsh/lazy/lazyIndex.ts')}, 'buildLazyIndex');
    const audit = await of(${src('core/formats/xcsh/byteAudit.ts')}, 'auditSessionBytes');
    const path = ${JSON.stringify(path)};
    const out = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify({ ...out, rss: process.resourceUsage().maxRSS * 1024 }));`;
  const stdout = execFileSync(process.execPath, ['--max-old-space-size=256', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as { rss: number } & Record<string, unknown>;
}

const GiB = 1024 * 1024 * 1024;

test('issue 22 §15: a header then a sparse 1 GiB of NULs: both models and the byte audit read it in bounded memory (child, 256 MB heap), with the right diagnostic', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-sparse-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const p = join(dir, 's.jsonl');
  writeFileSync(p, `${H3}\n${msg('aaaaaaaa', null)}\n`);
  const start = readFileSync(p).length;
  truncateSync(p, start + GiB); // sparse: costs no disk
  const r = child(
    p,
    `const l = await load(path);
     const ix = await lazy(path);
     const diags = await audit(path);
     return {
       entries: l.entries.map((e) => e.id),
       diags: l.diagnostics.map((d) => [d.line, d.kind, d.message]),
       lazy: { n: ix.n, diags: ix.loadedDiagnostics.map((d) => [d.line, d.kind, d.message]) },
       audit: diags.length,
     };`,
  );
  // Before: ~2.2 GB (the fragment held, then copied). Now: a few read buffers beside Node itself.
  t.diagnostic(`peak RSS ${Math.round(r.rss / 2 ** 20)} MB`);
  assert.ok(r.rss < 400 * 1024 * 1024, `peak RSS ${Math.round(r.rss / 2 ** 20)} MB`);
  const torn = [3, 'torn-tail', `last line is an unterminated fragment of ${GiB} bytes (an interrupted write; it holds NUL bytes: a zeroed or sparse region); skipped, kept verbatim`];
  assert.deepEqual(r.entries, ['aaaaaaaa']);
  assert.deepEqual(r.diags, [torn]);
  assert.deepEqual(r.lazy, { n: 1, diags: [torn] });
  assert.equal(r.audit, 0);
});

// ---- §18: a record past the cap -------------------------------------------------------------------

test('issue 22 §18: the record cap is documented below V8\'s string limit (~512 MiB)', () => {
  assert.equal(MAX_RECORD_BYTES, 256 * 1024 * 1024);
  assert.equal(severityOf('too-large'), 'error');
});

test('issue 22 §18: a record longer than the cap (2 MB here) is a too-large error with its byte range; every other record is shown, in both models, streamed as in memory; the bytes stay verbatim on rewrite', async () => {
  const cap = 2 * 1024 * 1024;
  const huge = msg('bbbbbbbb', 'aaaaaaaa', 'y'.repeat(3 * 1024 * 1024));
  const text = `${H3}\n${msg('aaaaaaaa', null)}\n${huge}\n${msg('cccccccc', 'aaaaaaaa')}\n${msg('dddddddd', 'cccccccc')}\n`;
  await withCap(cap, async () => {
    const r = await sameAsInMemory(text);
    const start = Buffer.byteLength(`${H3}\n${msg('aaaaaaaa', null)}\n`);
    const end = start + Buffer.byteLength(huge);
    assert.deepEqual(kinds(r), [[3, 'too-large']]);
    assert.match(r.diagnostics[0]!.message, new RegExp(`bytes ${start}–${end}\\) is longer than the ${cap} bytes a record may have`));
    assert.deepEqual(r.unparsed, [{ line: 3, start, end, record: true }]);
    const p = await assertTextParity(text);
    const l = await loadSessionFile(p);
    assert.deepEqual(l.entries.map((e) => e.id), ['aaaaaaaa', 'cccccccc', 'dddddddd']);
    assert.deepEqual(kinds(l), [[3, 'too-large']]);
    await rewriteSessionFile(p, l, { expected: l.stat!, force: true });
    assert.deepEqual(readFileSync(p), Buffer.from(text));
    assert.deepEqual(await auditSessionBytes(p), []);
    // Its children are orphans, not lost; the same in an unterminated last line (a torn tail).
    const t = await sameAsInMemory(`${H3}\n${msg('aaaaaaaa', null)}\n${huge}`);
    assert.deepEqual(kinds(t), [[3, 'torn-tail']]);
    assert.match(t.diagnostics[0]!.message, /longer than the 2097152 bytes a record may have/);
  });
});
