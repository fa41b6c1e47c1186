import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeSourceEventSeqs } from '../../src/core/formats/dsh/varint';
import { encodeSourceEventSeqs } from '../reference/dshVarint';

test('source_event_seqs: unsigned LEB128 first seq, then ZigZag deltas (vectors worked out by hand from dsh-format.md §3)', () => {
  // [19, 20, 4] (the compaction fixture's summary): 19 → 13; +1 → zigzag 2 → 02; −16 → zigzag 31 → 1f
  assert.deepEqual(decodeSourceEventSeqs(Uint8Array.from([0x13, 0x02, 0x1f])), [19, 20, 4]);
  // 300 → LEB128 ac 02; +1 → 02; −1 → zigzag 1 → 01
  assert.deepEqual(decodeSourceEventSeqs(Uint8Array.from([0xac, 0x02, 0x02, 0x01])), [300, 301, 300]);
  assert.deepEqual(decodeSourceEventSeqs(new Uint8Array(0)), []);
  assert.deepEqual(Array.from(encodeSourceEventSeqs([19, 20, 4])), [0x13, 0x02, 0x1f]);
});

test('a truncated varint or one past the safe integer range is an error, not a wrong seq', () => {
  assert.throws(() => decodeSourceEventSeqs(Uint8Array.from([0x80])), /truncated/);
  assert.throws(() => decodeSourceEventSeqs(Uint8Array.from(Array(9).fill(0xff).concat([0x7f]))), /safe integer/);
});

test('property: encoding then decoding gives the seqs back', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 40 }), { maxLength: 50 }), (seqs) => {
      assert.deepEqual(decodeSourceEventSeqs(encodeSourceEventSeqs(seqs)), seqs);
    }),
  );
});
