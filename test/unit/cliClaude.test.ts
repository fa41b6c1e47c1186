// Issue 24 through issue 23's seam: a Claude Code transcript is told by its content (whatever its
// name) and every read command prints what its model answers; every write refuses it by name.
// The commands run in-process on the real transcripts of test/fixtures/claude-code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextCommand, doctorCommand, entriesCommand, eventsCommand, treeCommand } from '../../src/cli/commands/read';
import { forkCommand } from '../../src/cli/commands/share';
import { migrateCommand, relabelCommand, titleCommand } from '../../src/cli/commands/write';
import { detectFileFormat } from '../../src/core/engine/openModel';
import { CLAUDE_READ_ONLY_REASON } from '../../src/core/formats/claude/detect';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { CliError, UsageError } from '../../src/cli/util';
import { runCommand as run } from '../helpers/cliInProcess';
import { fixture, fixtureFiles } from '../helpers/fixtures';

const SPOTTER = fixture('claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const SHORT = fixture('claude-code', 'spotter', 'short.jsonl');

test('every Claude Code fixture (subagents included) is told as Claude Code by its content; a renamed copy too; the other formats stay theirs', async () => {
  const files = ['agent-history', 'agentcmd', 'claude-code-viewer', 'spotter', 'yepanywhere'].flatMap((d) => fixtureFiles(join('claude-code', d)));
  for (const sub of ['agent-a881341.jsonl', 'agent-acompact-fffbd0.jsonl']) files.push(fixture('claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d', 'subagents', sub));
  assert.equal(files.length, 11, 'every transcript the fixture README lists');
  for (const f of files) assert.equal(await detectFileFormat(f), 'claude', f);
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-claude-'));
  const renamed = join(dir, 'notes.jsonl');
  copyFileSync(SHORT, renamed);
  assert.equal(await detectFileFormat(renamed), 'claude');
  for (const f of fixtureFiles('codex/agentcmd')) assert.equal(await detectFileFormat(f), 'codex');
  for (const f of fixtureFiles('real-v3')) assert.equal(await detectFileFormat(f), 'xcsh');
  for (const f of fixtureFiles('dsh')) assert.equal(await detectFileFormat(f), 'dsh');
});

test('context: after the auto compaction the model receives 100 messages starting at the boundary, 9 records recovered by the parallel-results rule (the fixture README)', async () => {
  const r = await run(contextCommand, [SPOTTER]);
  assert.equal(r.code, 0, r.err);
  const ctx = JSON.parse(r.out) as { format: string; messages: { role: string }[]; messageSources: string[][]; compactBoundary: string | null; recoveredRecordIds: string[]; notRecorded: string };
  assert.equal(ctx.format, 'claude');
  assert.equal(ctx.messages.length, 100);
  assert.equal(ctx.messageSources.length, 100);
  assert.notEqual(ctx.compactBoundary, null);
  assert.equal(ctx.recoveredRecordIds.length, 9);
  assert.equal(ctx.notRecorded, 'messages only — system prompt and tools are not recorded by this agent');
  await assert.rejects(run(contextCommand, [SPOTTER, '--leaf', 'no-such-uuid']), (e: unknown) => e instanceof CliError && !(e instanceof UsageError) && e.file === SPOTTER);
  await assert.rejects(run(contextCommand, [SPOTTER, '--at', '3']), (e: unknown) => e instanceof UsageError && /a Claude Code transcript takes --leaf <uuid>/.test(e.message));
});

test('entries, tree and doctor answer a Claude Code transcript; events points at entries', async () => {
  const entries = JSON.parse((await run(entriesCommand, [SHORT])).out) as { format: string; records: unknown[] };
  assert.equal(entries.format, 'claude');
  assert.equal(entries.records.length, 15);
  const tree = await run(treeCommand, [SHORT]);
  assert.equal(tree.code, 0);
  assert.equal(tree.out.split('\n').filter((l) => l.endsWith('  ← leaf')).length, 1);
  const d = await run(doctorCommand, [SHORT, '--json']);
  assert.equal((JSON.parse(d.out) as { format: string }).format, 'claude');
  await assert.rejects(run(eventsCommand, [SHORT]), (e: unknown) => e instanceof UsageError && /is a Claude Code transcript: use "session-loom entries" for its records$/.test(e.message));
});

test('every write refuses a Claude Code transcript by name and leaves its bytes as they were', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-claude-w-'));
  const file = join(dir, 'session.jsonl');
  copyFileSync(SHORT, file);
  const before = readFileSync(file);
  const expect = (verb: string) => (e: unknown) => e instanceof CliError && !(e instanceof UsageError) && e.message === `cannot ${verb}: ${CLAUDE_READ_ONLY_REASON}`;
  await assert.rejects(run(migrateCommand, [file]), expect('migrate'));
  await assert.rejects(run(relabelCommand, [file, 'x', 'y']), expect('relabel'));
  await assert.rejects(run(titleCommand, [file, 'hello']), expect('set the title'));
  await assert.rejects(run(forkCommand, [file, 'x']), (e: unknown) => e instanceof CliError && e.message === 'a Claude Code transcript is read-only: it cannot be forked');
  assert.deepEqual(readFileSync(file), before);
  assert.equal((await loadSessionFile(file)).readOnlyReason, CLAUDE_READ_ONLY_REASON);
});
