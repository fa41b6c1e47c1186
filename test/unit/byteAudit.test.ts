// doctor's byte audit (issue 15): bytes that are not UTF-8 and integers beyond ±(2^53−1) — what
// every JSON.parse-based reader changes — found with their lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { auditSessionBytes, firstInvalidUtf8, unsafeIntegers } from '../../src/core/formats/xcsh/byteAudit';

test('firstInvalidUtf8 agrees with Node’s UTF-8 validator on any bytes, and points at a byte the decoder replaces', () => {
  fc.assert(
    fc.property(fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }).map((s) => new Uint8Array(Buffer.from(s)))), (bytes) => {
      const at = firstInvalidUtf8(bytes);
      assert.equal(at === -1, isUtf8(bytes));
      if (at !== -1) assert.ok(isUtf8(bytes.subarray(0, at)), 'everything before it is valid');
    }),
    { numRuns: 3000 },
  );
});

test('unsafeIntegers: integer literals beyond ±(2^53−1) outside strings; floats, safe integers and digits in strings are not', () => {
  const line = Buffer.from('{"a":9007199254740991,"b":9007199254740992,"c":-9007199254740993,"s":"99999999999999999999","e":1e400,"f":12345678901234567890.5,"k\\"":[123456789012345678901]}');
  assert.deepEqual(unsafeIntegers(line).map(([, t]) => t), ['9007199254740992', '-9007199254740993', '123456789012345678901']);
});

test('auditSessionBytes: one finding per kind and line, with the right line numbers across read boundaries', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-audit-'));
  const p = join(dir, 's.jsonl');
  const long = `{"type":"custom","data":"${'x'.repeat(700_000)}","n":12345678901234567890}`; // spans several reads
  writeFileSync(p, Buffer.concat([Buffer.from('{"type":"session","version":3,"id":"s"}\n' + long + '\n{"a":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}\n{"n":1}')]));
  const d = await auditSessionBytes(p);
  assert.deepEqual(d.map((x) => [x.line, x.kind]), [[2, 'unsafe-integer'], [3, 'invalid-utf8']]);
  assert.match(d[1]!.message, new RegExp(`column 7 \\(file offset ${40 + long.length + 1 + 6}\\)`));
});
