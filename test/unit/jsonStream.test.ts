// The CLI's JSON documents (src/cli/jsonStream.ts) are written in pieces of about a megabyte —
// a long array held whole as well as a streamed one — and the pieces put together are exactly
// JSON.stringify of the document, compact or pretty. The big document is a real one: the context
// of a Codex rollout made of the agentcmd fixture's turns repeated (bench/agentGenerate.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCodexRollout } from '../../bench/agentGenerate';
import { writeJsonObject } from '../../src/cli/jsonStream';
import type { Member } from '../../src/core/engine/documents';
import { openSessionModel } from '../../src/core/engine/openModel';

async function written(members: readonly Member[], pretty: boolean): Promise<string[]> {
  const pieces: string[] = [];
  await writeJsonObject({ out: (t) => void pieces.push(t), err: () => undefined }, members, pretty);
  return pieces;
}

/** The document as JSON.stringify writes it (streamed arrays gathered first). */
async function expected(members: readonly Member[], pretty: boolean): Promise<string> {
  const obj: Record<string, unknown> = {};
  for (const [k, v] of members) {
    if (typeof v === 'object' && v !== null && typeof (v as { stream?: unknown }).stream === 'function') {
      const all: unknown[] = [];
      await (v as { stream: (emit: (items: readonly unknown[]) => void) => Promise<void> }).stream((items) => void all.push(...items));
      obj[k] = all;
    } else obj[k] = v;
  }
  return JSON.stringify(obj, null, pretty ? 2 : undefined) + '\n';
}

test('a Codex context of several MB: written in pieces of about a megabyte, together exactly JSON.stringify of it, compact and pretty', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jsonstream-'));
  try {
    const path = join(dir, 'rollout.jsonl');
    generateCodexRollout(path, 8 << 20);
    const model = await openSessionModel(path);
    try {
      const { members } = await model.documents().context({});
      const items = members.find(([k]) => k === 'items')![1] as unknown[];
      assert.ok(Array.isArray(items) && items.length > 256, 'the items are an array held whole');
      for (const pretty of [false, true]) {
        const pieces = await written(members, pretty);
        const text = pieces.join('');
        assert.equal(text, await expected(members, pretty));
        assert.ok(text.length > 4 << 20, `a document of ${text.length} characters`);
        assert.ok(pieces.length >= 4, `${pieces.length} pieces`);
        const longest = Math.max(...pieces.map((p) => p.length));
        assert.ok(longest < 2 << 20, `the longest piece is ${longest} characters`);
      }
    } finally {
      model.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('arrays at and around the piecewise length, empty ones, streamed windows, and what JSON.stringify writes as null in an array', async () => {
  const odd = [1, undefined, () => 1, Symbol('s'), { a: undefined, b: [undefined] }, 'x\u2028y\u0085', null];
  for (const n of [0, 1, 255, 256, 257, 3000]) {
    const arr = Array.from({ length: n }, (_, i) => odd[i % odd.length]);
    const windows = { stream: async (emit: (items: readonly unknown[]) => void) => {
      emit([]);
      for (let k = 0; k < arr.length; k += 7) emit(arr.slice(k, k + 7));
    } };
    const members: Member[] = [['a', arr], ['skipped', undefined], ['s', windows], ['nested', { arr, n }], ['empty', []]];
    for (const pretty of [false, true]) {
      const text = (await written(members, pretty)).join('');
      // (the terminal escapes: U+2028 and U+0085 are written as \u escapes, JSON.parse gives the same value back)
      const want = (await expected(members, pretty)).replaceAll('\u2028', '\\u2028').replaceAll('\u0085', '\\u0085');
      assert.equal(text, want, `${n} items, ${pretty ? 'pretty' : 'compact'}`);
    }
  }
});
