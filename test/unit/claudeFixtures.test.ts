// The Claude Code reader over every real transcript of test/fixtures/claude-code (its README says
// what each file exercises): counts, leaves, the default leaf, the compaction cut, the API
// messages after normalisation, the parallel-result recovery, summaries, sidechains, images.
// Each test names the spec section (shared/spec/claude-code-format.md) its expectation comes from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { apiConversation, foreignSummaries, isBoundary, isClaudeTranscript, loadClaudeSession, nthImage, RecordBodies, RecordFlag, type ClaudeSession } from '../../src/core/formats/claude/index';
import { fixture } from '../helpers/fixtures';

const DIR = fixture('claude-code');

function allJsonl(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...allJsonl(p));
    else if (name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

const cache = new Map<string, Promise<ClaudeSession>>();
function load(rel: string): Promise<ClaudeSession> {
  let hit = cache.get(rel);
  if (!hit) cache.set(rel, (hit = loadClaudeSession(join(DIR, rel))));
  return hit;
}

const uuidAt = (s: ClaudeSession, pos: number): string | null => (pos < 0 ? null : s.transcript.records[pos]!.uuid);

/** What each fixture gives; `leaf` is the 2.1.112 default leaf, `api` the messages B.4 sends at it. */
const EXPECTED: Record<string, { lines: number; chain: number; side: number; leaf: string; cliLeaves: number; api: number; roots: string[]; sessionId: string }> = {
  'agent-history/session-01.jsonl': { lines: 5, chain: 2, side: 3, leaf: '4a6cda39-a1c1-404b-91c3-8ed94d28e177', cliLeaves: 1, api: 2, roots: ['e6781268-0d8b-4756-a547-6b89a7d7193e'], sessionId: '06090cb1-3e64-433a-bc7e-a621c0f596d2' },
  'agentcmd/full-session-five.jsonl': { lines: 31, chain: 14, side: 17, leaf: '8bc08891-d4e7-4cf8-9e7f-df3e186bce8d', cliLeaves: 1, api: 7, roots: ['ec52edf7-0d57-44e7-aa5e-037c2cb23a9a'], sessionId: '10cd5911-8704-4996-9e33-32010589c357' },
  'agentcmd/full-session-two.jsonl': { lines: 41, chain: 35, side: 6, leaf: '1f34c583-643b-456b-bb44-db4c2df8e0cf', cliLeaves: 1, api: 22, roots: ['29ff93b2-c452-4485-b39b-1c3f0d9d19d7'], sessionId: '8a2518dd-ff41-4d5f-83a1-407b03598cc6' },
  'claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl': {
    lines: 53,
    chain: 53,
    side: 0,
    leaf: 'e9bd5ce8-d37d-49a1-868c-8281d0d0a32b',
    cliLeaves: 3,
    api: 20,
    roots: ['5877060c-0a35-4f68-90a6-fdaa3727859a'],
    sessionId: '5c0375b4-57a5-4f26-b12d-d022ee4e51b7',
  },
  'claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl': {
    lines: 438,
    chain: 437,
    side: 1,
    leaf: '5ac34508-f923-4ac5-8efa-749838e99760',
    cliLeaves: 6,
    api: 18,
    roots: ['62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc67'],
    sessionId: 'fe5e1c67-53e7-4862-81ae-d0e013e3270b',
  },
  'spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl': {
    lines: 1863,
    chain: 1829,
    side: 34,
    leaf: 'd3231929-5c7c-41e7-9d4d-ef12e6c9b880',
    cliLeaves: 187,
    api: 100,
    roots: ['dd4e7d64-cb8f-47cc-8998-3585601ec2c3'],
    sessionId: '258c7280-ae70-4798-800f-63464d01a85d',
  },
  'spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl': {
    lines: 10,
    chain: 10,
    side: 0,
    leaf: 'beb3e6eb-340a-4b13-aa71-39f8c2aa436f',
    cliLeaves: 3,
    api: 6,
    roots: ['99c77085-8ebd-4871-bdf6-ea5801acb7c9'],
    sessionId: '258c7280-ae70-4798-800f-63464d01a85d',
  },
  'spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl': {
    lines: 4,
    chain: 4,
    side: 0,
    leaf: 'eeb1170a-cd4d-4842-9bb4-15d5f8b00e03',
    cliLeaves: 3,
    api: 2,
    roots: ['30f503b5-48b2-48d6-bb05-89e4fd58609c', '04690b45-7d5f-4fe9-adcf-5ca3d8d26207', 'a69dad83-a97a-4beb-a54e-f76755fb4546'],
    sessionId: '258c7280-ae70-4798-800f-63464d01a85d',
  },
  'spotter/short.jsonl': { lines: 15, chain: 14, side: 1, leaf: 'c06a9fe4-ba05-44f2-b619-a057c18101e5', cliLeaves: 2, api: 3, roots: ['3579fa66-0f5d-400c-97b8-e2fbecfeb4ba'], sessionId: '55604662-cf2a-4331-851a-ec234028f8ca' },
  'spotter/tool_heavy.jsonl': { lines: 39, chain: 34, side: 5, leaf: '29e6224a-ea4f-445c-964f-d2bbddd138d0', cliLeaves: 6, api: 9, roots: ['abb8e681-7984-49d8-8890-f4a2b130c894'], sessionId: 'd6e0bada-1959-4eec-a9d2-0bfade768d8f' },
  'yepanywhere/index.jsonl': { lines: 134, chain: 120, side: 14, leaf: 'daab47b4-3d39-4005-bc9b-de0096b9b781', cliLeaves: 1, api: 64, roots: ['08486137-87c1-424c-9816-12c1297e6d1a'], sessionId: '03e57c33-9808-453f-bc69-44fe42d6ce17' },
};

test('every .jsonl under test/fixtures/claude-code (subagents included) has an expectation here', () => {
  assert.deepEqual(
    allJsonl(DIR)
      .map((p) => relative(DIR, p))
      .sort(),
    Object.keys(EXPECTED).sort(),
  );
});

for (const [rel, want] of Object.entries(EXPECTED)) {
  test(`${rel}: lines, records, session id, roots, the CLI's leaf set, the 2.1.112 default leaf and its API messages (A.2, A.11, B.4)`, async () => {
    const s = await load(rel);
    const { transcript: t, tree, paths } = s;
    assert.equal(t.lines, want.lines);
    assert.equal(t.records.length, want.chain);
    assert.equal(t.side.length, want.side);
    assert.equal(t.records.length + t.side.length, want.lines, 'every line is a chain or a side record');
    assert.equal(t.sessionId, want.sessionId);
    assert.deepEqual(tree.roots.map((p) => uuidAt(s, p)), want.roots);
    assert.equal(tree.cliLeaves.length, want.cliLeaves);
    assert.equal(uuidAt(s, tree.defaultLeaf), want.leaf);
    // B.6: the three leaf rules agree on every collected fixture (none holds a real rewind)
    assert.equal(tree.leafRules.cli2139, tree.defaultLeaf);
    assert.equal(tree.leafRules.sdk, tree.defaultLeaf);
    const path = paths.pathTo(tree.defaultLeaf);
    assert.equal(apiConversation(t.records, path.visible, tree.answered).messages.length, want.api);
    // the first lines of every file are Claude Code records: the content detector says so
    const head = readFileSync(join(DIR, rel), 'utf8').split('\n').slice(0, 5).filter(Boolean).map((l) => JSON.parse(l) as unknown);
    assert.equal(isClaudeTranscript(head), true);
  });
}

test('every fixture reads without a diagnostic, but the compaction helper: its three roots point into the main file (C.4)', async () => {
  for (const rel of Object.keys(EXPECTED)) {
    const { transcript: t, tree } = await load(rel);
    const d = [...t.diagnostics, ...tree.diagnostics].map((x) => `${x.line}:${x.kind}`);
    assert.deepEqual(d, rel.includes('acompact') ? ['1:missing-parent', '2:missing-parent', '3:missing-parent'] : [], rel);
  }
});

test('spotter/short.jsonl: progress roots, one response over five lines with a progress line between the tool_use lines, the first result off the path and recovered (A.6, A.8, A.11, B.2)', async () => {
  const s = await load('spotter/short.jsonl');
  const { transcript: t, tree, paths } = s;
  const lines = tree.linesOfMessage.get('msg_01MKH1ccEGrZGNPvu8pYiiQa')!;
  // (the first text line is "\n\n": whitespace only)
  assert.deepEqual(lines.map((p) => t.records[p]!.blocks), ['w', 'h', 't', 'u', 'u']);
  // A.8: the second tool_use line's parent is a progress line; 2.1.112 reads through it
  const second = t.byUuid.get('ed2ec700-d1ee-4a18-9100-da63317716fc')!;
  assert.equal(t.records[tree.rawParent[second]!]!.type, 'progress');
  assert.equal(uuidAt(s, tree.walkParent[second]!), '194d33b0-6cf7-4c54-8200-07dfd3fb88cf');
  const path = paths.pathTo(tree.defaultLeaf);
  assert.deepEqual(path.recoveredVisible.map((p) => uuidAt(s, p)), ['ff80d82a-4ac1-4945-83dd-1226f98b8cf6']);
  // inserted right after the last on-path line of the response
  const k = path.visible.indexOf(t.byUuid.get('ff80d82a-4ac1-4945-83dd-1226f98b8cf6')!);
  assert.equal(uuidAt(s, path.visible[k - 1]!), 'ed2ec700-d1ee-4a18-9100-da63317716fc');
  // README: without the recovery one tool_use lacks its result
  const older = apiConversation(t.records, paths.visibleWithoutRecovery(tree.defaultLeaf), tree.answered);
  assert.equal(older.missingResults, 1);
  const api = apiConversation(t.records, path.visible, tree.answered);
  assert.equal(api.missingResults, 0);
  assert.deepEqual(api.messages.map((m) => m.role), ['user', 'assistant', 'user']);
  // B.3 step 5: the first text line is whitespace only and is not sent
  assert.deepEqual(api.dropped.map((d) => [uuidAt(s, d.pos), d.why]), [['1b7d717f-d6a2-46a6-8575-fa4f937450ea', 'whitespace-only']]);
  // B.4 step 5: one user message, the two tool results first, then the interruption text
  assert.deepEqual(
    api.messages[2]!.parts.map((p) => p.kind),
    ['toolResult', 'toolResult', 'content'],
  );
  // the two system/local_command lines at the end are not leaves: the leaf is their user ancestor
  assert.equal(t.records[t.records.length - 1]!.subtype, 'local_command');
});

test('spotter/258c7280…: auto compaction at line 1256 — the model sees the summary first, 100 API messages, 9 records recovered, 5 synthetic results without the recovery (A.7, A.11, B.4, README)', async () => {
  const s = await load('spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl');
  const { transcript: t, tree, paths } = s;
  const boundary = t.records.find((r) => isBoundary(r))!;
  assert.equal(boundary.line, 1256);
  assert.equal(boundary.parentUuid, null);
  assert.equal(boundary.logicalParentUuid, '7c642069-996d-4ae0-a61c-554b35d36fb6');
  assert.deepEqual(boundary.compact, { trigger: 'auto', preTokens: 167094, preserved: null });
  const summary = t.records[t.byUuid.get('58436800-0a29-451b-a8f5-3a0c59957945')!]!;
  assert.equal(summary.line, 1257);
  assert.equal(summary.flags & (RecordFlag.CompactSummary | RecordFlag.TranscriptOnly), RecordFlag.CompactSummary | RecordFlag.TranscriptOnly);

  const path = paths.pathTo(tree.defaultLeaf);
  assert.equal(uuidAt(s, path.boundary), boundary.uuid);
  assert.equal(uuidAt(s, path.visible[0]!), summary.uuid, 'the first model-visible record is the summary');
  const api = apiConversation(t.records, path.visible, tree.answered);
  assert.equal(api.messages.length, 100);
  assert.equal(api.messages[0]!.records[0], t.byUuid.get(summary.uuid));
  assert.equal(api.missingResults, 0);
  assert.equal(path.recoveredVisible.length, 9);
  assert.deepEqual(
    path.recoveredVisible.map((p) => uuidAt(s, p)!.slice(0, 8)),
    ['df9d653e', '55d3da92', '5481eadb', 'eac52263', '3d011b20', '9b99d973', '87a66965', '84e7af58', 'e28748a1'],
  );
  assert.equal(apiConversation(t.records, paths.visibleWithoutRecovery(tree.defaultLeaf), tree.answered).missingResults, 5);
  // the cut band: the logical path above the boundary (through logicalParentUuid) back to the first
  // prompt — the SessionStart hook progress lines above it are transparent to the walk (A.8)
  assert.equal(path.cut.length, 326);
  assert.equal(uuidAt(s, path.cut[path.cut.length - 1]!), '7c642069-996d-4ae0-a61c-554b35d36fb6');
  assert.equal(uuidAt(s, path.cut[0]!), '1a2252ee-fde8-4a8f-a103-4028c39c47ce');
  assert.equal(path.recoveredCut.length, 12);
});

test('spotter/258c7280…: 1,333 progress lines, 186 results with sourceToolAssistantUUID, 187 CLI leaves of which 18 are parallel side branches laid into the line (A.8, A.11 rule 3, C.2)', async () => {
  const { transcript: t, tree } = await load('spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl');
  assert.equal(t.records.filter((r) => r.type === 'progress').length, 1333);
  assert.equal(t.records.filter((r) => r.sourceToolAssistantUUID !== null).length, 186);
  assert.equal(tree.cliLeaves.length, 187);
  const logicalParents = new Set(t.records.filter(isBoundary).map((r) => r.logicalParentUuid));
  const sideResults = tree.cliLeaves.filter((p) => t.records[p]!.toolResults !== null && !logicalParents.has(t.records[p]!.uuid));
  assert.equal(sideResults.length, 18);
  for (const p of sideResults) assert.ok(tree.linearised.has(p), `${t.records[p]!.uuid} is laid into the line`);
  // one conversation: the tree as shown has a single branch tip
  assert.deepEqual(tree.branchLeaves.map((p) => t.records[p]!.uuid), ['d3231929-5c7c-41e7-9d4d-ef12e6c9b880']);
  // the boundary hangs under its logical parent in the tree, so the session reads on across it
  const b = t.records.findIndex(isBoundary);
  assert.equal(t.records[tree.displayParent[b]!]!.uuid, '7c642069-996d-4ae0-a61c-554b35d36fb6');
});

test('spotter/tool_heavy.jsonl: 6 leaves but one conversation; the second tool_use line and its result are off the path and recovered in order (A.11, B.2)', async () => {
  const s = await load('spotter/tool_heavy.jsonl');
  const { transcript: t, tree, paths } = s;
  assert.equal(tree.cliLeaves.length, 6);
  assert.equal(tree.branchLeaves.length, 1);
  const path = paths.pathTo(tree.defaultLeaf);
  assert.deepEqual(path.recoveredVisible.map((p) => uuidAt(s, p)), ['50199023-1a27-4bef-b27c-5db62b3a15b3', 'd2b1430f-30fc-408e-ad65-bedf7ba75900']);
  const at = (u: string): number => path.visible.indexOf(t.byUuid.get(u)!);
  assert.equal(at('50199023-1a27-4bef-b27c-5db62b3a15b3'), at('479992dc-a46d-4f8b-99d7-f378fd95a94a') + 1);
  // the isMeta caveat is sent (B.4: meta user records stay), and hidden only in the UI
  const metaPos = t.byUuid.get('faf199ff-2cfa-4656-97bc-8c0ffb7c025c')!;
  assert.equal(t.records[metaPos]!.flags & RecordFlag.Meta, RecordFlag.Meta);
  assert.ok(path.visible.includes(metaPos));
  const api = apiConversation(t.records, path.visible, tree.answered);
  assert.ok(api.messages.some((m) => m.records.includes(metaPos)));
  // queue-operation and file-history-snapshot lines are side records, kept
  assert.deepEqual(t.side.map((x) => x.type), ['file-history-snapshot', 'queue-operation', 'queue-operation', 'file-history-snapshot', 'file-history-snapshot']);
});

test('claude-code-viewer/fe5e1c67… (1.0.98): 405 sidechain lines, inline subagents each linked to its Task call; the summary on line 1 names a leaf of another file (A.10, A.11 rule 5, B.5)', async () => {
  const s = await load('claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
  const { transcript: t, tree } = s;
  assert.equal(t.records.filter((r) => (r.flags & RecordFlag.Sidechain) !== 0).length, 405);
  assert.deepEqual(t.summaries, [{ summary: 'Empty Repo Setup: CLAUDE.md Foundation Created', leafUuid: '549b3502-6e30-4fa5-869f-c998df26c3f0', line: 1 }]);
  assert.equal(t.byUuid.has('549b3502-6e30-4fa5-869f-c998df26c3f0'), false);
  assert.deepEqual(foreignSummaries(t).map((x) => x.leafUuid), ['549b3502-6e30-4fa5-869f-c998df26c3f0']);
  // five inline sidechains, each a root of its own in the file, shown under the Task call that started it
  const rawRoots = t.records.filter((r) => r.parentUuid === null).map((r) => r.uuid.slice(0, 8));
  assert.deepEqual(rawRoots, ['62e0bdc0', '6690d10e', '60dade70', 'f4546a51', '0d692b0f', 'f4ab2bf6']);
  assert.deepEqual(
    tree.inlineSidechains.map((x) => [uuidAt(s, x.rootPos)!.slice(0, 8), x.taskCallId, x.description]),
    [
      ['6690d10e', 'toolu_01LS6tcVd796SbQKmZqeVnWY', 'Build TODO components'],
      ['60dade70', 'toolu_014i9ThHMNShCHocf9xMKasf', 'Setup Next.js project'],
      ['f4546a51', 'toolu_01EbxY94wRUAGyMLj5wh699C', 'Create data models'],
      ['0d692b0f', 'toolu_017rjDpjVPeNFmAEXNTkoP55', 'Implement state management'],
      ['f4ab2bf6', 'toolu_01EPom7jESzNbU8coiKjzVGS', 'Create main page integration'],
    ],
  );
  for (const x of tree.inlineSidechains) assert.equal(tree.displayParent[x.rootPos], x.taskPos);
  // B.5: sidechain records are never on the main path
  const path = s.paths.pathTo(tree.defaultLeaf);
  assert.ok(path.visible.every((p) => (t.records[p]!.flags & RecordFlag.Sidechain) === 0));
  // C.1: 1.0.x has no compact_boundary, no progress, no file-history-snapshot
  assert.equal(t.records.some(isBoundary), false);
  assert.deepEqual(t.side.map((x) => x.type), ['summary']);
});

test('claude-code-viewer/5c0375b4… (1.0.108): three roots (the prompt and two inline sidechains), parallel Task calls answered after the sidechains finish (C.3, B.5)', async () => {
  const s = await load('claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
  const { transcript: t, tree } = s;
  assert.deepEqual(
    t.records.filter((r) => r.parentUuid === null).map((r) => r.uuid),
    ['5877060c-0a35-4f68-90a6-fdaa3727859a', '6340ddef-f656-4b72-a065-82390f637678', '83e2917c-8940-4df6-a5a5-f2514f0d08c5'],
  );
  assert.deepEqual(
    tree.inlineSidechains.map((x) => [uuidAt(s, x.rootPos), uuidAt(s, x.taskPos), x.taskCallId]),
    [
      ['6340ddef-f656-4b72-a065-82390f637678', 'a2bbaa8d-3c70-46f0-8abf-933c123d557d', 'toolu_014YF9TXhDRR7BnpasNJ7gjC'],
      ['83e2917c-8940-4df6-a5a5-f2514f0d08c5', 'cfca867b-e0bb-4682-a5ff-2dd1b228a44f', 'toolu_01LKfUwrsnof18CpWZQcJH44'],
    ],
  );
  // tool results chain linearly (no sourceToolAssistantUUID): nothing is off the path
  assert.equal(t.records.some((r) => r.sourceToolAssistantUUID !== null), false);
  assert.equal(s.paths.pathTo(tree.defaultLeaf).recoveredVisible.length, 0);
  assert.equal(tree.linearised.size, 0);
});

test('agentcmd/full-session-five.jsonl: sixteen summaries (the README says "at the top": nine are, seven sit between the first records), none of whose leaves is in the file (A.10)', async () => {
  const { transcript: t } = await load('agentcmd/full-session-five.jsonl');
  assert.equal(t.summaries.length, 16);
  assert.deepEqual(t.summaries.map((x) => x.line), [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 14, 17, 18, 19, 20]);
  assert.equal(foreignSummaries(t).length, 16);
  assert.equal(t.summaries[0]!.summary, 'Frontend and SDK tool type synchronization analysis');
});

test('agentcmd/full-session-two.jsonl: the screenshot is an image block inside the tool_result on line 16 (A.5, C.8)', async () => {
  const { transcript: t } = await load('agentcmd/full-session-two.jsonl');
  const r = t.records.find((x) => x.line === 16)!;
  assert.deepEqual(r.toolResults, [{ id: 'toolu_017MkAKfdSpTSButFXSQeHkH', isError: false, tokens: 1000, images: 1 }]);
  const body = await new RecordBodies(t.path).one({ line: r.line, start: r.start, end: r.end, uuid: r.uuid });
  const img = nthImage(body, 0)!;
  assert.equal(img.mediaType, 'image/png');
  assert.equal(img.sourceType, 'base64');
  assert.equal(img.data!.length, 18248);
  assert.equal(nthImage(body, 1), null);
  // the isMeta caveat is the first line; it is sent (B.4) and hidden in the UI
  assert.equal(t.records[0]!.flags & RecordFlag.Meta, RecordFlag.Meta);
});

test('yepanywhere/index.jsonl (2.0.74): slug on every chain record, 32 thinking lines with signatures, parallel calls answered after the last block, one leaf (C.1, A.11 rule 3)', async () => {
  const s = await load('yepanywhere/index.jsonl');
  const { transcript: t, tree } = s;
  const lines = readFileSync(t.path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(lines.filter((l) => typeof l.uuid === 'string').every((l) => typeof l.slug === 'string'));
  assert.equal(t.records.filter((r) => r.blocks === 'h').length, 32);
  assert.equal(tree.cliLeaves.length, 1);
  assert.equal(s.paths.pathTo(tree.defaultLeaf).recoveredVisible.length, 0);
  assert.deepEqual(t.side.filter((x) => x.type === 'queue-operation').map((x) => x.preview.split(': ')[1]), ['dequeue', 'enqueue', 'remove', 'enqueue', 'remove', 'dequeue', 'dequeue']);
});

test('agent-history/session-01.jsonl (2.1.152): last-prompt with leafUuid, usage.iterations and speed kept out of the facts (A.3, C.1)', async () => {
  const { transcript: t, tree } = await load('agent-history/session-01.jsonl');
  assert.deepEqual(t.lastPrompt, { text: '[REDACTED_PROMPT]', leafUuid: '4a6cda39-a1c1-404b-91c3-8ed94d28e177' });
  assert.equal(t.lastPrompt!.leafUuid, t.records[tree.defaultLeaf]!.uuid);
  assert.deepEqual(t.records[1]!.usage, { input: 6, output: 16, cacheRead: 3057, cacheWrite: 1045 });
  assert.equal(t.firstVersion, '2.1.152');
});

test('subagents/agent-a881341.jsonl: a subagent file — sidechain records only, its own root, the SDK rule picks its last message (B.5)', async () => {
  const s = await load('spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl');
  const { transcript: t, tree } = s;
  assert.ok(t.records.every((r) => (r.flags & RecordFlag.Sidechain) !== 0 && r.agentId === 'a881341'));
  assert.equal(tree.hasMainRecords, false);
  assert.deepEqual(tree.inlineSidechains, []);
  assert.deepEqual(tree.branchLeaves.map((p) => uuidAt(s, p)), ['beb3e6eb-340a-4b13-aa71-39f8c2aa436f']);
});

test('subagents/agent-acompact-fffbd0.jsonl: the compaction helper — its records point into the main file, its walk stops there, its answer is the summary (A.11 rule 5, B.5)', async () => {
  const s = await load('spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl');
  const { tree, paths } = s;
  const path = paths.pathTo(tree.defaultLeaf);
  assert.equal(path.stop, 'missing-parent');
  assert.equal(uuidAt(s, path.orphan), 'a69dad83-a97a-4beb-a54e-f76755fb4546');
  assert.deepEqual(path.visible.map((p) => uuidAt(s, p)), ['a69dad83-a97a-4beb-a54e-f76755fb4546', 'eeb1170a-cd4d-4842-9bb4-15d5f8b00e03']);
  assert.equal(s.transcript.records[3]!.parentUuid, 'a69dad83-a97a-4beb-a54e-f76755fb4546');
  const main = await load('spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl');
  assert.equal(main.transcript.byUuid.has('7c642069-996d-4ae0-a61c-554b35d36fb6'), true);
  assert.equal(s.transcript.records[2]!.parentUuid, '7c642069-996d-4ae0-a61c-554b35d36fb6');
});
