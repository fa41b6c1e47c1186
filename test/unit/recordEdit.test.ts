// Byte-level record edits (issue 15 point 2): only the edited spans change; JSON.parse of the
// result equals the parsed original with the edits applied — for any JSON text, including what a
// re-serialisation would lose (invalid UTF-8, integers beyond 2^53, -0, duplicate keys, escapes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyEditsToValue, editRecord, planRecordEdits, RecordEditError, type RecordEdit } from '../../src/core/store/recordEdit';

const b = (s: string | Buffer): Buffer => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s);

test('set inserts after "type" (upstream key order) and keeps every other byte', () => {
  const src = '{ "type" : "message",\t"timestamp":"t","n":12345678901234567890,"z":-0,"message":{"role":"user"} }';
  const out = editRecord(b(src), [
    { op: 'set', path: ['id'], value: 'abcd1234', after: ['type'] },
    { op: 'set', path: ['parentId'], value: null, after: ['id', 'type'] },
  ]);
  assert.equal(out.toString(), '{ "type" : "message","id":"abcd1234","parentId":null,\t"timestamp":"t","n":12345678901234567890,"z":-0,"message":{"role":"user"} }');
});

test('set replaces an existing value in place; with duplicate keys the LAST one (the one JSON.parse keeps)', () => {
  const out = editRecord(b('{"type":"m","id":5,"x":1,"id":7}'), [{ op: 'set', path: ['id'], value: 'aaaaaaaa', after: ['type'] }]);
  assert.equal(out.toString(), '{"type":"m","id":5,"x":1,"id":"aaaaaaaa"}');
  assert.equal(JSON.parse(out.toString()).id, 'aaaaaaaa');
});

test('nested set (message.role) touches only the role value', () => {
  const src = '{"type":"message","message":{"content":"\\u00e9 \\"role\\":1","role" : "hookMessage" ,"x":[1,{"role":2}]}}';
  const out = editRecord(b(src), [{ op: 'set', path: ['message', 'role'], value: 'custom' }]);
  assert.equal(out.toString(), src.replace('"hookMessage"', '"custom"'));
});

test('rename keeps the position; refused when the key is duplicated or the new name exists', () => {
  assert.equal(editRecord(b('{"type":"compaction","firstKeptEntryIndex":3,"s":1}'), [{ op: 'rename', from: 'firstKeptEntryIndex', to: 'firstKeptEntryId', value: 'abcdabcd' }]).toString(), '{"type":"compaction","firstKeptEntryId":"abcdabcd","s":1}');
  assert.throws(() => editRecord(b('{"firstKeptEntryIndex":3,"firstKeptEntryIndex":4}'), [{ op: 'rename', from: 'firstKeptEntryIndex', to: 'firstKeptEntryId', value: 'x' }]), RecordEditError);
  assert.throws(() => editRecord(b('{"a":3,"b":4}'), [{ op: 'rename', from: 'a', to: 'b', value: 'x' }]), RecordEditError);
});

test('invalid UTF-8 and raw bytes outside the edit survive (a re-serialisation would write U+FFFD)', () => {
  const src = Buffer.concat([b('{"type":"message","text":"a'), Buffer.from([0xff, 0xc3, 0x28]), b('b"}')]);
  const out = editRecord(src, [{ op: 'set', path: ['id'], value: '00000001', after: ['type'] }]);
  assert.ok(out.equals(Buffer.concat([b('{"type":"message","id":"00000001","text":"a'), Buffer.from([0xff, 0xc3, 0x28]), b('b"}')])));
});

test('an absent anchor inserts first; an empty object gets the member alone', () => {
  assert.equal(editRecord(b('{ "a":1}'), [{ op: 'set', path: ['id'], value: 'x', after: ['type'] }]).toString(), '{"id":"x", "a":1}');
  assert.equal(editRecord(b('{ }'), [{ op: 'set', path: ['id'], value: 'x' }, { op: 'set', path: ['p'], value: 1, after: ['id'] }]).toString(), '{"id":"x","p":1 }');
});

