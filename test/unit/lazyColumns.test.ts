// The lazy index's growable columns (issue 11's memory target): a column sized ahead holds its
// values through `reserve`, and trimming keeps a small spare room as a view instead of copying
// (a copy frees the bigger block, which the C allocator keeps resident).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Column, PackedStrings } from '../../src/core/engine/xcsh/lazy/columns';

test('reserve makes room in one allocation and keeps the values pushed before', () => {
  const c = new Column(Int32Array, 4);
  for (let i = 0; i < 4; i++) c.push(i * 3);
  c.reserve(1000);
  assert.equal(c.capacity, 1000);
  for (let i = 4; i < 1000; i++) c.push(i * 3);
  assert.equal(c.capacity, 1000, 'no growth while the reserved room lasts');
  const a = c.trimmed();
  assert.equal(a.length, 1000);
  assert.ok(a.every((v, i) => v === i * 3));
  c.reserve(10); // never shrinks
  assert.equal(c.capacity, 1000);
});

test('trimming: up to an eighth of spare room stays behind a view, more is copied to the exact length', () => {
  const small = new Column(Float64Array, 1000);
  for (let i = 0; i < 900; i++) small.push(i);
  const view = small.trimmed();
  assert.equal(view.length, 900);
  assert.equal(view.buffer.byteLength, 1000 * 8, 'a view of the reserved block');
  const big = new Column(Float64Array, 1000);
  for (let i = 0; i < 500; i++) big.push(i);
  const copy = big.trimmed();
  assert.equal(copy.length, 500);
  assert.equal(copy.buffer.byteLength, 500 * 8, 'copied to exactly its length');
  assert.ok(copy.every((v, i) => v === i));
});

test('packed strings keep their strings and nulls across a reserve', () => {
  const p = new PackedStrings();
  const want: (string | null)[] = [];
  for (let i = 0; i < 5000; i++) {
    const s = i % 7 === 0 ? null : `id${i.toString(16)}`;
    want.push(s);
    p.push(s);
    if (i === 100) p.reserve(20_000);
  }
  assert.deepEqual(Array.from({ length: want.length }, (_, i) => p.at(i)), want);
});
