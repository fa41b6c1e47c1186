// Subagents of a Claude Code transcript in all three layouts (claude-code-format.md A.1, A.8,
// A.11 rule 5, B.5) and the compaction helper, each linked to what started it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { findSubagents, loadClaudeSession, type SubagentLink } from '../../src/core/formats/claude/index';
import { Build, SESSION, text, toolUse, writeLines } from '../helpers/claudeBuild';
import { fixture } from '../helpers/fixtures';

const strip = (root: string, links: SubagentLink[]): SubagentLink[] => links.map((l) => ({ ...l, path: relative(root, l.path) }));

test('spotter/258c7280… (2.1.x layout): the subagent in <session>/subagents/ linked to its Task call by the result\'s toolUseResult.agentId, the compaction helper to the boundary by its logical parent', async () => {
  const root = fixture('claude-code', 'spotter');
  const s = await loadClaudeSession(join(root, '258c7280-ae70-4798-800f-63464d01a85d.jsonl'));
  assert.deepEqual(strip(root, await findSubagents(s.tree)), [
    {
      layout: 'subagents-folder',
      agentId: 'a881341',
      path: '258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl',
      rootUuid: null,
      taskCallId: 'toolu_01VmaERAwhb19LGUwu9GenaK',
      taskEntryUuid: '7d1d084d-7660-43f0-9cd7-66602a20643a',
      boundaryUuid: null,
      linkedBy: 'toolUseResult',
      description: 'Research Claude hook output',
      agentType: 'claude-code-guide',
    },
    {
      layout: 'compaction',
      agentId: 'acompact-fffbd0',
      path: '258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl',
      rootUuid: null,
      taskCallId: null,
      taskEntryUuid: null,
      boundaryUuid: 'd46d6800-2f43-4360-ba84-c1de9c1ecbae',
      linkedBy: 'logicalParentUuid',
      description: null,
      agentType: null,
    },
  ]);
  // A.8: the agent_progress lines name the same agent for the same call
  const progress = s.transcript.records.filter((r) => r.agentLink?.via === 'agent_progress');
  assert.equal(progress.length, 5);
  assert.ok(progress.every((r) => r.agentLink!.agentId === 'a881341' && r.agentLink!.toolUseId === 'toolu_01VmaERAwhb19LGUwu9GenaK'));
});

test('claude-code-viewer/5c0375b4… (1.0.x layout): inline sidechains linked by the Task prompt', async () => {
  const root = fixture('claude-code', 'claude-code-viewer');
  const s = await loadClaudeSession(join(root, '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'));
  const links = await findSubagents(s.tree);
  assert.deepEqual(
    links.map((l) => [l.layout, l.rootUuid, l.taskCallId, l.taskEntryUuid, l.linkedBy, l.description, l.agentType]),
    [
      ['inline', '6340ddef-f656-4b72-a065-82390f637678', 'toolu_014YF9TXhDRR7BnpasNJ7gjC', 'a2bbaa8d-3c70-46f0-8abf-933c123d557d', 'prompt', 'Check package configuration', 'general-purpose'],
      ['inline', '83e2917c-8940-4df6-a5a5-f2514f0d08c5', 'toolu_01LKfUwrsnof18CpWZQcJH44', 'cfca867b-e0bb-4682-a5ff-2dd1b228a44f', 'prompt', 'Analyze current project structure', 'general-purpose'],
    ],
  );
  assert.ok(links.every((l) => l.path === s.transcript.path));
});

function mainSession(b: Build): ReturnType<Build['user']>[] {
  return [
    b.user('u1', null, 'research two things'),
    b.assistant('a1', 'u1', 'm1', toolUse('call-1', 'Task', { description: 'First', prompt: 'Find the first thing', subagent_type: 'general-purpose' })),
    b.assistant('a2', 'a1', 'm1', toolUse('call-2', 'Task', { description: 'Second', prompt: 'Find the second thing', subagent_type: 'Explore' })),
    { ...b.result('r1', 'a2', 'call-1', 'first found'), toolUseResult: { status: 'completed', agentId: 'ag1', totalTokens: 10 } },
    b.result('r2', 'r1', 'call-2', 'second found'),
    b.assistant('a3', 'r2', 'm2', text('both found')),
  ];
}

