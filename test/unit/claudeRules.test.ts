// Part B rules of claude-code-format.md on small synthetic transcripts: the shapes the real
// fixtures lack (a rewind, two compactions, a preserved segment, damaged lines, missing parents,
// cycles, attachments, API errors…). Where the spec marks a point unverified, the test name says
// which reading was chosen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiConversation, isClaudeTranscript, loadClaudeSession, MISSING_RESULT_TEXT, NO_CONTENT_LAST, type ClaudeSession } from '../../src/core/formats/claude/index';
import { Build, disagreeingLeaves, text, thinking, toolUse, writeLines, type Rec } from '../helpers/claudeBuild';

async function open(lines: readonly (Rec | string)[], torn = false): Promise<ClaudeSession> {
  return loadClaudeSession(writeLines(lines, 'session.jsonl', undefined, torn));
}

const ids = (s: ClaudeSession, positions: readonly number[]): string[] => positions.map((p) => s.transcript.records[p]!.uuid);
const leafId = (s: ClaudeSession): string | null => (s.tree.defaultLeaf < 0 ? null : s.transcript.records[s.tree.defaultLeaf]!.uuid);
function api(s: ClaudeSession, leaf = s.tree.defaultLeaf) {
  return apiConversation(s.transcript.records, s.paths.pathTo(leaf).visible, s.tree.answered);
}
const pos = (s: ClaudeSession, uuid: string): number => s.transcript.byUuid.get(uuid)!;

test('B.1: a bad line is a diagnostic naming its line, never a crash — invalid JSON, a non-object, a record without type, a chain record without uuid, a torn last line', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'hello'),
    '{"type":"assistant","uuid":"a1", this is not json',
    '[1,2,3]',
    '{"uuid":"x","parentUuid":null}',
    { ...b.user('nouuid', 'u1', 'no uuid'), uuid: undefined },
    b.assistant('a1', 'u1', 'm1', text('hi')),
    '{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"us',
  ], true);
  const { transcript: t } = s;
  assert.deepEqual(ids(s, t.records.map((_, i) => i)), ['u1', 'a1']);
  // lines 2–3 are one run of unreadable lines (one finding, its range and count: the shared line reader's rule)
  const d = t.diagnostics.map((x) => `${x.line}${x.lastLine ? `–${x.lastLine}` : ''}:${x.kind}`);
  assert.deepEqual(d, ['2–3:invalid-json', '4:invalid-entry', '5:invalid-entry', '7:torn-tail']);
  assert.match(t.diagnostics[0]!.message, /1 not valid JSON, 1 valid JSON but not objects/);
  assert.match(t.diagnostics[2]!.message, /without a string "uuid"/);
  assert.equal(leafId(s), 'a1');
  assert.equal(t.lines, 7);
});

test('A.2: unknown record types are kept — a side record of a new type, and an unknown type with uuid/parentUuid in the tree but never sent', async () => {
  const b = new Build();
  const s = await open([b.user('u1', null, 'hi'), { type: 'speculation-accept', sessionId: 'x', foo: 1 }, { ...b.envelope('frobnicate', 'f1', 'u1') }, b.assistant('a1', 'f1', 'm1', text('yo'))]);
  assert.deepEqual(s.transcript.side.map((x) => x.type), ['speculation-accept']);
  assert.equal(s.transcript.records[pos(s, 'f1')]!.type, 'frobnicate');
  assert.deepEqual(ids(s, s.paths.pathTo(s.tree.defaultLeaf).visible), ['u1', 'f1', 'a1']);
  assert.deepEqual(api(s).messages.map((m) => ids(s, m.records)), [['u1'], ['a1']]);
});

