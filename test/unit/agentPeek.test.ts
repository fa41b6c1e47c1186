// The tail peeks of a Claude Code transcript and a Codex rollout (engine/claude/claudePeek.ts,
// engine/codex/codexPeek.ts, engine/modelPeek.ts): what the editor and the Sessions view show of a
// big file while it is read — the latest messages of the conversation it ends on, from the file's
// last bytes only — is what the whole file's model shows at its default leaf (issue 24: "the same
// windowed first paint" as an xcsh session).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { peekClaudeTail } from '../../src/core/engine/claude/claudePeek';
import { ClaudeModel } from '../../src/core/engine/claude/claudeModel';
import { CodexModel } from '../../src/core/engine/codex/codexModel';
import { peekCodexTail } from '../../src/core/engine/codex/codexPeek';
import type { LocalSessionModel } from '../../src/core/engine/model';
import { peekSessionFile } from '../../src/core/engine/openModel';
import type { MessageView, TailPeek } from '../../src/protocol/messages';
import { generateClaudeTranscript, generateCodexRollout } from '../../bench/agentGenerate';
import { fixture, fixtureFiles } from '../helpers/fixtures';
import { zstdFrame } from '../helpers/dshBuild';

/** The rows a peek must equal: the whole model's last `max` rows at its default leaf, after any compaction summary. */
async function wholeFileTail(path: string, max = 12): Promise<{ format: string; leafId: string | null; rows: MessageView[]; count: number }> {
  const model: LocalSessionModel = path.includes('rollout') || path.includes('codex') ? await CodexModel.open(path) : await ClaudeModel.open(path);
  try {
    const leafId = await model.defaultLeaf();
    if (leafId === null) return { format: model.format, leafId, rows: [], count: 0 };
    const count = (await model.context(leafId)).messageCount;
    const rows = await model.messages(leafId, Math.max(0, count - max), max);
    let cut = rows.length - 1;
    while (cut >= 0 && !['summary', 'kept', 'cut'].includes(rows[cut]!.segment)) cut--;
    return { format: model.format, leafId, rows: rows.slice(cut + 1), count };
  } finally {
    model.dispose();
  }
}

/** A row as the peek must give it: the same message, its place counted back from the last one. */
function sameMessage(peeked: MessageView, whole: MessageView, count: number, first: number, what: string): void {
  assert.equal(peeked.index, whole.index - count, `${what}: index counts back from the last message`);
  assert.equal(peeked.entryId, whole.entryId, what);
  assert.equal(peeked.role, whole.role, what);
  assert.equal(peeked.timestamp, whole.timestamp, what);
  assert.equal(peeked.tokensEst, whole.tokensEst, what);
  assert.equal(peeked.segment, 'plain');
  assert.deepEqual(peeked.badges, whole.badges, what);
  assert.deepEqual(peeked.toolResult && { ...peeked.toolResult, callIndex: null }, whole.toolResult && { ...whole.toolResult, callIndex: null }, what);
  // As an xcsh peek: a result row links no call (the peek's rows have no numbers to jump to).
  if (whole.toolResult) assert.equal(peeked.toolResult!.callIndex, null, what);
  assert.equal(peeked.blocks.length, whole.blocks.length, what);
  peeked.blocks.forEach((b, k) => {
    const w = whole.blocks[k]!;
    if (b.kind === 'toolCall' && w.kind === 'toolCall') {
      assert.deepEqual({ ...b, resultIndex: null }, { ...w, resultIndex: null }, `${what}: block ${k}`);
      assert.equal(b.resultIndex, w.resultIndex !== null && w.resultIndex >= first ? w.resultIndex - count : null, `${what}: block ${k}'s result place`);
    } else assert.deepEqual(b, w, `${what}: block ${k}`);
  });
}

async function assertPeekIsTail(path: string, peek: TailPeek | null, max = 12): Promise<void> {
  const whole = await wholeFileTail(path, max);
  if (whole.rows.length === 0) {
    assert.equal(peek, null, `${path}: nothing to peek`);
    return;
  }
  assert.ok(peek, `${path}: a peek`);
  assert.equal(peek.leafId, whole.leafId, `${path}: the default leaf (Part B leaf rule, 2.1.112)`);
  assert.equal(peek.format, whole.format, `${path}: the agent, for the peek's header`);
  assert.equal(peek.messages.length, whole.rows.length, `${path}: its last messages`);
  peek.messages.forEach((m, k) => sameMessage(m, whole.rows[k]!, whole.count, whole.rows[0]!.index, `${path} #${k}`));
}

