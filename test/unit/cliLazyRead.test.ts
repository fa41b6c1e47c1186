// `session-loom context` (and entries, doctor, tree) read every xcsh file through the session
// engine's index (issues 11 and 23) and must print byte for byte what the whole-file reference
// prints (test/reference/cliRead.ts): stdout, stderr, exit code and errors, at the default leaf,
// at `--leaf null`, at many leaves, with `--pretty` and `--blobs`. The commands run in-process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { contextCommand, doctorCommand, treeCommand } from '../../src/cli/commands/read';
import { entriesCommand } from '../../src/cli/commands/read';
import { referenceContext, referenceDoctor, referenceEntries, referenceTree } from '../reference/cliRead';
import { openSessionDocument } from '../reference/document';
import { generateSession } from '../../bench/generate';
import { fixtureFiles } from '../helpers/fixtures';
import { migratedCopy } from '../helpers/migrated';
import { fileArb, renderFile } from '../helpers/generatedV3';
import type { Io } from '../../src/cli/util';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'sl-clilazy-'));

type Command = (argv: string[], io: Io) => Promise<number>;
interface Outcome {
  code: number | null;
  out: string;
  err: string;
  error: string | null;
}

const REFERENCE = new Map<Command, Command>([
  [contextCommand, referenceContext],
  [entriesCommand, referenceEntries],
  [treeCommand, referenceTree],
  [doctorCommand, referenceDoctor],
]);

async function runWith(eager: boolean, cmd: Command, argv: string[]): Promise<Outcome> {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t) };
  try {
    const code = await (eager ? REFERENCE.get(cmd)! : cmd)(argv, io);
    return { code, out, err, error: null };
  } catch (e) {
    return { code: null, out, err, error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

async function assertSameOutput(cmd: Command, argv: string[]): Promise<void> {
  const eager = await runWith(true, cmd, argv);
  const lazy = await runWith(false, cmd, argv);
  // Compared whole (not field by field) so a mismatch shows where the bytes part.
  assert.deepEqual(lazy, eager, `engine ≠ reference for ${argv.join(' ')}`);
}

/** Leaves where contexts differ: the first entries, the last ones, every 1/k-th, each compaction and its neighbours. */
async function probeLeaves(path: string, count = 8): Promise<string[]> {
  const doc = await openSessionDocument(path);
  const entries = doc.loaded.entries;
  const ids = new Set<string>();
  for (const e of [...entries.slice(0, 2), ...entries.slice(-3)]) ids.add(e.id);
  for (let k = 1; k < count; k++) {
    const e = entries[Math.floor((entries.length * k) / count)];
    if (e) ids.add(e.id);
  }
  entries.forEach((e, i) => {
    if (e.type === 'compaction') for (const x of entries.slice(i, i + 2)) ids.add(x.id);
  });
  return [...ids].filter((id) => typeof id === 'string');
}

async function assertContextParity(path: string, leaves: readonly string[], extra: string[] = []): Promise<void> {
  for (const pretty of [[], ['--pretty']]) {
    await assertSameOutput(contextCommand, [path, ...pretty, ...extra]);
    await assertSameOutput(contextCommand, [path, '--leaf', 'null', ...pretty, ...extra]);
  }
  await assertSameOutput(contextCommand, [path, '--leaf', 'no-such-entry', ...extra]);
  for (const leaf of leaves) {
    await assertSameOutput(contextCommand, [path, '--leaf', leaf, ...extra]);
    await assertSameOutput(contextCommand, [path, '--leaf', leaf, '--pretty', ...extra]);
  }
}

async function assertDoctorParity(path: string, extra: string[] = []): Promise<void> {
  for (const form of [[], ['--json'], ['--json', '--pretty']]) await assertSameOutput(doctorCommand, [path, ...form, ...extra]);
}

async function assertTreeParity(path: string): Promise<void> {
  for (const form of [[], ['--json'], ['--json', '--pretty']]) await assertSameOutput(treeCommand, [path, ...form]);
  for (const form of [[], ['--pretty']]) await assertSameOutput(entriesCommand, [path, ...form]);
}

/** Every lazily read command prints what the eager path prints on this file. */
async function assertParity(path: string, leaves: readonly string[], extra: string[] = []): Promise<void> {
  await assertContextParity(path, leaves, extra);
  await assertDoctorParity(path, extra);
  await assertTreeParity(path);
}

test('context, doctor, tree: migrated upstream-full fixtures and the headed real v3 fixtures, read lazily, print byte for byte what the eager document prints', async () => {
  const dir = tmp();
  const files = [...(await Promise.all(fixtureFiles('upstream-full').map((f) => migratedCopy(f, dir)))), ...fixtureFiles('real-v3').filter((f) => readFileSync(f, 'utf8').startsWith('{"type":"session"'))];
  assert.ok(files.length >= 5);
  for (const path of files) await assertParity(path, await probeLeaves(path));
});

test('context, doctor, tree, entries: files the loader reshapes (v1 fixtures, the header-less real one) print what the reference prints', async () => {
  for (const path of [...fixtureFiles('upstream'), ...fixtureFiles('real-v3').filter((f) => !readFileSync(f, 'utf8').startsWith('{"type":"session"'))]) {
    await assertSameOutput(contextCommand, [path]);
    await assertSameOutput(contextCommand, [path, '--pretty']);
    await assertDoctorParity(path);
    await assertTreeParity(path);
  }
});

test('context, doctor, tree: bench-generated sessions (branches, labels, compactions, model/thinking changes) print the same lazily, in windows smaller than the context', async () => {
  const dir = tmp();
  const path = join(dir, 'gen.jsonl');
  generateSession(path, 3000, 5);
  await assertParity(path, await probeLeaves(path, 6));
});

test('property: context, doctor and tree of generated v3 sessions (glued records, torn tails, CRLF, BOM, unreadable lines, title line, duplicate ids, remote compactions) is byte-identical lazily and eagerly, at every probed leaf', async () => {
  const dir = tmp();
  let k = 0;
  await fc.assert(
    fc.asyncProperty(fileArb, async (f) => {
      const path = join(dir, `p${k++}.jsonl`);
      writeFileSync(path, renderFile(f));
      await assertParity(path, await probeLeaves(path, 4));
    }),
    { numRuns: 60 },
  );
});

/** A v3 session whose image blocks reference blobs: one in the store, one missing, one malformed, one damaged. */
function sessionWithBlobRefs(dir: string): { path: string; blobs: string } {
  const blobs = join(dir, 'blobs');
  mkdirSync(blobs, { recursive: true });
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUg==', 'base64');
  const good = createHash('sha256').update(png).digest('hex');
  writeFileSync(join(blobs, good), png);
  const bad = createHash('sha256').update('other').digest('hex');
  writeFileSync(join(blobs, bad), 'not these bytes');
  const missing = 'a'.repeat(64);
  const img = (data: string): unknown => ({ type: 'image', data, mimeType: 'image/png' });
  const lines = [
    { type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' },
    { type: 'message', id: 'a1', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'text', text: 'look' }, img(`blob:sha256:${good}`)] } },
    { type: 'message', id: 'a2', parentId: 'a1', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'toolResult', toolCallId: 'c', toolName: 'read', content: [img(`blob:sha256:${missing}`), img('blob:sha256:NOTHEX')] } },
    { type: 'custom_message', id: 'a3', parentId: 'a2', timestamp: '2026-01-01T00:00:03.000Z', customType: 'n', content: [img(`blob:sha256:${bad}`), img(`blob:sha256:${good}`)], display: true },
  ];
  const path = join(dir, 'blobs.jsonl');
  // After a junk line and a record over several lines (the lines of later diagnostics move down), a duplicate id.
  const tail = ['not json', JSON.stringify({ ...lines[2], id: 'a4', parentId: 'a3' }, null, 1), JSON.stringify({ ...lines[2], id: 'a1' })];
  writeFileSync(path, [...lines.map((l) => JSON.stringify(l)), ...tail].join('\r\n') + '\r\n');
  return { path, blobs };
}