test('A.11 rewind: the old continuation stays as a dead branch; the new prompt branches from an older uuid; the newest line is the default leaf and the old tip stays selectable', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'first'),
    b.assistant('a1', 'u1', 'm1', text('one')),
    b.user('u2', 'a1', 'second'),
    b.assistant('a2', 'u2', 'm2', text('two')),
    b.user('u2b', 'a1', 'second, edited'),
    b.assistant('a2b', 'u2b', 'm3', text('two again')),
  ]);
  assert.equal(leafId(s), 'a2b');
  assert.deepEqual(ids(s, s.tree.branchLeaves), ['a2', 'a2b']);
  assert.deepEqual(ids(s, s.paths.pathTo(s.tree.defaultLeaf).visible), ['u1', 'a1', 'u2b', 'a2b']);
  assert.deepEqual(ids(s, s.paths.pathTo(pos(s, 'a2')).visible), ['u1', 'a1', 'u2', 'a2']);
  assert.deepEqual(api(s, pos(s, 'a2')).messages.length, 4);
});

test('A.11 step 4: the leaf rules disagree when the last line is older than another branch — 2.1.112 follows file order (the default), 2.1.39 the newest timestamp, the SDK the latest leaf in file order', async () => {
  const b = new Build();
  const s = await open(disagreeingLeaves(b));
  const { cli2112, cli2139, sdk } = s.tree.leafRules;
  assert.deepEqual(ids(s, [cli2112, cli2139, sdk]), ['a2', 'a2b', 'a2b']);
  assert.equal(leafId(s), 'a2');
  assert.deepEqual(ids(s, s.tree.cliLeaves), ['a2', 'a2b']);
});

test('A.8 / B.1 step 4: progress lines are transparent — a record whose parent is a progress line hangs on its parent; a progress terminal makes its user/assistant ancestor a CLI leaf', async () => {
  const b = new Build();
  const s = await open([b.progress('p0', null), b.user('u1', 'p0', 'hi'), b.assistant('a1', 'u1', 'm1', toolUse('t1')), b.progress('p1', 'a1'), b.result('r1', 'p1', 't1', 'ok'), b.progress('p2', 'a1')]);
  assert.equal(s.tree.walkParent[pos(s, 'r1')], pos(s, 'a1'));
  assert.equal(s.tree.walkParent[pos(s, 'u1')], -1);
  assert.deepEqual(ids(s, s.tree.cliLeaves), ['a1', 'r1']);
  // the last line is p2 (under a1): the 2.1.112 leaf is a1, whose context drops nothing it answers
  assert.equal(leafId(s), 'a1');
  assert.deepEqual(ids(s, s.paths.pathTo(pos(s, 'r1')).visible), ['u1', 'a1', 'r1']);
});

test('B.4 step 1: compaction twice — the model sees what follows the last boundary; the cut band runs back through both logicalParentUuid links', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'start'),
    b.assistant('a1', 'u1', 'm1', text('one')),
    b.boundary('b1', 'a1', { preTokens: 111 }),
    b.summary('s1', 'b1', 'This session is being continued… (1)'),
    b.user('u2', 's1', 'go on'),
    b.assistant('a2', 'u2', 'm2', text('two')),
    b.boundary('b2', 'a2', { preTokens: 222 }),
    b.summary('s2', 'b2', 'This session is being continued… (2)'),
    b.user('u3', 's2', 'and on'),
    b.assistant('a3', 'u3', 'm3', text('three')),
  ]);
  const p = s.paths.pathTo(s.tree.defaultLeaf);
  assert.equal(ids(s, [p.boundary])[0], 'b2');
  assert.deepEqual(ids(s, p.visible), ['s2', 'u3', 'a3']);
  assert.deepEqual(ids(s, p.cut), ['u1', 'a1', 'b1', 's1', 'u2', 'a2']);
  // A.11 rule 2: a session compacted n times has n+1 roots in the file; the tree shows one line
  assert.deepEqual(s.transcript.records.filter((r) => r.parentUuid === null).map((r) => r.uuid), ['u1', 'b1', 'b2']);
  assert.deepEqual(ids(s, s.tree.roots), ['u1']);
  assert.deepEqual(ids(s, s.tree.branchLeaves), ['a3']);
  // the summary and the next prompt are consecutive user records: one API message
  assert.deepEqual(api(s).messages.map((m) => ids(s, m.records)), [['s2', 'u3'], ['a3']]);
  // a leaf before the second boundary sees the first compaction's summary first
  assert.deepEqual(ids(s, s.paths.pathTo(pos(s, 'a2')).visible), ['s1', 'u2', 'a2']);
});