test('not one JSON object, or an edit into a non-object: RecordEditError, never a partial edit', () => {
  for (const bad of ['', '[]', '{"a":1', '{"a":1}x', '{"a" 1}', '{"a":"x}', '"s"']) {
    assert.throws(() => editRecord(b(bad), [{ op: 'set', path: ['id'], value: 1 }]), RecordEditError, bad);
  }
  assert.throws(() => editRecord(b('{"message":"text"}'), [{ op: 'set', path: ['message', 'role'], value: 'custom' }]), RecordEditError);
  assert.throws(() => editRecord(b('{"a":1}'), [{ op: 'set', path: ['a'], value: undefined }]), RecordEditError);
});

// ---------- fuzz ----------

/** JSON text built from pieces, so whitespace, escapes and odd-but-valid literals are random. */
type Piece = Buffer;
const ws = fc.constantFrom('', '', ' ', '\t', '  ', '\r\n ', '\n').map(b);
const strChar = fc.oneof(
  fc.constantFrom('a', 'Z', ' ', 'é', '😀', '中', '}', '{', '[', ']', ',', ':', '\\\\', '\\"', '\\n', '\\u0041', '\\u00e9', '\\ud83d\\ude00', '\\/', '\\t').map(b),
  fc.constantFrom(Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0x80])), // not UTF-8
  fc.string({ maxLength: 3 }).map((s) => b(JSON.stringify(s).slice(1, -1))),
);
const strText = fc.array(strChar, { maxLength: 6 }).map((parts) => Buffer.concat([b('"'), ...parts, b('"')]));
const keyText = fc.oneof(
  fc.constantFrom('type', 'id', 'parentId', 'message', 'role', 'a', 'b', '__proto__', 'firstKeptEntryIndex').map((k) => b(JSON.stringify(k))),
  fc.constantFrom(b('"\\u0069d"'), b('"ty\\u0070e"')), // escaped forms of "id" and "type"
  strText,
);
const numText = fc.oneof(
  fc.integer().map((n) => b(String(n))),
  fc.constantFrom('-0', '0.0', '1e400', '-1E-7', '12345678901234567890', '-9007199254740993', '0.1000000000000000055511151231257827').map(b),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => b(JSON.stringify(d))),
);
const { value: valueText } = fc.letrec<{ value: Piece; object: Piece; array: Piece }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, strText, numText, fc.constantFrom('true', 'false', 'null').map(b), tie('object'), tie('array')),
  object: fc
    .array(fc.tuple(ws, keyText, ws, ws, tie('value'), ws), { maxLength: 5 })
    .chain((members) => ws.map((inner) => Buffer.concat([b('{'), members.length === 0 ? inner : Buffer.concat(members.map(([w1, k, w2, w3, v, w4], i) => Buffer.concat([i > 0 ? b(',') : b(''), w1, k, w2, b(':'), w3, v, w4]))), b('}')]))),
  array: fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }).map((items) => Buffer.concat([b('['), ...items.map(([w1, v, w2], i) => Buffer.concat([i > 0 ? b(',') : b(''), w1, v, w2])), b(']')])),
}));
const recordText = fc.tuple(ws, valueText, ws).filter(([, v]) => v[0] === 0x7b).map(([a, v, c]) => Buffer.concat([a, v, c]));

const KEYS = ['type', 'id', 'parentId', 'timestamp', 'message', 'role', 'a', 'b', 'new key', 'é'];
// (values as a writer gives them back: fc.jsonValue may hold -0, which JSON.stringify writes as 0)
const newValue = fc.oneof(fc.constantFrom(null, 3, 'abcd1234', 'custom', '😀\u0000"\\', -1.5), fc.jsonValue({ maxDepth: 2 })).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/** Edits that are valid for `value` (what a migration would ask), drawn from its own keys and others. */
function editsFor(value: Record<string, unknown>): fc.Arbitrary<RecordEdit[]> {
  const own = Object.keys(value);
  const keyArb = own.length > 0 ? fc.oneof(fc.constantFrom(...own), fc.constantFrom(...KEYS)) : fc.constantFrom(...KEYS);
  const nestedKeys = own.filter((k) => value[k] !== null && typeof value[k] === 'object' && !Array.isArray(value[k]));
  const one: fc.Arbitrary<RecordEdit> = fc.oneof(
    fc.record({ key: keyArb, value: newValue, after: fc.array(keyArb, { maxLength: 3 }) }).map(({ key, value: v, after }) => ({ op: 'set' as const, path: [key], value: v, after })),
    ...(nestedKeys.length > 0
      ? [fc.record({ outer: fc.constantFrom(...nestedKeys), key: fc.constantFrom('role', 'x', ...KEYS), value: newValue }).map(({ outer, key, value: v }) => ({ op: 'set' as const, path: [outer, key], value: v }))]
      : []),
  );
  return fc.array(one, { maxLength: 4 });
}

