// formats/sniff.ts: the one place that decides whether a file is a session, and its format
// (issue 21 §5.4). Every real fixture is a session; other files are named for what they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fixtureFiles } from '../helpers/fixtures';
import { SNIFF_BYTES, sniffSessionBytes } from '../../src/core/formats/sniff';

const sniff = (text: string | Buffer): ReturnType<typeof sniffSessionBytes> => {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  return sniffSessionBytes(bytes.subarray(0, SNIFF_BYTES), bytes.length);
};

test('every real fixture is a session, in its format', () => {
  for (const folder of ['real-v3', 'upstream', 'upstream-full', 'dsh']) {
    for (const f of fixtureFiles(folder)) assert.deepEqual(sniff(readFileSync(f)), { kind: 'session', format: folder === 'dsh' ? 'dsh' : 'xcsh' }, f);
  }
});

test('what could be a damaged session is one: empty, blank, BOM, title line, v1 entry, unknown entry type, glued, torn first line, one huge record', () => {
  const session = { kind: 'session', format: 'xcsh' };
  for (const text of [
    '',
    '\n\n',
    '\ufeff{"type":"session","version":3,"id":"a"}\n',
    '{"type":"title","title":"x"}\n{"type":"session","version":3,"id":"a"}\n',
    '{"type":"message","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"a"}}\n',
    '{"type":"some_future_type","id":"a1","parentId":null}\n',
    '{"type":"session","id":"a"}{"type":"message","id":"b"}\n',
    'ssage":{"role":"user"}}\n{"type":"message","id":"b","parentId":null}\n',
    `{"type":"message","id":"b","message":{"content":"${'x'.repeat(SNIFF_BYTES * 2)}"}}\n`,
  ]) {
    assert.deepEqual(sniff(text), session, text.slice(0, 80));
  }
  assert.deepEqual(sniff(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0])), { kind: 'session', format: 'dsh' });
  assert.deepEqual(sniff(Buffer.from('SQLite format 3\0rest')), { kind: 'session', format: 'dsh' });
  assert.deepEqual(sniff('{"type":"turn/start","seq":1,"time":1,"data":{}}\n'), session, 'a headerless dsh event is a session record');
});

test('what is not a session says what it is', () => {
  const not = (text: string | Buffer): string => {
    const r = sniff(text);
    assert.equal(r.kind, 'not-session', String(text).slice(0, 40));
    return (r as { reason: string }).reason;
  };
  assert.equal(not(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])), 'binary data (an ELF executable)');
  assert.equal(not(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])), 'binary data (a PNG image)');
  assert.equal(not(Buffer.from([0x1f, 0x8b, 8, 0])), 'binary data (gzip-compressed data)');
  assert.equal(not(Buffer.from([1, 2, 3, 0, 250, 251, 10, 0, 0])), 'binary data');
  assert.equal(not('[1,2,3]\n'), 'a JSON array, not JSONL records');
  assert.equal(not('[\n  1\n]\n'), 'a JSON array, not JSONL records');
  assert.equal(not('"text"\n'), 'a JSON string, not JSONL records');
  assert.equal(not('{\n  "a": 1\n}\n'), 'a multi-line JSON document, not JSONL records');
  assert.equal(not('{"a":1}\n{"b":2}\n'), 'JSONL, but no line is a session record (an xcsh/pi header or entry, a dsh header or event)');
  assert.match(not(`${'{"a":1}\n'.repeat(SNIFF_BYTES / 4)}`), /^JSONL, but no line of the first \d+ is a session record/);
  assert.equal(not('hello\nworld\n'), 'text, not JSONL records');
});