test('A.11 preserved segment [unverified: no real sample] — the run head…tail is re-parented under the anchor, the anchor\'s other children continue after the tail, older records are dropped', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'old'),
    b.assistant('a1', 'u1', 'm1', text('old answer')),
    b.user('u2', 'a1', 'kept prompt'),
    b.assistant('a2', 'u2', 'm2', text('kept answer')),
    b.boundary('b', 'a2', { preserved: { headUuid: 'u2', anchorUuid: 's', tailUuid: 'a2' } }),
    b.summary('s', 'b', 'summary of u1/a1'),
    b.user('u3', 's', 'after'),
    b.assistant('a3', 'u3', 'm3', text('after answer')),
  ]);
  const p = s.paths.pathTo(s.tree.defaultLeaf);
  assert.deepEqual(ids(s, p.visible), ['s', 'u2', 'a2', 'u3', 'a3']);
  assert.deepEqual(ids(s, [p.preserved!.head, p.preserved!.tail, p.preserved!.anchor]), ['u2', 'a2', 's']);
  assert.deepEqual(ids(s, [...p.preserved!.run].sort((x, y) => x - y)), ['u2', 'a2']);
  assert.deepEqual(ids(s, p.cut), ['u1', 'a1']);
  assert.deepEqual(api(s).messages.map((m) => ids(s, m.records)), [['s', 'u2'], ['a2'], ['u3'], ['a3']]);
});

test('A.6 merge: lines of one response join across tool-result user records only; any other record between them starts a new message', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'do two things'),
    b.assistant('a1', 'u1', 'm1', toolUse('t1')),
    b.result('r1', 'a1', 't1', 'one done'),
    b.assistant('a2', 'r1', 'm1', toolUse('t2')),
    b.result('r2', 'a2', 't2', 'two done'),
    b.assistant('a3', 'r2', 'm2', text('now wait')),
    b.user('u2', 'a3', 'ok'),
    b.assistant('a4', 'u2', 'm2', text('same id after a prompt')),
  ]);
  assert.deepEqual(
    api(s).messages.map((m) => [m.role, ids(s, m.records)]),
    [
      ['user', ['u1']],
      ['assistant', ['a1', 'a2']],
      ['user', ['r1', 'r2']],
      ['assistant', ['a3']],
      ['user', ['u2']],
      ['assistant', ['a4']],
    ],
  );
});

test('B.3 steps 3–5: thinking-only lines without a non-thinking sibling and whitespace-only lines are not sent; a call answered nowhere in the file drops its line [the result is looked for in the whole file, not only on the path: unverified, chosen to match the spec\'s counts]', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'q'),
    b.assistant('h1', 'u1', 'mA', thinking('alone')),
    b.assistant('w1', 'h1', 'mB', text('  \n ')),
    b.assistant('h2', 'w1', 'mC', thinking('with text')),
    b.assistant('x2', 'h2', 'mC', text('answer')),
    b.user('u2', 'x2', 'run it'),
    b.assistant('c1', 'u2', 'mD', toolUse('never-answered')),
    b.user('u3', 'c1', '[Request interrupted by user for tool use]'),
    b.assistant('z', 'u3', 'mE', text('ok')),
  ]);
  const a = api(s);
  assert.deepEqual(
    a.dropped.map((d) => [ids(s, [d.pos])[0], d.why]),
    [
      ['c1', 'no-result'],
      ['h1', 'thinking-only'],
      ['w1', 'whitespace-only'],
    ],
  );
  assert.deepEqual(a.messages.map((m) => ids(s, m.records)), [['u1'], ['h2', 'x2'], ['u2', 'u3'], ['z']]);
});

