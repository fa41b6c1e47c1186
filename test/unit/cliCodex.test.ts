// Issue 24 through issue 23's seam: a Codex rollout is told by its content (plain or zstd, whatever
// its name) and every read command prints what its model answers — no command knows the format.
// The commands run in-process on the real rollouts of test/fixtures/codex.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextCommand, doctorCommand, entriesCommand, eventsCommand, treeCommand } from '../../src/cli/commands/read';
import { exportCommand, forkCommand } from '../../src/cli/commands/share';
import { migrateCommand, relabelCommand, titleCommand } from '../../src/cli/commands/write';
import { CODEX_READ_ONLY_REASON } from '../../src/core/formats/detect';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { headerWriteRefusal } from '../../src/core/store/writeRefusal';
import { detectFileFormat } from '../../src/core/engine/openModel';
import { CliError, UsageError } from '../../src/cli/util';
import { runCommand as run } from '../helpers/cliInProcess';
import { fixture } from '../helpers/fixtures';
import { zstdFrame } from '../helpers/dshBuild';

const VSCODE_ROLLOUT = fixture('codex', 'agentcmd', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl');
const EXEC_ROLLOUT = fixture('codex', 'agent-history', 'session-01.jsonl');

test('a Codex rollout is told by its content: plain, zstd-compressed, and under a name that says nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-codex-'));
  const renamed = join(dir, 'notes.jsonl');
  copyFileSync(VSCODE_ROLLOUT, renamed);
  const zst = join(dir, 'session.jsonl.zstd');
  writeFileSync(zst, zstdFrame(readFileSync(VSCODE_ROLLOUT)));
  assert.equal(await detectFileFormat(VSCODE_ROLLOUT), 'codex');
  assert.equal(await detectFileFormat(renamed), 'codex');
  assert.equal(await detectFileFormat(zst), 'codex');
  // and the dsh and xcsh fixtures stay what they are
  assert.equal(await detectFileFormat(fixture('dsh', 'dsh-compaction-recovery.session.jsonl')), 'dsh');
  assert.equal(await detectFileFormat(fixture('upstream', 'pi-session.v1.glued-records.jsonl')), 'xcsh');
  // the compressed copy answers as the plain file does
  const plain = await run(contextCommand, [VSCODE_ROLLOUT]);
  const packed = await run(contextCommand, [zst]);
  assert.equal(packed.out, plain.out);
});

test('context: the 54 API items the replay rebuilds (the fixture README), their sources, and the sentence that the system prompt and tools are not recorded', async () => {
  const r = await run(contextCommand, [VSCODE_ROLLOUT]);
  assert.equal(r.code, 0);
  assert.equal(r.err, '');
  const ctx = JSON.parse(r.out) as { format: string; leafId: string; items: { type: string; role?: string }[]; itemSources: string[]; cutItemIds: string[]; notRecorded: string };
  assert.equal(ctx.format, 'codex');
  assert.equal(ctx.leafId, 'L112');
  assert.equal(ctx.items.length, 54);
  const count = (t: string, role?: string): number => ctx.items.filter((i) => i.type === t && (role === undefined || i.role === role)).length;
  assert.deepEqual([count('message', 'user'), count('reasoning'), count('function_call'), count('function_call_output'), count('message', 'assistant')], [3, 17, 16, 16, 2]);
  assert.equal(ctx.itemSources.length, 54);
  assert.ok(ctx.itemSources.every((s) => /^L\d+/.test(s)));
  assert.deepEqual(ctx.cutItemIds, []);
  assert.equal(ctx.notRecorded, 'messages only — system prompt and tools are not recorded by this agent');
  // at the first turn: only what the model had then
  const first = JSON.parse((await run(contextCommand, [VSCODE_ROLLOUT, '--leaf', 'T3'])).out) as { leafId: string; items: unknown[] };
  assert.equal(first.leafId, 'T3');
  assert.ok(first.items.length > 0 && first.items.length < 54, `${first.items.length} items at the first turn`);
  // the exec rollout records its base instructions: only the tools are missing
  const exec = JSON.parse((await run(contextCommand, [EXEC_ROLLOUT])).out) as { notRecorded: string };
  assert.equal(exec.notRecorded, 'messages and system prompt only — tools are not recorded by this agent');
});

test('context: an unknown node is said against the file; options of other formats are refused with their reason', async () => {
  await assert.rejects(run(contextCommand, [VSCODE_ROLLOUT, '--leaf', 'T5']), (e: unknown) => e instanceof CliError && !(e instanceof UsageError) && e.file === VSCODE_ROLLOUT && /no turn or record with id "T5"/.test(e.message));
  await assert.rejects(run(contextCommand, [VSCODE_ROLLOUT, '--at', '3']), (e: unknown) => e instanceof UsageError && /^--at is for deepseek-harness \(dsh\) logs; a Codex rollout takes --leaf <node id>\nusage: session-loom context/.test(e.message));
  await assert.rejects(run(contextCommand, [VSCODE_ROLLOUT, '--session', 'x']), (e: unknown) => e instanceof UsageError && /a Codex rollout holds one session/.test(e.message));
  await assert.rejects(run(contextCommand, [VSCODE_ROLLOUT, '--blobs', '/tmp']), (e: unknown) => e instanceof UsageError && /a Codex rollout keeps its images inline/.test(e.message));
});

