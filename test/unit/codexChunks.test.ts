// A rollout read in chunks reads as the same bytes held whole (codex-format.md B.1): the file
// reader reuses one buffer for every read, and a line cut by a read is kept as a copy — a Buffer's
// slice() is a view, so a view kept across reads would be overwritten by the next one. Fed here
// through one small reused Buffer (real fixtures), and read from a file of several reads (the
// agentcmd fixture's turns repeated, bench/agentGenerate.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCodexRollout } from '../../bench/agentGenerate';
import { RolloutLineScanner } from '../../src/core/formats/codex/lineScanner';
import { loadCodexRollout, readCodexRolloutBytes } from '../../src/core/formats/codex/load';
import { fixture } from '../helpers/fixtures';

const FIXTURES = [
  fixture('codex', 'agentcmd', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl'),
  fixture('codex', 'agentcmd', 'rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl'),
];

test('a rollout fed through one reused Buffer of a few bytes gives the records and findings of the whole text', async () => {
  for (const path of FIXTURES) {
    const bytes = readFileSync(path);
    const whole = await readCodexRolloutBytes(bytes);
    assert.ok(whole.records.length > 10);
    for (const size of [1, 7, 64, 4096]) {
      const scanner = new RolloutLineScanner();
      const reused = Buffer.alloc(size);
      for (let at = 0; at < bytes.length; at += size) {
        const n = bytes.copy(reused, 0, at, Math.min(bytes.length, at + size));
        scanner.push(reused.subarray(0, n));
      }
      scanner.finish();
      assert.deepEqual(scanner.records, whole.records, `${path} in chunks of ${size}`);
      assert.deepEqual(scanner.diagnostics, whole.diagnostics.filter((d) => d.kind !== 'codex-empty' && d.kind !== 'codex-no-meta'));
    }
  }
});

test('a rollout of several reads from the file is the rollout held whole', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codex-chunks-'));
  try {
    const path = join(dir, 'rollout.jsonl');
    generateCodexRollout(path, 3 << 20);
    const read = await loadCodexRollout(path);
    const whole = await readCodexRolloutBytes(readFileSync(path), path, read.mtimeMs);
    assert.equal(read.diagnostics.length, 0, JSON.stringify(read.diagnostics.slice(0, 3)));
    assert.deepEqual(read.records, whole.records);
    assert.equal(read.records.length, whole.records.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