test('B.4 step 6: trailing thinking of the last message is not sent ("[No message content]" when nothing is left)', async () => {
  const b = new Build();
  const s = await open([b.user('u1', null, 'q'), b.assistant('w', 'u1', 'm1', text(' ')), b.assistant('h', 'w', 'm1', thinking('hmm')), b.user('u2', 'h', 'again'), b.assistant('t', 'u2', 'm2', text('ok'))]);
  const atH = api(s, pos(s, 'h'));
  const last = atH.messages[atH.messages.length - 1]!;
  assert.deepEqual(ids(s, last.records), ['h']);
  assert.equal(last.droppedTrailingThinking, 1);
  assert.equal(last.placeholder, NO_CONTENT_LAST);
  // at the later leaf the message is not the last one and holds thinking only: removed, and the
  // two user records it separated become one message
  const atT = api(s);
  assert.deepEqual(atT.messages.map((m) => [ids(s, m.records), m.droppedTrailingThinking]), [[['u1', 'u2'], 0], [['t'], 0]]);
});

test('A.11 recovery at a tool_use leaf: the result hanging off the line is brought onto the path (2.1.112 collects results of every line of an on-path response, descendants included)', async () => {
  const b = new Build();
  const s = await open([b.user('u1', null, 'q'), b.assistant('t', 'u1', 'm2', text('let me')), b.assistant('c', 't', 'm2', toolUse('k1')), b.result('r', 'c', 'k1', 'done'), b.assistant('z', 'r', 'm3', text('done'))]);
  const p = s.paths.pathTo(pos(s, 'c'));
  assert.deepEqual(ids(s, p.visible), ['u1', 't', 'c', 'r']);
  assert.deepEqual(ids(s, p.recoveredVisible), ['r']);
});

test('B.4 step 8: a call whose result is in the file but nowhere near this path keeps its line and gets the synthetic "missing" result', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'q'),
    b.assistant('c', 'u1', 'm1', toolUse('k1')),
    // a rewound branch from u1 holds the result (written by hand: no CLI does this, but the rule must hold)
    b.user('u2', 'u1', 'other branch'),
    b.result('r', 'u2', 'k1', 'done'),
  ]);
  const atC = api(s, pos(s, 'c'));
  assert.equal(atC.missingResults, 1);
  assert.deepEqual(atC.messages.map((m) => m.role), ['user', 'assistant', 'user']);
  assert.deepEqual(atC.messages[2]!.parts, [{ kind: 'missingResult', callId: 'k1', callPos: pos(s, 'c') }]);
  assert.equal(MISSING_RESULT_TEXT, '[Tool result missing due to internal error]');
});

test('B.4 step 8: a tool result whose call is not in the message before it is not sent (and an emptied user message goes)', async () => {
  const b = new Build();
  const s = await open([b.user('u1', null, 'q'), b.assistant('a1', 'u1', 'm1', text('hi')), b.result('r1', 'a1', 'ghost', 'boo'), b.assistant('a2', 'r1', 'm2', text('bye'))]);
  const a = api(s);
  assert.deepEqual(a.orphanResults, [{ pos: pos(s, 'r1'), callId: 'ghost' }]);
  assert.deepEqual(a.messages.map((m) => ids(s, m.records)), [['u1'], ['a1'], ['a2']]);
});

test('B.4 step 3: progress, system and CLI-made API-error lines are not sent; isMeta user text is (hidden only in the UI)', async () => {
  const b = new Build();
  const err = b.assistant('e1', 'm1x', 'm-err', text('API Error: 529 overloaded'), { model: '<synthetic>', extra: { isApiErrorMessage: true } });
  const s = await open([
    b.user('u0', null, 'Caveat: the messages below were generated…', { extra: { isMeta: true } }),
    b.user('u1', 'u0', 'q'),
    b.system('m1x', 'u1', 'turn_duration'),
    err,
    b.progress('p', 'e1'),
    b.user('u2', 'p', 'retry'),
    b.assistant('a1', 'u2', 'm1', text('fine')),
  ]);
  const a = api(s);
  assert.deepEqual(a.messages.map((m) => ids(s, m.records)), [['u0', 'u1', 'u2'], ['a1']]);
  assert.deepEqual(a.dropped.map((d) => d.why), ['api-error']);
});