test('context --blobs, doctor --blobs: images resolved from the store and the blob diagnostics (missing, malformed, damaged) printed and listed as the eager load gives them', async () => {
  const { path, blobs } = sessionWithBlobRefs(tmp());
  await assertParity(path, ['a1', 'a2', 'a3', 'a4'], ['--blobs', blobs]);
  const lazy = await runWith(false, contextCommand, [path, '--leaf', 'a3', '--blobs', blobs]);
  assert.match(lazy.err, /missing-blob/);
  assert.match(lazy.err, /bad-blob/);
  assert.match(lazy.err, /invalid-blob-ref/);
  assert.match(lazy.out, /"data":"iVBORw0KGgoAAAANSUhEUg=="/);
});

test('context, tree: a file rewritten in place while its bodies are read (after the index) stops with FileChangedError; nothing is read from the wrong offsets', async () => {
  const dir = tmp();
  const path = join(dir, 'gen.jsonl');
  generateSession(path, 3000, 9);
  const original = readFileSync(path);
  // Same size, different bytes where the bodies are: what a rewrite by another writer looks like.
  const rewritten = Buffer.from(original.toString('latin1').replaceAll('e', 'E'), 'latin1');
  assert.equal(rewritten.length, original.length);
  assert.notDeepEqual(rewritten, original);
  for (const [cmd, argv] of [
    [contextCommand, [path]],
    [treeCommand, [path]],
  ] as const) {
    writeFileSync(path, original);
    let rewrote = false;
    const io: Io = {
      out: () => {
        if (rewrote) return;
        rewrote = true;
        writeFileSync(path, rewritten);
      },
      err: () => {},
    };
    await assert.rejects(cmd([...argv], io), (e: Error) => e.name === 'FileChangedError', `${argv.join(' ')}`);
    assert.ok(rewrote);
  }
});

test('context: the service tier, active context and MCP tool selection (spec Part B §22) print lazily as eagerly, in the same key order', async () => {
  const t = '2026-06-01T10:00:00.000Z';
  const lines = [
    { type: 'session', version: 3, id: 's', timestamp: t, cwd: '/w' },
    { type: 'message', id: 'a', parentId: null, timestamp: t, message: { role: 'user', content: 'hi' } },
    { type: 'service_tier_change', id: 'b', parentId: 'a', timestamp: t, serviceTier: 'priority' },
    { type: 'context_change', id: 'c', parentId: 'b', timestamp: t, contextName: 'prod', tenant: 'acme' },
    { type: 'mcp_tool_selection', id: 'd', parentId: 'c', timestamp: t, selectedToolNames: ['gh.search'] },
    { type: 'message', id: 'e', parentId: 'd', timestamp: t, message: { role: 'user', content: 'go' } },
  ];
  const path = join(tmp(), 's.jsonl');
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const lazy = await runWith(false, contextCommand, [path]);
  const ctx = JSON.parse(lazy.out) as Record<string, unknown>;
  assert.equal(ctx.serviceTier, 'priority');
  assert.equal(ctx.activeContextName, 'prod');
  assert.deepEqual(ctx.selectedMCPToolNames, ['gh.search']);
  await assertContextParity(path, ['a', 'b', 'c', 'd', 'e']);
});
