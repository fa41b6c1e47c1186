// Issue 15 "No byte lost", the reader's points: a complete record beside a torn one (8), a record
// over several lines (9), deep nesting (11), quadratic and unbounded work (12). Each record's
// offsets are checked exactly: a byte-preserving rewrite copies by them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJsonlLenient, readJsonlFile, type JsonlParseResult } from '../../src/core/formats/xcsh/jsonl';
import { loadSessionFile, loadSessionFromText } from '../../src/core/formats/xcsh/load';
import { sessionDocumentFromText } from '../reference/document';
import { rewriteSessionFile } from '../../src/core/store/rewrite';
import { MAX_RECORD_DEPTH } from '../../src/core/formats/xcsh/depth';

const kinds = (r: { diagnostics: { line: number; kind: string }[] }) => r.diagnostics.map((d) => [d.line, d.kind]);
/** The text of each record, and of each unparsed range, as sliced from the input by its offsets. */
const slices = (text: string, r: JsonlParseResult) => {
  const buf = Buffer.from(text);
  return { records: r.records.map((x) => [x.line, buf.toString('utf8', x.start, x.end)]), unparsed: r.unparsed.map((u) => [u.line, buf.toString('utf8', u.start, u.end)]) };
};
const tmp = () => mkdtempSync(join(tmpdir(), 'loom-damage-'));
const H3 = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}';
const msg = (id: string, parentId: string | null, text = 'x') => JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: text } });

// ---- point 8: a complete record glued to a torn one ------------------------------------------

test('{complete}{torn…: the complete record is read with its exact bytes, the torn fragment is reported and kept as an unparsed range', () => {
  const a = msg('aaaaaaaa', null, 'é');
  const torn = '{"type":"message","id":"0000';
  const text = `${a}${torn}\n${msg('bbbbbbbb', 'aaaaaaaa')}\n`;
  const r = parseJsonlLenient(text);
  assert.deepEqual(slices(text, r), { records: [[1, a], [2, msg('bbbbbbbb', 'aaaaaaaa')]], unparsed: [[1, torn]] });
  assert.deepEqual(kinds(r), [[1, 'glued-records'], [1, 'torn-record']]);
  const start = Buffer.byteLength(a);
  assert.deepEqual([r.unparsed[0]!.start, r.unparsed[0]!.end], [start, start + torn.length]);
  assert.match(r.diagnostics[1]!.message, new RegExp(`bytes ${start}–${start + torn.length} are a record cut short`));
});

test('{torn…{complete} (a crash, then the resumed writer appended a whole record to the same line): the complete record is read, its child is no orphan', () => {
  const torn = '{"type":"message","id":"0000'; // cut mid-string
  const b = msg('bbbbbbbb', 'aaaaaaaa', '日本 }{ "');
  const text = `${H3}\n${msg('aaaaaaaa', null)}\n${torn}${b}\n${msg('cccccccc', 'bbbbbbbb')}\n`;
  const r = parseJsonlLenient(text);
  assert.deepEqual(slices(text, r).records.slice(2), [[3, b], [4, msg('cccccccc', 'bbbbbbbb')]]);
  assert.deepEqual(slices(text, r).unparsed, [[3, torn]]);
  const start = Buffer.byteLength(`${H3}\n${msg('aaaaaaaa', null)}\n`);
  assert.deepEqual([r.unparsed[0]!.start, r.unparsed[0]!.end, r.records[2]!.start, r.records[2]!.end], [start, start + torn.length, start + torn.length, start + torn.length + Buffer.byteLength(b)]);
  assert.deepEqual(kinds(r), [[3, 'glued-records'], [3, 'torn-record']]);
  const doc = sessionDocumentFromText(text);
  assert.deepEqual(doc.diagnostics.filter((d) => d.kind === 'missing-parent'), []);
  assert.deepEqual(doc.context().messages.length, 3);
});

test('torn, then several complete records, then a torn one again, all on one line: every complete record is read', () => {
  const text = '{"type":"a","x":[1,{"y":"}{"}]' + '{"type":"b"}  {"type":"c"}' + '\n' + '{"type":"d"}{"type":"e","z":"q\\"';
  const r = parseJsonlLenient(text);
  assert.deepEqual(slices(text, r), {
    records: [[1, '{"type":"b"}'], [1, '{"type":"c"}'], [2, '{"type":"d"}']],
    unparsed: [[1, '{"type":"a","x":[1,{"y":"}{"}]'], [2, '{"type":"e","z":"q\\"']],
  });
  assert.deepEqual(kinds(r), [[1, 'glued-records'], [1, 'torn-record'], [2, 'glued-records'], [2, 'torn-record']]);
});