test('a big generated transcript: the peek shows the default leaf and the last 12 messages of its context, read from the last MB only', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'sl-claude-peek-')), 'big.jsonl');
  generateClaudeTranscript(path, 6 * 1048576);
  assert.ok(statSync(path).size > 5 * 1048576);
  const peek = await peekClaudeTail(path);
  await assertPeekIsTail(path, peek);
  assert.equal(peek!.messages.length, 12);
  assert.equal(peek!.messages[11]!.index, -1);
  // A window that starts in the middle of a line still reads whole lines only.
  for (const window of [200_000, 333_333, 777_777]) await assertPeekIsTail(path, await peekClaudeTail(path, window));
  // Through the format's reader, as the model worker asks for it.
  assert.deepEqual(await peekSessionFile(path), peek);
  // A torn last line (an agent still writing) is left out, as the whole reader leaves it out.
  appendFileSync(path, '{"type":"assistant","uuid":"torn","parentUuid":');
  await assertPeekIsTail(path, await peekClaudeTail(path));
});

/** The files under a fixture folder, its subfolders included, by name. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

const AGENT_INDEXES = new Set(['history.jsonl', 'session_index.jsonl']);

test('every real transcript: the peek is the end of what the whole file shows at its default leaf (the window holds the whole file)', async () => {
  // (subagent transcripts in their sessions' folders included)
  const files = filesUnder(fixture('claude-code')).filter((f) => f.endsWith('.jsonl') && !AGENT_INDEXES.has(basename(f)));
  for (const path of files) await assertPeekIsTail(path, await peekClaudeTail(path));
  assert.ok(files.length >= 9, `${files.length} transcripts`);
});

test('a big generated Codex rollout: the peek replays the last MB and shows the last 12 items of the history at the default leaf, under their own line ids', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'sl-codex-peek-')), 'rollout-big.jsonl');
  generateCodexRollout(path, 6 * 1048576);
  const peek = await peekCodexTail(path);
  await assertPeekIsTail(path, peek);
  assert.equal(peek!.messages.length, 12);
  for (const window of [150_000, 333_333]) await assertPeekIsTail(path, await peekCodexTail(path, window));
  assert.deepEqual(await peekSessionFile(path), peek);
});

test('every real Codex rollout: the peek is the end of what the whole file shows at its default leaf; a .jsonl.zst one has no peek', async () => {
  const files = filesUnder(fixture('codex'));
  const plain = files.filter((f) => f.endsWith('.jsonl') && !AGENT_INDEXES.has(basename(f)));
  for (const path of plain) await assertPeekIsTail(path, await peekCodexTail(path));
  for (const path of files.filter((f) => f.endsWith('.jsonl.zst'))) assert.equal(await peekCodexTail(path), null, path);
  assert.ok(plain.length >= 3, `${plain.length} rollouts`);
  // A compressed rollout (no fixture is one: one is made here) has no cheap tail, so no peek — its whole read still opens it.
  const zst = join(mkdtempSync(join(tmpdir(), 'sl-codex-zst-')), `${basename(plain[0]!)}.zst`);
  writeFileSync(zst, zstdFrame(readFileSync(plain[0]!)));
  assert.equal(await peekCodexTail(zst), null);
  assert.equal(await peekSessionFile(zst), null);
  assert.ok((await (await CodexModel.open(zst)).context(null)).messageCount > 0);
});

test('a peek of one agent is null for another format (the format reader picks the right one)', async () => {
  for (const path of [...fixtureFiles('real-v3').slice(0, 1), ...fixtureFiles('codex/agentcmd').slice(0, 1)]) assert.equal(await peekClaudeTail(path), null, path);
  for (const path of [...fixtureFiles('real-v3').slice(0, 1), ...fixtureFiles('claude-code/spotter').slice(0, 1)]) assert.equal(await peekCodexTail(path), null, path);
});