test('B.4 steps 4–5 (attachments, 2.1.112): meta user parts moved up behind the last tool result; types never replayed are dropped [the CLI\'s wording of each type is not recorded: shown as the attachment]', async () => {
  const b = new Build();
  const att = (uuid: string, parent: string, type: string): Rec => ({ ...b.envelope('attachment', uuid, parent), attachment: { type, content: `${type} body` } });
  const s = await open([
    b.user('u1', null, 'q'),
    b.assistant('a1', 'u1', 'm1', toolUse('t1')),
    b.result('r1', 'a1', 't1', 'ok'),
    b.user('u2', 'r1', 'and this'),
    att('x1', 'u2', 'file'),
    att('x2', 'x1', 'compaction_reminder'),
    att('x3', 'x2', 'new_file'),
    b.assistant('a2', 'x3', 'm2', text('done')),
  ]);
  // A.9: a legacy type is read under its new name
  assert.equal(s.transcript.records[pos(s, 'x3')]!.subtype, 'file');
  const a = api(s);
  assert.deepEqual(a.messages.map((m) => ids(s, m.records)), [['u1'], ['a1'], ['r1', 'x1', 'x3', 'u2'], ['a2']]);
  assert.deepEqual(a.messages[2]!.parts.map((p) => p.kind), ['toolResult', 'attachment', 'attachment', 'content']);
  assert.deepEqual(a.dropped.map((d) => [ids(s, [d.pos])[0], d.why]), [['x2', 'unreplayed-attachment']]);
});

test('A.11 chain repair and C.4: a parent missing from the file starts a root with a diagnostic; the walk continues with the latest record at most 5 s older (2.1.112), else stops', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'q', { at: 0 }),
    b.assistant('a1', 'u1', 'm1', text('one'), { at: 1 }),
    b.user('u2', 'not-in-this-file', 'after a gap', { at: 4 }),
    b.assistant('a2', 'u2', 'm2', text('two'), { at: 5 }),
    b.user('u3', 'also-missing', 'much later', { at: 60 }),
    b.assistant('a3', 'u3', 'm3', text('three'), { at: 61 }),
  ]);
  assert.deepEqual(
    s.tree.diagnostics.map((d) => `${d.line}:${d.kind}`),
    ['3:missing-parent', '5:missing-parent'],
  );
  assert.deepEqual(ids(s, s.tree.roots), ['u1', 'u2', 'u3']);
  const p2 = s.paths.pathTo(pos(s, 'a2'));
  assert.deepEqual(ids(s, p2.visible), ['u1', 'a1', 'u2', 'a2']);
  assert.deepEqual(p2.fallbacks, [{ pos: pos(s, 'u2'), to: pos(s, 'a1') }]);
  const p3 = s.paths.pathTo(pos(s, 'a3'));
  assert.equal(p3.stop, 'missing-parent');
  assert.deepEqual(ids(s, p3.visible), ['u3', 'a3']);
});

test('A.11 step 3: a cycle of parent links is cut with a diagnostic; the walk stops there, or (2.1.112) continues with a record at most 5 s older', async () => {
  const b = new Build();
  const s = await open([b.user('u1', null, 'q', { at: 0 }), b.user('x1', 'x2', 'loop a', { at: 100 }), b.assistant('x2', 'x1', 'm1', text('loop b'), { at: 101 })]);
  assert.deepEqual(s.tree.diagnostics.map((d) => d.kind), ['cycle']);
  const p = s.paths.pathTo(pos(s, 'x2'));
  assert.equal(p.stop, 'cycle');
  assert.deepEqual(ids(s, p.visible), ['x1', 'x2']);
  const near = await open([b.user('v1', null, 'q', { at: 200 }), b.user('y1', 'y2', 'loop a', { at: 201 }), b.assistant('y2', 'y1', 'm1', text('loop b'), { at: 202 })]);
  const q = near.paths.pathTo(pos(near, 'y2'));
  assert.equal(q.stop, 'root');
  assert.deepEqual(ids(near, q.visible), ['v1', 'y1', 'y2']);
});