test('a torn last line cut right after an inner object is one torn record, not a record made of its inner object', () => {
  for (const torn of ['{"type":"message","usage":{"input":1}', '{"type":"m","content":[{"type":"text"}', '{"type":"m","content":[{"a":1},{"b":2}']) {
    const r = parseJsonlLenient(`${H3}\n${torn}`);
    assert.equal(r.records.length, 1, torn);
    assert.deepEqual(kinds(r), [[2, 'torn-tail']], torn);
  }
  // … and likewise in the middle of a file, before a record appended to the same line (the
  // record could be a value of the torn one: it is not guessed at, and the line stays unreadable)
  const r = parseJsonlLenient(`${H3}\n{"type":"message","id":{"type":"custom"}\n`);
  assert.equal(r.records.length, 1);
  assert.deepEqual(kinds(r), [[2, 'invalid-json']]);
});

test('a full rewrite keeps a torn fragment verbatim, in place', async () => {
  const d = tmp();
  const p = join(d, 's.jsonl');
  const text = `{"type":"session","version":2,"id":"s"}\n${msg('aaaaaaaa', null)}{"type":"message","id":"00\n{"type":"mess${msg('bbbbbbbb', 'aaaaaaaa')}\n`;
  writeFileSync(p, text);
  const old = new Date(Date.now() - 60_000);
  utimesSync(p, old, old);
  const l = await loadSessionFile(p);
  assert.equal(l.entries.length, 2);
  await rewriteSessionFile(p, l, { expected: l.stat!, force: true });
  const out = readFileSync(p, 'utf8');
  assert.ok(out.includes(`{"type":"message","id":"00\n{"type":"mess`), out);
  assert.equal(JSON.parse(out.split('\n')[0]!).version, 3);
  const again = await loadSessionFile(p);
  assert.deepEqual(again.entries, l.entries);
});

// ---- point 9: a record spread over several lines ---------------------------------------------

test('a pretty-printed record is read as one record from its first line to its last, as the agent does (Part B §17); its children are not orphaned', () => {
  const pretty = JSON.stringify({ type: 'message', id: 'bbbbbbbb', parentId: 'aaaaaaaa', message: { role: 'assistant', content: [{ type: 'text', text: 'a {\n} "b"' }], provider: 'p', model: 'm' } }, null, 2);
  for (const eol of ['\n', '\r\n']) {
    const body = pretty.split('\n').join(eol);
    const text = [H3, msg('aaaaaaaa', null), body, msg('cccccccc', 'bbbbbbbb'), ''].join(eol);
    const r = parseJsonlLenient(text);
    const n = pretty.split('\n').length;
    assert.deepEqual(slices(text, r).records, [[1, H3], [2, msg('aaaaaaaa', null)], [3, body], [3 + n, msg('cccccccc', 'bbbbbbbb')]]);
    assert.deepEqual(r.diagnostics, [{ line: 3, lastLine: 2 + n, kind: 'multi-line-record', message: `one record spread over lines 3–${2 + n} (pretty-printed JSON); read as one record, as the agent does` }]);
    const doc = sessionDocumentFromText(text);
    assert.deepEqual(doc.diagnostics.map((d) => d.kind), ['multi-line-record']);
    assert.equal(doc.context().messages.length, 3);
  }
});

test('a pretty-printed record is read the same by the streaming reader when it spans reads', async () => {
  const pretty = JSON.stringify({ type: 'custom', id: 'p', data: Array.from({ length: 20_000 }, (_, i) => ({ i })) }, null, 2);
  const text = `${H3}\n${pretty}\n${msg('a', 'p')}\n`;
  const p = join(tmp(), 's.jsonl');
  writeFileSync(p, text);
  const a = await readJsonlFile(p);
  assert.deepEqual(a, parseJsonlLenient(text));
  assert.equal(a.records.length, 3);
  assert.equal(a.records[1]!.end - a.records[1]!.start, Buffer.byteLength(pretty));
});

