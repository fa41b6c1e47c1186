// The bench's big Claude Code transcripts and Codex rollouts (bench/agentGenerate.ts): made of a
// real fixture's records repeated, each copy with its own ids, they open with the format's model
// without a diagnostic, and what the model counts grows with the copies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAUDE_SOURCE, CODEX_SOURCE, generateClaudeTranscript, generateCodexRollout, idInCopy } from '../../bench/agentGenerate';
import { openSessionModel } from '../../src/core/engine/openModel';
import { ClaudeModel } from '../../src/core/engine/claude/claudeModel';
import { fixture } from '../helpers/fixtures';

async function opened(path: string) {
  const model = await openSessionModel(path);
  const summary = await model.summary();
  const leaf = await model.defaultLeaf();
  const ctx = await model.context(leaf);
  const first = await model.messages(leaf, 0, 50);
  return { model, summary, leaf, ctx, first };
}

test('the bench reads the repo fixtures it names', () => {
  assert.equal(CLAUDE_SOURCE, fixture('claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d.jsonl'));
  assert.equal(CODEX_SOURCE, fixture('codex', 'agentcmd', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl'));
});

test('ids of a copy: a uuid keeps its form, no two copies share one, copy 0 is the fixture', () => {
  const u = 'd46d6800-2f43-4360-ba84-c1de9c1ecbae';
  assert.equal(idInCopy(u, 0), u);
  const copies = Array.from({ length: 1000 }, (_, k) => idInCopy(u, k));
  assert.equal(new Set(copies).size, 1000);
  for (const c of copies) assert.match(c, /^[0-9a-f]{8}-2f43-4360-ba84-c1de9c1ecbae$/);
  assert.equal(idInCopy('toolu_01ABC', 0), 'toolu_01ABC');
  assert.notEqual(idInCopy('toolu_01ABC', 1), idInCopy('toolu_01ABC', 2));
});

test('a generated Claude Code transcript is one conversation resumed per copy, its counts linear in the copies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-agentgen-'));
  try {
    const one = generateClaudeTranscript(join(dir, 'one.jsonl'), 0);
    assert.equal(one.copies, 1);
    assert.equal(one.bytes, statSync(CLAUDE_SOURCE).size, 'one copy is the fixture, byte for byte');
    const three = generateClaudeTranscript(join(dir, 'three.jsonl'), 2.5 * one.bytes);
    assert.equal(three.copies, 3);
    assert.equal(three.bytes, statSync(three.path).size);
    const a = await opened(one.path);
    const b = await opened(three.path);
    assert.equal(b.model.format, 'claude');
    assert.deepEqual(b.summary.diagnostics, [], 'no duplicate id, no dangling parent');
    assert.equal(b.summary.entryCount, 3 * a.summary.entryCount);
    assert.equal(b.summary.totals.messages, 3 * a.summary.totals.messages);
    assert.equal(b.summary.totals.toolCalls, 3 * a.summary.totals.toolCalls);
    // chained: still one root, and the default leaf's path runs through every copy
    assert.equal((b.model as ClaudeModel).session.tree.roots.length, (a.model as ClaudeModel).session.tree.roots.length);
    assert.ok(b.ctx.pathLength > 2.9 * a.ctx.pathLength, `path ${b.ctx.pathLength} vs ${a.ctx.pathLength}`);
    // each copy compacts what came before: the context starts at the last copy's boundary
    assert.equal(b.ctx.compaction?.id, idInCopy(a.ctx.compaction!.id, 2));
    assert.equal(b.ctx.messageCount, a.ctx.messageCount);
    assert.ok(b.ctx.compaction!.cutCount > 3 * a.ctx.compaction!.cutCount, 'the cut holds the copies before');
    assert.equal(b.first.length, 50);
    assert.equal(b.leaf, idInCopy(a.leaf!, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a generated Codex rollout is one thread of the fixture’s turns repeated, its context linear in the copies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-agentgen-'));
  try {
    const one = generateCodexRollout(join(dir, 'one.jsonl'), 0);
    assert.equal(one.copies, 1);
    const four = generateCodexRollout(join(dir, 'four.jsonl'), 3.5 * one.bytes);
    assert.equal(four.copies, 4);
    assert.equal(four.lines, 1 + 4 * (one.lines - 1), 'one session_meta');
    const a = await opened(one.path);
    const b = await opened(four.path);
    assert.equal(b.model.format, 'codex');
    assert.deepEqual(b.summary.diagnostics, []);
    assert.equal(b.summary.sessionId, a.summary.sessionId);
    assert.equal(b.summary.totals.messages, 4 * a.summary.totals.messages);
    assert.equal(b.summary.totals.toolCalls, 4 * a.summary.totals.toolCalls);
    assert.equal(b.ctx.messageCount, 4 * a.ctx.messageCount, 'every call paired with its own output');
    assert.equal(b.first.length, 50);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