test('A.11 step 1: a uuid written twice — the later record counts (the CLI\'s map), the earlier is kept as a line with a diagnostic', async () => {
  const b = new Build();
  const s = await open([b.user('u1', null, 'q'), b.assistant('a1', 'u1', 'm1', text('first copy')), b.assistant('a1', 'u1', 'm1', text('second copy'))]);
  assert.equal(s.transcript.records.length, 3);
  assert.deepEqual([...s.transcript.shadowed], [1]);
  assert.equal(pos(s, 'a1'), 2);
  assert.deepEqual(s.transcript.diagnostics.map((d) => `${d.line}:${d.kind}`), ['3:duplicate-id']);
  assert.deepEqual(ids(s, s.paths.pathTo(s.tree.defaultLeaf).visible), ['u1', 'a1']);
  assert.equal(s.paths.pathTo(s.tree.defaultLeaf).visible[1], 2);
});

test('A.11 parallel results, 2.1.112 rule: off-path block lines and results of an on-path response are inserted after its last on-path line, block lines first then results by timestamp; the tree lays them into the line', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'three things'),
    b.assistant('c1', 'u1', 'm1', toolUse('t1')),
    b.assistant('c2', 'c1', 'm1', toolUse('t2')),
    b.assistant('c3', 'c2', 'm1', toolUse('t3')),
    b.result('r2', 'c2', 't2', 'two', { source: 'c2', at: 10 }),
    b.result('r1', 'c1', 't1', 'one', { source: 'c1', at: 11 }),
    b.result('r3', 'c3', 't3', 'three', { source: 'c3', at: 12 }),
    b.assistant('a', 'r3', 'm2', text('all done'), { at: 13 }),
  ]);
  const p = s.paths.pathTo(s.tree.defaultLeaf);
  assert.deepEqual(ids(s, p.visible), ['u1', 'c1', 'c2', 'c3', 'r2', 'r1', 'r3', 'a']);
  assert.deepEqual(ids(s, p.recoveredVisible), ['r2', 'r1']);
  assert.deepEqual(api(s).messages.map((m) => ids(s, m.records)), [['u1'], ['c1', 'c2', 'c3'], ['r2', 'r1', 'r3'], ['a']]);
  // the older CLI: two calls lose their results and get the synthetic one
  assert.equal(apiConversation(s.transcript.records, s.paths.visibleWithoutRecovery(s.tree.defaultLeaf), s.tree.answered).missingResults, 2);
  // not a branch (A.11 "not branches"): the tree shows one line, r2 then r1 after c3
  assert.deepEqual(ids(s, s.tree.branchLeaves), ['a']);
  assert.equal(s.tree.displayParent[pos(s, 'r2')], pos(s, 'c3'));
  assert.equal(s.tree.displayParent[pos(s, 'r1')], pos(s, 'r2'));
  assert.equal(s.tree.displayParent[pos(s, 'r3')], pos(s, 'r1'));
});

test('B.5: a sidechain leaf\'s walk stops at its own root; main-path leaves never pass through sidechain records; a trailing sidechain line does not move the default leaf', async () => {
  const b = new Build();
  const s = await open([
    b.user('u1', null, 'delegate'),
    b.assistant('a1', 'u1', 'm1', toolUse('task1', 'Task', { description: 'look around', prompt: 'Look around the repo', subagent_type: 'general-purpose' })),
    b.user('s1', null, 'Look around the repo', { sidechain: true }),
    b.assistant('s2', 's1', 'ms', text('found things'), { sidechain: true }),
    b.result('r1', 'a1', 'task1', 'found things'),
    b.assistant('a2', 'r1', 'm2', text('the agent found things')),
    b.assistant('s3', 's2', 'ms2', text('late sidechain line'), { sidechain: true }),
  ]);
  assert.equal(leafId(s), 'a2');
  assert.deepEqual(ids(s, s.paths.pathTo(pos(s, 's3')).visible), ['s1', 's2', 's3']);
  assert.deepEqual(s.tree.inlineSidechains.map((x) => [ids(s, [x.rootPos])[0], ids(s, [x.taskPos])[0], x.taskCallId, x.description]), [['s1', 'a1', 'task1', 'look around']]);
  assert.equal(s.tree.displayParent[pos(s, 's1')], pos(s, 'a1'));
});