test('a pretty-printed record that never closes is read line by line as before; the record after it (a `{` in column 0) is not swallowed', () => {
  const text = `${H3}\n{\n  "type": "message",\n  "id": "x",\n${msg('a', null)}\n`;
  const r = parseJsonlLenient(text);
  assert.deepEqual(slices(text, r).records, [[1, H3], [5, msg('a', null)]]);
  assert.deepEqual(kinds(r), [[2, 'invalid-json']]);
  assert.equal(r.diagnostics[0]!.lastLine, 4);
  assert.deepEqual(slices(text, r).unparsed, [[2, '{\n  "type": "message",\n  "id": "x",']]);
  // at the end of the input, too, and when the joined text does not parse
  assert.deepEqual(kinds(parseJsonlLenient(`${H3}\n{\n  "a": 1,\n`)), [[2, 'invalid-json']]);
  assert.deepEqual(kinds(parseJsonlLenient(`${H3}\n{\n  "a": 1,\n}\n`)), [[2, 'invalid-json']]);
  assert.deepEqual(kinds(parseJsonlLenient(`${H3}\n{\n  "a": "x\n"}\n`)), [[2, 'invalid-json']]);
});

test('a rewrite keeps an unchanged multi-line record verbatim, and a migration edits a changed one in its own bytes (issue 15 §2: only the role changes)', async () => {
  const d = tmp();
  const pretty = JSON.stringify({ type: 'message', message: { role: 'hookMessage', content: 'h' } }, null, 2);
  const p = join(d, 'v2.jsonl');
  const original = `{"type":"session","version":2,"id":"s"}\n${pretty}\n${JSON.stringify({ type: 'custom', id: 'c', parentId: null })}\n`;
  writeFileSync(p, original);
  let l = await loadSessionFile(p);
  assert.equal(l.entries.length, 2);
  await rewriteSessionFile(p, l, { expected: l.stat!, force: true });
  assert.equal(readFileSync(p, 'utf8'), original.replace('"version":2', '"version":3').replace('"hookMessage"', '"custom"'));
  assert.equal(((await loadSessionFile(p)).entries[0] as unknown as { message: { role: string } }).message.role, 'custom');
  const q = join(d, 'v3.jsonl');
  const v3 = `${H3}\n${JSON.stringify({ type: 'custom', id: 'c', parentId: null, data: 1 }, null, 2)}\n`;
  writeFileSync(q, v3);
  l = await loadSessionFile(q);
  await rewriteSessionFile(q, l, { expected: l.stat!, force: true });
  assert.equal(readFileSync(q, 'utf8'), v3);
});

// ---- point 11: deep nesting ----------------------------------------------------------------------

test(`a record nested deeper than ${MAX_RECORD_DEPTH} levels costs that record only: the session loads, its entries and context serialise`, () => {
  const deep = (levels: number, id: string, parentId: string) => `{"type":"message","id":"${id}","parentId":"${parentId}","message":{"role":"user","content":"x","d":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}}`;
  for (const levels of [MAX_RECORD_DEPTH + 1, 5000, 100_000]) {
    const text = `${H3}\n${msg('aaaaaaaa', null)}\n${deep(levels, 'dddddddd', 'aaaaaaaa')}\n${msg('cccccccc', 'aaaaaaaa')}\n`;
    const doc = sessionDocumentFromText(text);
    assert.deepEqual(doc.loaded.entries.map((e) => e.id), ['aaaaaaaa', 'cccccccc']);
    assert.deepEqual(doc.diagnostics.map((d) => [d.line, d.kind]), [[3, 'too-deep']]);
    JSON.stringify(doc.loaded.entries);
    assert.equal(doc.context().messages.length, 2);
  }
  // the limit itself is read (the record is level 1; the array is the message's `d`, level 3)
  const atLimit = loadSessionFromText(`${H3}\n${deep(MAX_RECORD_DEPTH, 'dddddddd', 'aaaaaaaa')}\n`);
  assert.deepEqual(atLimit.diagnostics, []);
  assert.equal(atLimit.entries.length, 1);
  JSON.stringify(atLimit.entries);
});