test('entries: every record as read; events is a usage error pointing at entries; fork refuses (read-only)', async () => {
  const r = await run(entriesCommand, [VSCODE_ROLLOUT]);
  const doc = JSON.parse(r.out) as { format: string; encoding: string; meta: { cliVersion: string }; records: { line: number }[]; leafId: string };
  assert.equal(doc.format, 'codex');
  assert.equal(doc.encoding, 'jsonl');
  assert.equal(doc.meta.cliVersion, '0.40.0');
  assert.equal(doc.records.length, 112);
  assert.deepEqual(doc.records.map((x) => x.line).slice(0, 3), [1, 2, 3]);
  assert.equal(doc.leafId, 'L112');
  await assert.rejects(run(eventsCommand, [VSCODE_ROLLOUT]), (e: unknown) => e instanceof UsageError && /is an OpenAI Codex CLI rollout: use "session-loom entries" for its records$/.test(e.message));
  await assert.rejects(run(forkCommand, [VSCODE_ROLLOUT, 'L3']), (e: unknown) => e instanceof CliError && !(e instanceof UsageError) && e.line === 0 && e.message === 'an OpenAI Codex CLI rollout is read-only: it cannot be forked');
});

test('tree: turns → records, the default leaf marked; --json the same rows as data', async () => {
  const text = (await run(treeCommand, [VSCODE_ROLLOUT])).out.split('\n');
  assert.match(text[0]!, /^L1 session_init: session 01997ea4-a70d-7da3-8c20-c736db82a7c5 · /);
  assert.match(text[2]!, /^T3 turn: Turn 1: When I load the dashboard, I see 4 queries\./);
  assert.match(text[3]!, /^ {2}L3 user: When I load the dashboard/);
  assert.equal(text.filter((l) => l.endsWith('  ← leaf')).length, 1);
  assert.match(text.find((l) => l.endsWith('  ← leaf'))!, /^ {2}L112 /);
  const json = JSON.parse((await run(treeCommand, [VSCODE_ROLLOUT, '--json'])).out) as { format: string; defaultLeafId: string; rows: { id: string; depth: number }[] };
  assert.equal(json.format, 'codex');
  assert.equal(json.defaultLeafId, 'L112');
  assert.equal(json.rows.length, text.filter((l) => l !== '').length);
});

test('doctor: a clean real rollout is clean (exit 0); export writes the context as Markdown', async () => {
  const d = await run(doctorCommand, [VSCODE_ROLLOUT]);
  assert.equal(d.code, 0);
  assert.equal(d.err, `${VSCODE_ROLLOUT}: Codex rollout (CLI 0.40.0), jsonl; 112 records; no findings\n`);
  const j = JSON.parse((await run(doctorCommand, [VSCODE_ROLLOUT, '--json'])).out) as { format: string; records: number; findings: number };
  assert.deepEqual([j.format, j.records, j.findings], ['codex', 112, 0]);
  const md = await run(exportCommand, [VSCODE_ROLLOUT, '--format', 'md']);
  assert.equal(md.code, 0);
  assert.match(md.out, /When I load the dashboard, I see 4 queries/);
  // the export says what the preview says: what the log does not record, the notes, the agent's name for its mode
  assert.match(md.out, /^- _messages only — system prompt and tools are not recorded by this agent_$/m);
  assert.match(md.out, /^- Images are shown as sent: the log does not record whether the model took image input \\\(assumed it did; unverified\\\)\.$/m);
  assert.match(md.out, /· Collaboration mode: none ·/);
});

test('every write refuses a Codex rollout naming it, and leaves its bytes as they were (the CLI, the loader the writers read with, the store guard)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-codex-w-'));
  const file = join(dir, 'rollout.jsonl');
  copyFileSync(EXEC_ROLLOUT, file);
  const before = readFileSync(file);
  const expect = (verb: string) => (e: unknown) => e instanceof CliError && !(e instanceof UsageError) && e.message === `cannot ${verb}: ${CODEX_READ_ONLY_REASON}`;
  await assert.rejects(run(migrateCommand, [file]), expect('migrate'));
  await assert.rejects(run(relabelCommand, [file, 'L3', 'x']), expect('relabel'));
  await assert.rejects(run(titleCommand, [file, 'hello']), expect('set the title'));
  assert.deepEqual(readFileSync(file), before);
  // what the extension's writers read and check say the same
  assert.equal((await loadSessionFile(file)).readOnlyReason, CODEX_READ_ONLY_REASON);
  const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as unknown;
  assert.equal(headerWriteRefusal(first), CODEX_READ_ONLY_REASON);
});
