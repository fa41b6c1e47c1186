import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJsonlLenient, readJsonlFile, readJsonlPrefix } from '../../src/core/formats/xcsh/jsonl';
import { splitLine } from '../../src/core/formats/xcsh/jsonlSplit';

const kinds = (r: { diagnostics: { line: number; kind: string }[] }) => r.diagnostics.map((d) => [d.line, d.kind]);
const tmp = () => mkdtempSync(join(tmpdir(), 'loom-jsonl-'));

test('parses one object per line with 1-based lines and byte offsets', () => {
  const text = '{"a":1}\n{"b":"é"}\n';
  const r = parseJsonlLenient(text);
  assert.equal(r.records.length, 2);
  assert.deepEqual(r.records.map((x) => x.line), [1, 2]);
  const buf = Buffer.from(text);
  for (const rec of r.records) assert.deepEqual(JSON.parse(buf.toString('utf8', rec.start, rec.end)), rec.value);
  assert.equal(r.lines, 2);
  assert.equal(r.endsWithNewline, true);
});

test('blank lines are skipped with a diagnostic; consecutive ones are one finding with a count and a line range', () => {
  const r = parseJsonlLenient('{"a":1}\n\n   \n{"b":2}\n\n{"c":3}\n');
  assert.equal(r.records.length, 3);
  assert.deepEqual(kinds(r), [[2, 'blank'], [5, 'blank']]);
  assert.deepEqual(r.diagnostics[0], { line: 2, lastLine: 3, count: 2, kind: 'blank', message: '2 blank lines (lines 2–3; skipped)' });
  assert.deepEqual(r.diagnostics[1], { line: 5, kind: 'blank', message: 'blank line (skipped)' });
  assert.equal(r.records[1]!.line, 4);
});

test('CRLF: records parse and offsets exclude the \\r', () => {
  const text = '{"a":1}\r\n{"b":2}\r\n';
  const r = parseJsonlLenient(text);
  assert.equal(r.records.length, 2);
  assert.equal(r.diagnostics.length, 0);
  assert.equal(Buffer.from(text).toString('utf8', r.records[0]!.start, r.records[0]!.end), '{"a":1}');
});

test('missing final newline: the last record still loads, no diagnostic', () => {
  const r = parseJsonlLenient('{"a":1}\n{"b":2}');
  assert.equal(r.records.length, 2);
  assert.equal(r.diagnostics.length, 0);
  assert.equal(r.endsWithNewline, false);
});

test('torn tail: an unterminated fragment is reported, not swallowed', () => {
  const r = parseJsonlLenient('{"a":1}\n{"b":2');
  assert.equal(r.records.length, 1);
  assert.deepEqual(kinds(r), [[2, 'torn-tail']]);
  assert.equal(r.unparsed.length, 1);
});

test('an unparseable line in the middle is invalid-json and kept as an unparsed range', () => {
  const text = '{"a":1}\n{"bad":"\\q"}\n{"c":3}\n';
  const r = parseJsonlLenient(text);
  assert.deepEqual(kinds(r), [[2, 'invalid-json']]);
  assert.equal(Buffer.from(text).toString('utf8', r.unparsed[0]!.start, r.unparsed[0]!.end), '{"bad":"\\q"}');
});

test('valid JSON that is not an object is not-an-object; consecutive such lines are one finding and one kept range', () => {
  const text = '[1,2]\n"s"\n3\nnull\n{"a":1}\n7\n';
  const r = parseJsonlLenient(text);
  assert.equal(r.records.length, 1);
  assert.deepEqual(kinds(r), [[1, 'not-an-object'], [6, 'not-an-object']]);
  assert.equal(r.diagnostics[0]!.count, 4);
  assert.equal(r.diagnostics[0]!.lastLine, 4);
  assert.match(r.diagnostics[0]!.message, /^4 lines are valid JSON but not objects \(lines 1–4; the first is valid JSON but not an object \(array\)\)/);
  assert.equal(r.diagnostics[1]!.message, 'line is valid JSON but not an object (number); skipped, kept verbatim');
  const buf = Buffer.from(text);
  assert.deepEqual(r.unparsed.map((u) => buf.toString('utf8', u.start, u.end)), ['[1,2]\n"s"\n3\nnull', '7']);
  assert.deepEqual(r.unparsed.map((u) => [u.line, u.lastLine]), [[1, 4], [6, undefined]]);
});

test('BOM before line 1 is skipped and reported', () => {
  const r = parseJsonlLenient(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"type":"session","id":"x"}\n')]));
  assert.equal(r.records.length, 1);
  assert.equal(r.records[0]!.start, 3);
  assert.deepEqual(kinds(r), [[1, 'bom']]);
});

test('oh-my-pi title line: skipped, reported, exposed separately', () => {
  const title = '{"type":"title","title":"hello"}'.padEnd(255, ' ');
  const r = parseJsonlLenient(`${title}\n{"type":"session","id":"s"}\n`);
  assert.equal(r.records.length, 1);
  assert.equal(r.records[0]!.line, 2);
  assert.equal(r.title?.value.title, 'hello');
  assert.deepEqual(kinds(r), [[1, 'title-line']]);
});

test('a {"type":"title"} record after line 1 is an ordinary record', () => {
  const r = parseJsonlLenient('{"type":"session","id":"s"}\n{"type":"title"}\n');
  assert.equal(r.records.length, 2);
  assert.equal(r.title, null);
});