const hasDup = (buf: Buffer, key: string): boolean => {
  // cheap over-approximation: the key's JSON form occurs twice in the text
  const k = Buffer.from(JSON.stringify(key));
  const i = buf.indexOf(k);
  return i !== -1 && buf.indexOf(k, i + 1) !== -1;
};

test('fuzz: JSON.parse(editRecord(bytes, edits)) equals applyEditsToValue(JSON.parse(bytes), edits), and only the edited spans change', () => {
  fc.assert(
    fc.property(
      recordText.chain((bytes) => {
        const value = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
        return fc.tuple(fc.constant(bytes), editsFor(value));
      }),
      ([bytes, edits]) => {
        const original = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
        let expected: Record<string, unknown>;
        try {
          expected = applyEditsToValue(original, edits);
        } catch (e) {
          assert.ok(e instanceof RecordEditError);
          assert.throws(() => editRecord(bytes, edits), RecordEditError);
          return;
        }
        let splices;
        try {
          splices = planRecordEdits(bytes, edits);
        } catch (e) {
          // The byte editor may refuse only a nested edit it cannot place exactly: into a key that
          // occurs twice, or into a value an earlier edit replaced (migrations never ask either).
          assert.ok(e instanceof RecordEditError);
          const setBefore = (k: number, key: string) => edits.slice(0, k).some((x) => x.op === 'set' && x.path.length === 1 && x.path[0] === key);
          assert.ok(
            edits.some((x, k) => x.op === 'set' && x.path.length > 1 && (hasDup(bytes, x.path[0]!) || setBefore(k, x.path[0]!))),
            `unexpected refusal: ${(e as Error).message}`,
          );
          return;
        }
        const out = editRecord(bytes, edits);
        assert.deepStrictEqual(JSON.parse(out.toString('utf8')), expected);
        // Every replaced span is exactly one JSON key or value of the original (nothing around it),
        // and the output is the original with only those spans replaced.
        let pos = 0;
        const parts: Buffer[] = [];
        for (const s of splices) {
          assert.ok(s.start >= pos);
          parts.push(bytes.subarray(pos, s.start), Buffer.from(s.text));
          if (s.end > s.start) assert.doesNotThrow(() => JSON.parse(bytes.subarray(s.start, s.end).toString('utf8')));
          pos = s.end;
        }
        parts.push(bytes.subarray(pos));
        assert.ok(out.equals(Buffer.concat(parts)));
        assert.ok(splices.length <= edits.length + 1, 'one splice per edit (a rename: key and value)');
      },
    ),
    { numRuns: 1500 },
  );
});

test('fuzz: a record that is not one JSON object never edits silently (RecordEditError)', () => {
  fc.assert(
    fc.property(fc.oneof(valueText.filter((v) => v[0] !== 0x7b), fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)), recordText.map((r) => r.subarray(0, Math.max(0, r.length - 2)))), (bytes) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      const isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
      try {
        const out = editRecord(bytes, [{ op: 'set', path: ['id'], value: 'x', after: ['type'] }]);
        assert.ok(isObject, 'edited something that is not a JSON object');
        assert.equal((JSON.parse(out.toString('utf8')) as { id: unknown }).id, 'x');
      } catch (e) {
        if (!(e instanceof RecordEditError)) throw e;
      }
    }),
    { numRuns: 1000 },
  );
});