test('a too-deep record is kept verbatim as an unparsed range, glued, pretty-printed or on its own line', () => {
  const deep = `{"type":"x","d":${'{"a":'.repeat(MAX_RECORD_DEPTH)}1${'}'.repeat(MAX_RECORD_DEPTH)}}`;
  const text = `${H3}\n${deep}\n{"type":"y"}${deep}\n{\n  "type": "z",\n  "d": ${'['.repeat(MAX_RECORD_DEPTH)}${']'.repeat(MAX_RECORD_DEPTH)}\n}\n`;
  const r = parseJsonlLenient(text);
  assert.deepEqual(slices(text, r).records, [[1, H3], [3, '{"type":"y"}']]);
  assert.deepEqual(r.unparsed.map((u) => [u.line, u.lastLine]), [[2, undefined], [3, undefined], [4, 7]]);
  assert.deepEqual(kinds(r), [[2, 'too-deep'], [3, 'glued-records'], [3, 'too-deep'], [4, 'too-deep']]);
});

// ---- point 12: linear time, bounded findings ---------------------------------------------------

test('100,000 records glued on one line are split in linear time (was quadratic: a prefix re-measured per record)', () => {
  const recs = Array.from({ length: 100_000 }, (_, i) => msg(i.toString(16).padStart(8, '0'), null, i % 7 === 0 ? 'é😀' : 'x'));
  const text = `${H3}\n${recs.join('')}\n`;
  const t0 = performance.now();
  const r = parseJsonlLenient(text);
  const ms = performance.now() - t0;
  assert.equal(r.records.length, 100_001);
  const buf = Buffer.from(text);
  for (const k of [1, 2, 50_000, 100_000]) assert.equal(buf.toString('utf8', r.records[k]!.start, r.records[k]!.end), recs[k - 1]);
  // Linear: ~0.5 s on a loaded 2-core machine; the quadratic split took minutes.
  assert.ok(ms < 15_000, `${ms} ms`);
});

test('a million blank lines, and a million junk lines, are one finding each, and cost no parse exception per line', () => {
  const blanks = parseJsonlLenient(`${H3}\n${'\n'.repeat(1_000_000)}${msg('a', null)}\n`);
  assert.deepEqual(blanks.diagnostics, [{ line: 2, lastLine: 1_000_001, count: 1_000_000, kind: 'blank', message: '1000000 blank lines (lines 2–1000001; skipped)' }]);
  assert.equal(blanks.records.length, 2);
  const t0 = performance.now();
  const junk = parseJsonlLenient(`${H3}\n${'not json\n'.repeat(1_000_000)}${msg('a', null)}\n`);
  const ms = performance.now() - t0;
  assert.deepEqual(kinds(junk), [[2, 'invalid-json']]);
  assert.equal(junk.diagnostics[0]!.count, 1_000_000);
  assert.match(junk.diagnostics[0]!.message, /^1000000 lines could not be parsed as JSON \(lines 2–1000001; the first could not be parsed as JSON \(Unexpected token/);
  assert.deepEqual(junk.unparsed, [{ line: 2, lastLine: 1_000_001, start: H3.length + 1, end: H3.length + 1 + 9 * 1_000_000 - 1 }]);
  assert.ok(ms < 15_000, `${ms} ms`);
});

test('blank lines between unreadable lines belong to their run; blank lines before or after it are a finding of their own', () => {
  const text = `${H3}\n\n\nbad\n\n[1]\n\nbad\n\n\n${msg('a', null)}\nbad\n`;
  const r = parseJsonlLenient(text);
  assert.deepEqual(r.diagnostics.map((d) => [d.line, d.lastLine, d.count, d.kind]), [
    [2, 3, 2, 'blank'],
    [4, 8, 3, 'invalid-json'],
    [9, 10, 2, 'blank'],
    [12, undefined, undefined, 'invalid-json'],
  ]);
  assert.match(r.diagnostics[1]!.message, /^3 lines could not be read as records \(2 not valid JSON, 1 valid JSON but not objects\) \(lines 4–8, with 2 blank lines among them;/);
  assert.deepEqual(slices(text, r).unparsed, [[4, 'bad\n\n[1]\n\nbad'], [12, 'bad']]);
});

test('a typeless `{…}` at the end of a torn line is not taken for a record (it may close a string the tear left open)', () => {
  const line = '{"type":"message","id":"r1","message":{"role":"user","content":"a"}}{"type":"brand_new","id":"r2","message":{"content":[{"type":"text","text":"}{}';
  const r = parseJsonlLenient(`${H3}\n${line}\n`);
  assert.deepEqual(
    r.records.map((x) => x.value.id),
    ['s', 'r1'],
  );
  assert.ok(r.diagnostics.some((d) => d.kind === 'torn-record'));
});