test('C.1 1.0.x compaction without a boundary [unverified: how it was linked]: no cut is made, the isCompactSummary message is sent where it is', async () => {
  const b = new Build();
  const s = await open([b.user('u1', null, 'q'), b.assistant('a1', 'u1', 'm1', text('one')), b.summary('s', 'a1', 'This session is being continued…'), b.assistant('a2', 's', 'm2', text('two'))]);
  const p = s.paths.pathTo(s.tree.defaultLeaf);
  assert.equal(p.boundary, -1);
  assert.deepEqual(ids(s, p.visible), ['u1', 'a1', 's', 'a2']);
  assert.deepEqual(p.cut, []);
});

test('isClaudeTranscript: by content — Claude chain and side records say yes; xcsh/dsh headers, other JSONL and nothing say no', () => {
  const b = new Build();
  assert.equal(isClaudeTranscript([b.user('u1', null, 'hi')]), true);
  assert.equal(isClaudeTranscript([{ type: 'summary', summary: 'Title', leafUuid: 'x' }]), true);
  assert.equal(isClaudeTranscript([{ type: 'file-history-snapshot', messageId: 'x', snapshot: { messageId: 'x', trackedFileBackups: {} }, isSnapshotUpdate: false }]), true);
  assert.equal(isClaudeTranscript([{ type: 'queue-operation', operation: 'enqueue', sessionId: 's', timestamp: 't' }]), true);
  assert.equal(isClaudeTranscript([{ type: 'session', version: 3, id: 'x', timestamp: 't', cwd: '/' }, b.user('u1', null, 'hi')]), false);
  assert.equal(isClaudeTranscript([{ type: 'session', version: 0, createdAt: 1 }]), false);
  assert.equal(isClaudeTranscript([{ type: 'message', id: 'a', parentId: null, timestamp: 't' }]), false);
  assert.equal(isClaudeTranscript([{ timestamp: 't', type: 'session_meta', payload: {} }]), false);
  assert.equal(isClaudeTranscript([{ type: 'user', uuid: 'u' }]), false, 'no parentUuid and no sessionId: not enough to say');
  assert.equal(isClaudeTranscript([]), false);
});

test('hostile shapes stay linear: 20,000 progress lines chained under one line of a response with a parallel result build and walk without deep recursion (a recursive walk overflows the stack well before)', async () => {
  const b = new Build();
  const lines: Rec[] = [b.user('u1', null, 'q', { at: 0 }), b.assistant('c1', 'u1', 'm1', toolUse('t1'), { at: 1 }), b.assistant('c2', 'c1', 'm1', toolUse('t2'), { at: 2 })];
  let parent = 'c1';
  for (let i = 0; i < 20_000; i++) {
    lines.push(b.progress(`p${i}`, parent, { at: 3 }));
    parent = `p${i}`;
  }
  lines.push(b.result('r1', 'c1', 't1', 'one', { at: 4 }), b.result('r2', 'c2', 't2', 'two', { at: 5 }), b.assistant('a', 'r2', 'm2', text('done'), { at: 6 }));
  let prev = 'a';
  for (let i = 0; i < 2_000; i++) {
    const id = `x${i}`;
    lines.push(i % 2 === 0 ? b.user(id, prev, 'more', { at: 7 + i }) : b.assistant(id, prev, `mx${i}`, text('ok'), { at: 7 + i }));
    prev = id;
  }
  const s = await open(lines);
  assert.equal(leafId(s), 'x1999');
  const p = s.paths.pathTo(s.tree.defaultLeaf);
  assert.equal(p.visible.length, 2_006);
  assert.deepEqual(ids(s, p.recoveredVisible), ['r1']);
  assert.ok(s.tree.linearised.has(pos(s, 'r1')));
  assert.equal(api(s).messages.length, 2_004);
});