test('2.0.x layout: agent-<id>.jsonl beside the session files, told apart by the records\' sessionId; linked by toolUseResult.agentId, else by the Task prompt', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-claude-sub-'));
  const b = new Build();
  const main = writeLines(mainSession(b), `${SESSION}.jsonl`, dir);
  writeLines([b.user('x1', null, 'Find the first thing', { sidechain: true, extra: { agentId: 'ag1' } }), b.assistant('x2', 'x1', 'mx', text('first found'), { sidechain: true, extra: { agentId: 'ag1' } })], 'agent-ag1.jsonl', dir);
  writeLines([b.user('y1', null, 'Find the second thing', { sidechain: true, extra: { agentId: 'ag2' } })], 'agent-ag2.jsonl', dir);
  // an agent file of another session in the same project folder is not this session's
  writeLines([{ ...b.user('z1', null, 'Find the second thing', { sidechain: true, extra: { agentId: 'ag3' } }), sessionId: 'another-session' }], 'agent-ag3.jsonl', dir);
  const s = await loadClaudeSession(main);
  assert.deepEqual(
    (await findSubagents(s.tree)).map((l) => [l.layout, l.agentId, relative(dir, l.path), l.taskCallId, l.taskEntryUuid, l.linkedBy, l.description, l.agentType]),
    [
      ['beside-session', 'ag1', 'agent-ag1.jsonl', 'call-1', 'a1', 'toolUseResult', 'First', 'general-purpose'],
      ['beside-session', 'ag2', 'agent-ag2.jsonl', 'call-2', 'a2', 'prompt', 'Second', 'Explore'],
    ],
  );
});

test('2.1.x layout with a folder per agent and a .meta.json sidecar [sidecar content unverified: agentType/description read when present]; agent_progress links a call (A.8)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-claude-sub-'));
  const b = new Build();
  const lines = mainSession(b);
  lines.splice(3, 0, { ...b.progress('p1', 'a2'), data: { type: 'agent_progress', agentId: 'ag2', prompt: 'Find the second thing' }, parentToolUseID: 'call-2', toolUseID: 'agent_msg_1' });
  const main = writeLines(lines, `${SESSION}.jsonl`, dir);
  writeLines([b.user('x1', null, 'Find the first thing', { sidechain: true, extra: { agentId: 'ag1' } })], `${SESSION}/subagents/agent-ag1.jsonl`, dir);
  const nested = writeLines([b.user('y1', null, 'something else', { sidechain: true, extra: { agentId: 'ag2' } })], `${SESSION}/subagents/wf_1/agent-ag2.jsonl`, dir);
  writeFileSync(nested.replace(/\.jsonl$/, '.meta.json'), JSON.stringify({ agentType: 'workflow-step', description: 'Step one' }));
  writeLines([b.user('w1', null, 'too deep', { sidechain: true, extra: { agentId: 'ag9' } })], `${SESSION}/subagents/a/b/agent-ag9.jsonl`, dir);
  const s = await loadClaudeSession(main);
  assert.deepEqual(
    (await findSubagents(s.tree)).map((l) => [l.layout, l.agentId, relative(dir, l.path), l.taskCallId, l.linkedBy, l.description, l.agentType]),
    [
      ['subagents-folder', 'ag1', `${SESSION}/subagents/agent-ag1.jsonl`, 'call-1', 'toolUseResult', 'First', 'general-purpose'],
      ['subagents-folder', 'ag2', `${SESSION}/subagents/wf_1/agent-ag2.jsonl`, 'call-2', 'agent_progress', 'Step one', 'workflow-step'],
    ],
  );
});

test('a compaction helper whose records name no boundary\'s logical parent is linked to the first boundary written after its answer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-claude-sub-'));
  const b = new Build();
  const main = writeLines(
    [b.user('u1', null, 'q', { at: 1 }), b.assistant('a1', 'u1', 'm1', text('a'), { at: 2 }), b.boundary('bd', 'a1', { at: 20 }), b.summary('s', 'bd', 'continued', { at: 20 }), b.assistant('a2', 's', 'm2', text('b'), { at: 21 })],
    `${SESSION}.jsonl`,
    dir,
  );
  writeLines([b.user('h1', 'u1', 'Summarise the conversation', { sidechain: true, at: 10, extra: { agentId: 'acompact-1' } }), b.assistant('h2', 'h1', 'mh', text('Summary: …'), { sidechain: true, at: 15, extra: { agentId: 'acompact-1' } })], `${SESSION}/subagents/agent-acompact-1.jsonl`, dir);
  const links = await findSubagents((await loadClaudeSession(main)).tree);
  assert.deepEqual(links.map((l) => [l.layout, l.agentId, l.boundaryUuid, l.linkedBy]), [['compaction', 'acompact-1', 'bd', 'time']]);
});
