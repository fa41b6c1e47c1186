// The command-line documents of a Claude Code transcript (claudeDocuments.ts): the API messages
// at a leaf in the Anthropic shape (B.4), every line as written, the tree, the doctor's report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ClaudeModel } from '../../src/core/engine/claude/claudeModel';
import { isStreamed, TargetError, type JsonAnswer, type TreeLine } from '../../src/core/engine/documents';
import { fixture } from '../helpers/fixtures';

const SHORT = fixture('claude-code', 'spotter', 'short.jsonl');

async function member(a: JsonAnswer, key: string): Promise<unknown> {
  const v = a.members.find(([k]) => k === key)?.[1];
  if (!isStreamed(v)) return v;
  const out: unknown[] = [];
  await v.stream((items) => {
    out.push(...items);
  });
  return out;
}

test('context document of spotter/short.jsonl: three API messages, the recovered result first among the tool results, each message with its records (B.2, B.4)', async () => {
  const docs = (await ClaudeModel.open(SHORT)).documents();
  const a = await docs.context({});
  assert.equal(await member(a, 'format'), 'claude');
  assert.equal(await member(a, 'leafId'), 'c06a9fe4-ba05-44f2-b619-a057c18101e5');
  const messages = (await member(a, 'messages')) as { role: string; content: { type: string; tool_use_id?: string; text?: string }[] }[];
  assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'user']);
  assert.deepEqual(messages[1]!.content.map((b) => b.type), ['thinking', 'text', 'tool_use', 'tool_use']);
  assert.deepEqual(messages[2]!.content.map((b) => [b.type, b.tool_use_id ?? b.text]), [
    ['tool_result', 'toolu_0116Hyi5v8ut7Ffb7d8qV1Sc'],
    ['tool_result', 'toolu_01FdQ8qTyVyZjE3Kw4dguQGx'],
    ['text', '[Request interrupted by user for tool use]'],
  ]);
  assert.deepEqual((await member(a, 'messageSources')) as string[][], [
    ['7d48cbd2-6615-4dd8-87f6-38f12b8167d6'],
    ['c228f841-697c-48dd-b33e-3ebc5ced6a41', 'd4ad15f7-a11f-43cc-b2f3-e01c02800bf3', '194d33b0-6cf7-4c54-8200-07dfd3fb88cf', 'ed2ec700-d1ee-4a18-9100-da63317716fc'],
    ['ff80d82a-4ac1-4945-83dd-1226f98b8cf6', '2618ef5d-c1c6-4938-b81c-8a3230ccad76', 'c06a9fe4-ba05-44f2-b619-a057c18101e5'],
  ]);
  assert.deepEqual(await member(a, 'recoveredRecordIds'), ['ff80d82a-4ac1-4945-83dd-1226f98b8cf6']);
  assert.equal(await member(a, 'notRecorded'), 'messages only — system prompt and tools are not recorded by this agent');
  await assert.rejects(docs.context({ leaf: 'nope' }), TargetError);
});

test('records document: every line as written, in file order (side records included); tree and doctor', async () => {
  const docs = (await ClaudeModel.open(SHORT)).documents();
  const records = (await member(await docs.records({}), 'records')) as unknown[];
  const lines = readFileSync(SHORT, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);
  assert.deepEqual(records, lines);
  let json = '';
  await docs.treeJson(false, (s) => (json += s));
  const tree = JSON.parse(json) as { format: string; defaultLeafId: string; rows: { id: string }[] };
  assert.equal(tree.format, 'claude');
  assert.equal(tree.rows.length, 15);
  const text: TreeLine[] = [];
  await (await docs.treeText()).lines((l) => text.push(...l));
  assert.deepEqual(text.filter((l) => l.leaf).map((l) => l.id), ['c06a9fe4-ba05-44f2-b619-a057c18101e5']);
  const clean = await docs.doctor({});
  assert.deepEqual([clean.verdict, clean.exitCode], ['Claude Code transcript (CLI 2.1.38); 15 records; no findings', 0]);
  const helper = await (await ClaudeModel.open(fixture('claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d', 'subagents', 'agent-acompact-fffbd0.jsonl'))).documents().doctor({});
  assert.deepEqual([helper.verdict, helper.exitCode, helper.diagnostics.map((d) => d.kind)], ['Claude Code transcript (CLI 2.1.39); 4 records; 3 findings', 1, ['missing-parent', 'missing-parent', 'missing-parent']]);
});
