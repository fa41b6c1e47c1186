// The editor's first paint of a big session (issue 11): the latest messages on the default
// leaf's path, read from the file's last bytes, are exactly the last messages of the context the
// full model computes there — on the real v3 fixtures, the migrated upstream sessions and a
// generated session with branches — and nothing is shown that could be wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XcshModel } from '../reference/xcshModel';
import { peekSessionTail } from '../../src/core/engine/xcsh/tailPeek';
import { generateSession } from '../../bench/generate';
import { fixture, fixtureFiles } from '../helpers/fixtures';
import { migratedCopy } from '../helpers/migrated';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'sl-peek-'));
const noBlobs = join(tmpdir(), 'sl-no-blobs');


/** The peek's rows are the context's last rows at the default leaf (ids, roles, blocks, badges, usage). */
async function assertPeekIsContextTail(path: string, window?: number): Promise<number> {
  const peek = await peekSessionTail(path, window);
  // A window too small to hold one whole line has nothing certain to show.
  if (window !== undefined && peek === null) return 0;
  assert.ok(peek, `${path}: a v3 session has a peek`);
  const model = await XcshModel.open(path, { blobDir: noBlobs });
  assert.equal(peek.leafId, await model.defaultLeaf(), `${path}: the peek ends at the default leaf`);
  const summary = await model.summary();
  assert.deepEqual({ title: peek.title, firstPrompt: peek.firstPrompt }, { title: summary.title, firstPrompt: summary.firstPrompt }, `${path}: named as the header names it`);
  const info = await model.context(null);
  const k = peek.messages.length;
  assert.ok(k <= info.messageCount, `${path}: no more rows than the context has`);
  const tail = await model.messages(null, info.messageCount - k, k);
  peek.messages.forEach((p, i) => {
    const full = tail[i]!;
    assert.equal(p.index, i - k, 'rows count back from the last');
    // Positions in the context (a call's result, a result's call) are unknown to a peek: left out.
    const strip = (m: typeof p) => ({
      entryId: m.entryId,
      role: m.role,
      subtitle: m.subtitle,
      badges: m.badges,
      usage: m.usage,
      blocks: m.blocks.map((b) => ('resultIndex' in b ? { ...b, resultIndex: null } : b)),
      toolResult: m.toolResult ? { ...m.toolResult, callIndex: null } : null,
      timestamp: m.timestamp,
      tokensEst: m.tokensEst,
      hiddenFromUser: m.hiddenFromUser,
    });
    assert.deepEqual(strip(p), strip(full), `${path}: row ${i} of the peek is context message ${full.index}`);
    // A call whose result is in the context points at it in the peek too (counted from the end).
    p.blocks.forEach((b, j) => {
      const f = full.blocks[j]!;
      if (b.kind === 'toolCall' && f.kind === 'toolCall' && f.resultIndex !== null) assert.equal(b.resultIndex, f.resultIndex - info.messageCount, `${path}: call ${b.callId}`);
    });
  });
  model.dispose();
  return k;
}

test('real v3 sessions: the peek is the last messages of the context at the default leaf', async () => {
  for (const name of ['gjc-03-raddit-dashboard-pr.jsonl', 'gjc-04-awesome-agent-ide.jsonl']) {
    const k = await assertPeekIsContextTail(fixture('real-v3', name));
    assert.ok(k > 0, `${name}: has messages to show`);
  }
  // gjc-01 has no header line (its README): nothing says it is v3, so no peek.
  assert.equal(await peekSessionTail(fixture('real-v3', 'gjc-01-youtube-transcript-extraction.jsonl')), null);
});

test('migrated upstream sessions (compactions, glued records made whole): the peek is the context tail and stops at a compaction', async () => {
  const dir = tmp();
  for (const src of fixtureFiles('upstream-full')) {
    const path = await migratedCopy(src, dir);
    await assertPeekIsContextTail(path);
    const lastLine = readFileSync(path, 'utf8').trimEnd().split('\n').pop()!;
    // pi-compact ends on its compaction: the messages after it are none, and the kept ones are not walked into.
    if (JSON.parse(lastLine).type === 'compaction') assert.equal((await peekSessionTail(path))!.messages.length, 0);
    // With a small window the first line is cut: still the context's tail, just shorter.
    await assertPeekIsContextTail(path, 4096);
  }
});

test('a generated session with side branches: only the default branch shows, from a window that starts mid-line', async () => {
  const dir = tmp();
  const file = join(dir, 'gen.jsonl');
  generateSession(file, 3000);
  const k = await assertPeekIsContextTail(file, 64 * 1024);
  assert.ok(k > 0);
});

test('a torn last line (the agent mid-append) is left out, the rest still shows', async () => {
  const dir = tmp();
  const file = join(dir, 's.jsonl');
  copyFileSync(fixture('real-v3', 'gjc-03-raddit-dashboard-pr.jsonl'), file);
  const before = await peekSessionTail(file);
  appendFileSync(file, '{"type":"message","id":"torn0001","parentId":');
  const after = await peekSessionTail(file);
  assert.deepEqual(after, { ...before!, size: before!.size + 45 });
});

test('no peek for what a window cannot show for certain: v1/v2 files (ids given in memory), dsh logs, headerless or empty files', async () => {
  for (const f of fixtureFiles('upstream-full')) assert.equal(await peekSessionTail(f), null, `${f} is v1`);
  for (const f of fixtureFiles('dsh')) assert.equal(await peekSessionTail(f), null, `${f} is dsh`);
  const dir = tmp();
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  assert.equal(await peekSessionTail(empty), null);
  const headerless = join(dir, 'nohead.jsonl');
  writeFileSync(headerless, readFileSync(fixture('real-v3', 'gjc-03-raddit-dashboard-pr.jsonl'), 'utf8').split('\n').slice(1).join('\n'));
  assert.equal(await peekSessionTail(headerless), null);
});

test('a parent cycle in a damaged file ends the walk', async () => {
  const dir = tmp();
  const file = join(dir, 'cycle.jsonl');
  const header = { type: 'session', version: 3, id: 'cyc', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' };
  const a = { type: 'label', id: 'aaaa0001', parentId: 'bbbb0002', timestamp: '2026-01-01T00:00:01.000Z', targetId: 'x', label: 'a' };
  const b = { type: 'label', id: 'bbbb0002', parentId: 'aaaa0001', timestamp: '2026-01-01T00:00:02.000Z', targetId: 'x', label: 'b' };
  writeFileSync(file, [header, a, b].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const peek = await peekSessionTail(file);
  assert.equal(peek?.messages.length, 0);
});