test('glued records are split; each keeps its own byte slice', () => {
  const text = '{"a":1}{"b":2}{"c":{"d":[1,{"e":2}]}}\n';
  const r = parseJsonlLenient(text);
  assert.deepEqual(r.records.map((x) => x.value), [{ a: 1 }, { b: 2 }, { c: { d: [1, { e: 2 }] } }]);
  assert.deepEqual(kinds(r), [[1, 'glued-records']]);
  const buf = Buffer.from(text);
  assert.deepEqual(r.records.map((x) => buf.toString('utf8', x.start, x.end)), ['{"a":1}', '{"b":2}', '{"c":{"d":[1,{"e":2}]}}']);
});

test('"}{" inside a string never splits a record', () => {
  const one = '{"t":"a}{b","u":"\\"}{\\""}';
  const r = parseJsonlLenient(`${one}\n`);
  assert.equal(r.records.length, 1);
  assert.equal(r.diagnostics.length, 0);
  const glued = parseJsonlLenient(`${one}{"x":"}{"}\n`);
  assert.deepEqual(glued.records.map((x) => x.value), [JSON.parse(one), { x: '}{' }]);
});

test('glued with a multi-byte character: byte offsets stay exact', () => {
  const text = '{"a":"日本"}{"b":"😀"}\n';
  const r = parseJsonlLenient(text);
  const buf = Buffer.from(text);
  assert.deepEqual(r.records.map((x) => buf.toString('utf8', x.start, x.end)), ['{"a":"日本"}', '{"b":"😀"}']);
});

test('glued where one half is broken: the good half is recovered, the bad half kept verbatim', () => {
  const r = parseJsonlLenient('{"a":1}{"b":"\\q"}\n');
  assert.deepEqual(r.records.map((x) => x.value), [{ a: 1 }]);
  assert.deepEqual(kinds(r), [[1, 'glued-records'], [1, 'invalid-json']]);
  assert.equal(r.unparsed.length, 1);
});

test('splitLine rejects non-glued garbage; text after a record is a trailing fragment (issue 22 §24, Part B §18)', () => {
  const split = (s: string) => splitLine(Buffer.from(s), 0, Buffer.byteLength(s));
  assert.deepEqual(split('{"a":1} trailing'), [
    { start: 0, end: 7, value: { a: 1 }, fragment: null },
    { start: 8, end: 16, value: null, fragment: 'trailing' },
  ]);
  assert.equal(split('{"a":1'), null);
  assert.equal(split('{"a":1}'), null);
  assert.equal(split('[1]{"a":1}'), null);
});

test('streaming reader matches the in-memory reader, with lines spanning chunks', async () => {
  const big = 'x'.repeat(3 * 1024 * 1024); // longer than one 1 MB chunk
  const text = `{"type":"session","id":"s"}\r\n\n{"big":"${big}"}\n{"a":1}{"b":2}\nnot json\n{"tail":`;
  const p = join(tmp(), 's.jsonl');
  writeFileSync(p, text);
  const a = await readJsonlFile(p);
  const b = parseJsonlLenient(text);
  assert.deepEqual(a, b);
  assert.equal(a.records.length, 4);
  assert.deepEqual(kinds(a), [[2, 'blank'], [4, 'glued-records'], [5, 'invalid-json'], [6, 'torn-tail']]);
});

test('streaming reader: a newline on either side of each read boundary (64 KB first, then 256 KB reads)', async () => {
  const FIRST = 1 << 16;
  const NEXT = 1 << 18;
  // One line ends exactly where `boundary + shift` falls, then a few short lines follow.
  for (const boundary of [FIRST, FIRST + NEXT]) {
    for (const shift of [-2, -1, 0, 1, 2]) {
      const head = '{"type":"session","id":"s"}\n';
      const pad = boundary + shift - head.length - '{"p":""}'.length - 1; // the `\n` lands at boundary + shift - 1
      const text = `${head}{"p":"${'q'.repeat(pad)}"}\n{"a":1}\n{"b":"${'r'.repeat(FIRST)}"}\n{"c":3}`;
      const p = join(tmp(), `b${boundary}${shift}.jsonl`);
      writeFileSync(p, text);
      const a = await readJsonlFile(p);
      assert.deepEqual(a, parseJsonlLenient(text), `newline at ${boundary}${shift >= 0 ? '+' : ''}${shift}`);
      assert.equal(a.records.length, 5);
      assert.deepEqual(kinds(a), []); // the unterminated last line is whole JSON: a record
    }
  }
});

test('prefix reader: reads only maxBytes, a cut last line is not a torn tail', async () => {
  const p = join(tmp(), 'p.jsonl');
  writeFileSync(p, '{"type":"session","id":"s"}\n' + '{"a":"' + 'y'.repeat(10000) + '"}\n');
  const r = await readJsonlPrefix(p, 4096);
  assert.equal(r.truncated, true);
  assert.equal(r.records.length, 1);
  assert.equal(r.diagnostics.length, 0);
  const whole = await readJsonlPrefix(p, 1 << 20);
  assert.equal(whole.truncated, false);
  assert.equal(whole.records.length, 2);
});

test('empty input', () => {
  const r = parseJsonlLenient('');
  assert.equal(r.records.length, 0);
  assert.equal(r.lines, 0);
  assert.equal(r.diagnostics.length, 0);
});
