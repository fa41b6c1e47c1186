// Byte-for-byte GOLDEN outputs of the CLI's read-only commands, on the BUILT binary (`npm run
// test:cli` builds dist/cli.js first). They were captured from the code as it was before the CLI's
// commands were re-routed through one session engine, so that refactor (and any later one) can
// prove it changed no output: exit code, stdout and stderr of every command on every input.
//
//   compare (default):  node scripts/with-temp-dir.mjs node --import tsx --test test/cli/golden.test.ts
//   re-capture:         UPDATE_GOLDEN=1 npm run test:cli      (or the line above with UPDATE_GOLDEN=1)
//
// Re-capture only when a change of output is intended, and read the diff of test/cli/golden/.
//
// Inputs (each with a stable name): every session file under test/fixtures/ (dsh, real-v3,
// upstream, upstream-full), the samples under samples/sessions/, the demo world
// (samples/demo/world.mjs, built with a fixed `now`: its v1 and damaged sessions included), and
// synthetic shapes the fixtures lack, written literally (or by the test helpers from literal
// values: no random ids, no current times) into a temp folder. test/cli/golden/_inputs.txt pins
// the bytes of every input, so a failure says whether an input or an output changed.
//
// Commands: xcsh files: context, context --leaf <the first leaf in file order that is not the
// default; in a linear session the middle entry> --pretty, context --leaf null, entries, tree,
// tree --json, doctor, doctor --json, export --format md, export --format html (and context and
// doctor --json with --blobs <the demo's blob store> for files that reference blobs). dsh logs:
// context, context --at <the middle event's seq> --pretty, events, tree, tree --json, doctor,
// doctor --json, export --format md|html; a SQLite store: events without --session (the
// listing, exit 2), then all of those with --session <id> for each of its sessions. The leaf and
// the seq are picked from the output of entries / events, and each golden records its command
// line. No command that writes is run (migrate, relabel, title, fork, export -o).
//
// Goldens: test/cli/golden/<input>.<command-slug>.txt, one per input × command: the command line,
// the exit code, stdout, stderr. An output of at most 64 KiB is stored verbatim; a bigger one as
// its sha256 and byte length, the sha256 of each of its blocks (at most ~128 blocks of 4 KiB or
// more: they tell where a change starts) and its first 40 lines (each cut at 1,000 characters).
// On a mismatch the test prints the first differing line and column of both (past the first 40
// lines of a hashed output: the lines of the first differing block, as printed now). A golden
// whose input × command is no longer run fails the test too (UPDATE_GOLDEN=1 removes it).
//
// What is normalised, because it depends on the run and not on the code (in the stored golden
// and in what is compared): the temp folder's path (it holds the synthetic inputs, the demo world
// and the fake HOME; a new random folder each run) becomes `<tmp>`, and the `"exportedAt"` time
// that `export --format html` embeds (the moment of the export) becomes `<exportedAt>`, and the
// file's mtime it embeds (`"modified"` in its summary: for a repository file, the moment of the
// checkout) becomes `<mtime>`. The webview's own code and styles that the HTML export inlines
// (dist/webview/main.js, exportHost.js, main.css) become `<webview main.js>`, `<webview
// exportHost.js>`, `<webview main.css>`, and the two script hashes in its CSP `<sha256>`: they
// change with every change to the editor's page, which is not what this test holds (the data
// around them, the CSP and every other byte of the page are). Nothing else: every other byte is compared. Paths do not otherwise vary: every command runs with its
// file given relative to its cwd (the repository for repository files, the temp folder for the
// others), so the clone's location never shows; only `--blobs` is an absolute (temp) path. The
// synthetic inputs get a fixed mtime. The CLI runs with a clean environment (HOME,
// XDG_CACHE_HOME, DSH_HOME and TMPDIR in the temp folder, TZ=UTC, LC_ALL=C.UTF-8): nothing
// outside is read or written, and the machine's zone or locale cannot change a byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GOLDEN_FIXTURE_FOLDERS, REPO_ROOT, fixtureFiles } from '../helpers/fixtures';
import { dshFixtureText, storeSessionOf, writeDshStore, zstdLogOf } from '../helpers/dshBuild';
import { deepLine, sessionOf, type Shape } from '../helpers/damage';
import { renderFile, type GeneratedFile } from '../helpers/generatedV3';
import { migratedCopy } from '../helpers/migrated';
import { assertCliBuilt, runCliAsync, type CliRun } from '../helpers/runCli';

const GOLDEN_DIR = join(REPO_ROOT, 'test', 'cli', 'golden');
const MANIFEST = '_inputs.txt';
const UPDATE = process.env.UPDATE_GOLDEN === '1';
/** Outputs above this many bytes are stored as hashes (plus a preview). */
const VERBATIM_MAX = 64 * 1024;
const PREVIEW_LINES = 40;
const PREVIEW_CUT = 1000;
/** The demo world's clock (as test/unit/demoWorld.test.ts): its sessions are laid out back from it. */
const DEMO_NOW = Date.parse('2026-03-10T12:00:00.000Z');
/** mtime of every synthetic input: fixed, so no output can show the time of the run. */
const MTIME = new Date('2026-01-05T00:00:00.000Z');

// ---------------------------------------------------------------- inputs

type Kind = 'xcsh' | 'dsh' | 'store';
interface Input {
  /** Stable name: the golden files' prefix. */
  name: string;
  kind: Kind;
  /** The CLI's cwd and the file argument, relative to it. */
  cwd: string;
  arg: string;
  abs: string;
  /** Sessions of a dsh SQLite store. */
  sessions?: string[];
  /** For the manifest when the file's bytes are made by a tool (zstd, SQLite) whose build may differ: the text it was made from. */
  source?: string;
}

const j = (o: unknown): string => JSON.stringify(o);
const T0 = Date.parse('2026-01-02T03:04:05.000Z');
const iso = (s: number): string => new Date(T0 + s * 1000).toISOString();
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0.00003, output: 0.000075, cacheRead: 0, cacheWrite: 0, total: 0.000105 } };

type Rec = Record<string, unknown>;
function userEntry(id: string | undefined, parentId: string | null | undefined, text: string, s: number): Rec {
  return { type: 'message', ...(id !== undefined ? { id } : {}), ...(parentId !== undefined ? { parentId } : {}), timestamp: iso(s), message: { role: 'user', content: [{ type: 'text', text }], timestamp: T0 + s * 1000 } };
}
function assistantEntry(id: string | undefined, parentId: string | null | undefined, text: string, s: number): Rec {
  return {
    type: 'message',
    ...(id !== undefined ? { id } : {}),
    ...(parentId !== undefined ? { parentId } : {}),
    timestamp: iso(s),
    message: { role: 'assistant', content: [{ type: 'text', text }], provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages', usage, stopReason: 'stop', timestamp: T0 + s * 1000 },
  };
}
const header = (version: unknown, extra: Rec = {}): Rec => ({ type: 'session', ...(version !== undefined ? { version } : {}), id: 'golden-session-0001', timestamp: iso(0), cwd: '/golden/project', ...extra });

/** A small v3 conversation with a branch and a label: leaves e0000004 and the label (the default leaf). */
function chat(): Rec[] {
  return [
    userEntry('e0000001', null, 'Hello. Summarise README.md, please.', 1),
    assistantEntry('e0000002', 'e0000001', 'It describes a CLI that reads session files.', 2),
    userEntry('e0000003', 'e0000002', 'Try the short version.', 3),
    assistantEntry('e0000004', 'e0000003', 'A CLI for session files.', 4),
    userEntry('e0000005', 'e0000002', 'No: try a bulleted list instead.', 5),
    assistantEntry('e0000006', 'e0000005', '- reads sessions\n- prints JSON', 6),
    { type: 'label', id: 'e0000007', parentId: 'e0000006', timestamp: iso(7), targetId: 'e0000003', label: 'first try' },
  ];
}
const text = (recs: Array<Rec | string>, eol = '\n'): string => recs.map((r) => (typeof r === 'string' ? r : j(r))).join(eol) + eol;

/** A hand-made damage.ts shape (its expectations are not used here). */
const shape = (kind: string, ...lines: string[]): Shape => ({ kind, lines, records: () => [] });

/** Literal property-test files (generatedV3.ts renders them): every damage the lazy reader tolerates. */
const GENERATED: Record<string, GeneratedFile> = {
  'generated-title-bom-torn': {
    crlf: false,
    bom: true,
    title: true,
    tornTail: true,
    typeless: true,
    entries: [
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'user', content: 'hello world' } }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'read the file', thinkingSignature: 'sig' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: '/p/c1' } }], provider: 'p', model: 'm1', stopReason: 'toolUse', usage: { input: 3, output: 5, cost: { total: 0.01 } } } }, shape: 'glued' },
      { dup: false, ref: 0, parent: 'prev', ts: 1767225600000, body: { type: 'message', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', isError: false, content: [{ type: 'text', text: 'Ünïcödé ✓' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] } }, shape: 'pretty' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'label', targetId: '@ref', label: 'keep' }, shape: 'plain' },
      { dup: false, ref: 1, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'compaction', summary: 'so far', tokensBefore: 1234, firstKeptEntryId: '@ref', preserveData: { openaiRemoteCompaction: { provider: 'openai', replacementHistory: [{ a: 1 }] } } }, shape: 'pretty-glued' },
      { dup: false, ref: 1, parent: '@ref', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'user', content: 'fix tests\nand more' } }, shape: 'junk-after' },
      { dup: false, ref: 0, parent: 'prev', ts: null, body: { type: 'custom_message', customType: 'note', content: [{ type: 'text', text: 'x'.repeat(300) }], display: false, details: { d: 1 } }, shape: 'text-after' },
      { dup: false, ref: 0, parent: null, ts: '2026-01-01T00:00:00.000Z', body: { type: 'branch_summary', summary: 'went elsewhere', fromId: 'b0000000' }, shape: 'bom-before' },
      { dup: false, ref: 0, parent: 'gone', ts: true, body: { type: 'thinking_level_change', thinkingLevel: 'high' }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'model_change', model: 'p/smol-model', role: 'smol' }, shape: 'plain' },
      { dup: true, ref: 2, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'bashExecution', command: 'ls', output: 'a b', exitCode: 1 } }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'mode_change', mode: 'plan', data: { step: 1 } }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'ttsr_injection', injectedRules: ['r1', 'r2'] }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'session_info', name: 'named' }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'assistant', content: [], provider: 'openai', model: 'o', stopReason: 'stop', providerPayload: { type: 'openaiResponsesHistory', items: [] } } }, shape: 'plain' },
    ],
  },
  'generated-crlf-branches': {
    crlf: true,
    bom: false,
    title: false,
    tornTail: false,
    typeless: false,
    entries: [
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'model_change', model: 'p/default-model', role: 'default' }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'user', content: [{ type: 'text', text: '/mode plan' }] } }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'read the file' }, { type: 'toolCall', id: 'c2', name: 'read', arguments: { path: '/p/c2' } }], provider: 'p', model: 'm2', stopReason: 'toolUse', usage: { input: 3, output: 5, cost: { total: 0.01 } } } }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'toolResult', toolCallId: 'c2', toolName: 'read', isError: true, content: 'fix tests\nand more' } }, shape: 'pretty' },
      { dup: false, ref: 1, parent: '@ref', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'assistant', content: 'hello world', provider: 'p', model: 'm1', stopReason: 'error', usage: { input: 3, output: 5, cost: { total: 0.01 } } } }, shape: 'plain' },
      { dup: false, ref: 2, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'compaction', summary: 'so far', tokensBefore: 1234, firstKeptEntryId: '@ref' }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'message', message: { role: 'user', content: '  ' } }, shape: 'glued' },
      { dup: false, ref: 3, parent: '@ref', ts: '2026-01-01T00:00:00.000Z', body: { type: 'label', targetId: '@ref' }, shape: 'plain' },
      { dup: false, ref: 2, parent: '@ref', ts: '2026-01-01T00:00:00.000Z', body: { type: 'thinking_level_change', thinkingLevel: true }, shape: 'plain' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'mode_change', data: { step: 2 } }, shape: 'pretty-glued' },
      { dup: false, ref: 0, parent: 'prev', ts: '2026-01-01T00:00:00.000Z', body: { type: 'custom_message', customType: 'note', content: 'Ünïcödé ✓', display: false, details: { d: 1 } }, shape: 'plain' },
    ],
  },
};

/** The synthetic xcsh inputs: name → file bytes. */
function syntheticXcsh(): Record<string, string | Buffer> {
  const c = chat();
  const noIds = c.filter((e) => e.type === 'message').map((e) => {
    const { id: _id, parentId: _p, ...rest } = e;
    return rest;
  });
  const v1Entries: Rec[] = [
    userEntry(undefined, undefined, 'Set up the project.', 1),
    assistantEntry(undefined, undefined, 'Done: package.json and tsconfig.json.', 2),
    { type: 'thinking_level_change', timestamp: iso(3), thinkingLevel: 'high' },
    { type: 'model_change', timestamp: iso(4), provider: 'anthropic', modelId: 'claude-opus-4-5' },
    userEntry(undefined, undefined, 'Add a test.', 5),
    assistantEntry(undefined, undefined, 'Added test/a.test.ts.', 6),
    { type: 'compaction', timestamp: iso(7), summary: 'Set up the project and added a test.', firstKeptEntryIndex: 4, tokensBefore: 5000 },
    userEntry(undefined, undefined, 'Now run it.', 8),
    assistantEntry(undefined, undefined, 'It passes.', 9),
  ];
  const torn = '{"type":"message","id":"e0000008","parentId":"e0000007","timestamp":"2026-01-02T03:04:13.000Z","message":{"role":"user","content":[{"type":"te';
  const glued = sessionOf(
    [j(header(3))],
    [
      shape('record', j(c[0])),
      shape('glued', j(c[1]) + j(c[2]) + ' ' + j(c[3])),
      shape('glued+torn', j(c[4]) + '{"type":"message","id":"torn0001","par'),
      // ends in ',' : the record after it could be a value inside the torn one (damage.ts): not read
      shape('torn+complete (ambiguous)', '{"type":"message","id":"torn0002","parentId":"e0000005",' + j(c[5])),
      shape('torn+complete', '{"type":"message","id":"torn0003"' + j(c[6])),
    ],
    '\n',
    true,
  );
  const junk = sessionOf(
    [j(header(3))],
    [shape('record', j(c[0])), shape('junk', 'not json', '', '   ', '[1,2]', '"s"', 'null', '{', 'tru'), shape('record', j(c[1])), shape('junk', '\t', '3'), shape('record', j(c[2]))],
    '\n',
    false,
  );
  const deep = sessionOf([j(header(3))], [shape('record', j(c[0])), deepLine(3, true), deepLine(1000, true), deepLine(1001, false), deepLine(1002, true), shape('record', j(c[1]))], '\n', true);
  const generated: Record<string, string> = {};
  for (const [name, f] of Object.entries(GENERATED)) generated[`${name}.jsonl`] = renderFile(f);
  return {
    'v3-branched.jsonl': text([header(3, { title: 'A branched session' }), ...c]),
    'headerless.jsonl': text(c),
    'header-only.jsonl': text([header(3)]),
    'v3-no-ids.jsonl': text([header(3), ...noIds]),
    'v2-missing-ids-hookmessage.jsonl': text([
      header(2),
      userEntry('e0000001', null, 'Run the pre-commit hook.', 1),
      { type: 'message', id: 'e0000002', parentId: 'e0000001', timestamp: iso(2), message: { role: 'hookMessage', customType: 'pre-commit', content: 'hook: 2 files formatted', display: true, timestamp: T0 + 2000 } },
      userEntry(undefined, 'e0000002', 'An entry without an id.', 3),
      assistantEntry(undefined, undefined, 'Another one, without id or parent.', 4),
      { type: 'message', id: 7, parentId: 'e0000002', timestamp: iso(5), message: { role: 'user', content: 'an entry whose id is a number', timestamp: T0 + 5000 } },
      assistantEntry('e0000006', 7 as unknown as string, 'A reply whose parent is that number.', 6),
    ]),
    'v1.jsonl': text([{ type: 'session', id: 'golden-v1-0001', timestamp: iso(0), cwd: '/golden/v1', provider: 'anthropic', modelId: 'claude-sonnet-4-5', thinkingLevel: 'off' }, ...v1Entries]),
    'version-4.jsonl': text([header(4), ...c]),
    'version-abc.jsonl': text([header('abc'), ...c]),
    'version-string-3.jsonl': text([header('3'), ...c]),
    'glued.jsonl': glued.bytes,
    'torn-last-line.jsonl': text([header(3), ...c]) + torn,
    'pretty-printed-record.jsonl': [j(header(3)), j(c[0]), JSON.stringify(c[1], null, 2), ...c.slice(2).map(j)].join('\n') + '\n',
    'title-line.jsonl': text([{ type: 'title', title: 'Golden title line'.padEnd(40) }, header(3), ...c]),
    'crlf-bom.jsonl': '\ufeff' + text([header(3), ...c], '\r\n'),
    'junk-lines.jsonl': junk.bytes,
    'deep-nesting.jsonl': deep.bytes,
    'empty.jsonl': '',
    ...generated,
    'not-a-session.json': '[1,2,3]\n{"a":1}\n"text"\n',
    'binary.png': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 0), Buffer.from('IEND')]),
  };
}

/** Everything the test reads or runs in: the synthetic inputs, the demo world, the fake home. */
interface World {
  work: string;
  home: string;
  blobs: string;
  inputs: Input[];
}

const posix = (p: string): string => p.split(sep).join('/');
/** A golden-file-safe name from a relative path. */
const safe = (p: string): string => posix(p).replaceAll('/', '__').replace(/[^A-Za-z0-9._-]/g, '_');

async function buildWorld(): Promise<World> {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'sl-golden-')));
  const home = join(work, '.home');
  mkdirSync(join(home, '.cache'), { recursive: true });
  mkdirSync(join(home, 'tmp'));
  const inputs: Input[] = [];
  const repoFile = (abs: string, kind: Kind, group: string): void => {
    const rel = posix(relative(REPO_ROOT, abs));
    inputs.push({ name: `${group}__${safe(abs.split(sep).pop()!)}`, kind, cwd: REPO_ROOT, arg: rel, abs });
  };

  // 1. the real fixtures
  for (const folder of GOLDEN_FIXTURE_FOLDERS) for (const f of fixtureFiles(folder)) repoFile(f, folder === 'dsh' ? 'dsh' : 'xcsh', folder);

  // 2. the hand-written samples (samples/generate-samples.mjs): the demo session, its subagent, the XSS one
  const samples = join(REPO_ROOT, 'samples', 'sessions');
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.jsonl') ? [join(d, e.name)] : []));
  for (const f of walk(samples).sort()) inputs.push({ name: `samples__${safe(relative(samples, f))}`, kind: 'xcsh', cwd: REPO_ROOT, arg: posix(relative(REPO_ROOT, f)), abs: f });

  // 3. the demo world, with a fixed clock (v1 and damaged sessions included)
  type BuildDemoHome = (dir: string, opts?: { now?: number }) => { sessionsDir: string; blobsDir: string; projects: Record<string, { file: string }[]> };
  const { buildDemoHome } = (await import(pathToFileURL(join(REPO_ROOT, 'samples', 'demo', 'world.mjs')).href)) as { buildDemoHome: BuildDemoHome };
  const demo = buildDemoHome(join(work, 'demo'), { now: DEMO_NOW });
  const demoFiles = Object.values(demo.projects).flat().map((p) => p.file).sort();
  for (const f of demoFiles) {
    utimesSync(f, MTIME, MTIME);
    inputs.push({ name: `demo__${safe(relative(demo.sessionsDir, f))}`, kind: 'xcsh', cwd: work, arg: posix(relative(work, f)), abs: f });
  }

  // 4. synthetic xcsh shapes
  const syn = join(work, 'synthetic');
  mkdirSync(syn);
  /** Registers synthetic/<name> (writing `bytes` there, unless null: the file is already written). */
  const put = (name: string, bytes: string | Buffer | null, kind: Kind, extra: Partial<Input> = {}): void => {
    const abs = join(syn, name);
    if (bytes !== null) writeFileSync(abs, bytes);
    utimesSync(abs, MTIME, MTIME);
    inputs.push({ name: `synthetic__${safe(name)}`, kind, cwd: work, arg: `synthetic/${name}`, abs, ...extra });
  };
  for (const [name, bytes] of Object.entries(syntheticXcsh())) put(name, bytes, 'xcsh');
  // a v1 fixture made v3 the way `session-loom migrate` does (its ids then on disk)
  const migrated = await migratedCopy(join(REPO_ROOT, 'test', 'fixtures', 'upstream', 'pi-session.v1.glued-records.jsonl'), syn);
  put(migrated.split(sep).pop()!.replace(/\.jsonl$/, '.migrated.jsonl'), readFileSync(migrated), 'xcsh');
  rmSync(migrated);

  // 5. synthetic dsh shapes: zstd logs (by extension .jsonl.zstd as dsh writes them, and .jsonl.zst:
  // found by content), a SQLite store of two sessions, a torn and an interrupted raw log
  const recovery = dshFixtureText('dsh-compaction-recovery.session.jsonl');
  const packed = dshFixtureText('dsh-packed-chunks.session.jsonl');
  put('dsh-compaction-recovery.jsonl.zstd', zstdLogOf(recovery, 3), 'dsh', { source: recovery });
  put('dsh-packed-chunks.jsonl.zst', zstdLogOf(packed), 'dsh', { source: packed });
  const storeSessions = [storeSessionOf(dshFixtureText('dsh-cancel-aborted.session.jsonl'), 'one'), storeSessionOf(dshFixtureText('dsh-subagent-child.session.jsonl'), 'two')];
  await writeDshStore(join(syn, 'dsh-store.db'), storeSessions);
  put('dsh-store.db', null, 'store', { sessions: ['one', 'two'], source: j(storeSessions) });
  put('dsh-torn.jsonl', packed + '{"type":"turn/start","seq":124,"ti', 'dsh');
  put('dsh-interrupted.jsonl', dshFixtureText('dsh-interrupted-tool-outcome-unknown.session.jsonl').split('\n').slice(0, 6).join('\n') + '\n', 'dsh');

  return { work, home, blobs: demo.blobsDir, inputs };
}

// ---------------------------------------------------------------- running the CLI

type Run = CliRun<Buffer>;

function cliEnv(w: World): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: w.home,
    USERPROFILE: w.home,
    XDG_CACHE_HOME: join(w.home, '.cache'),
    DSH_HOME: join(w.home, '.dsh'),
    TMPDIR: join(w.home, 'tmp'),
    TEMP: join(w.home, 'tmp'),
    TMP: join(w.home, 'tmp'),
    TZ: 'UTC',
    LC_ALL: 'C.UTF-8',
  };
  if (process.env.SYSTEMROOT !== undefined) env.SYSTEMROOT = process.env.SYSTEMROOT;
  return env;
}

async function runCli(w: World, cwd: string, args: string[]): Promise<Run> {
  const r = await runCliAsync(args, { cwd, env: cliEnv(w), timeout: 180_000, killSignal: 'SIGKILL', encoding: 'buffer' });
  if (r.status === null) throw new Error(`session-loom ${args.join(' ')}: killed by ${r.signal} (a hang?)`);
  return r;
}

async function pool<T>(items: readonly T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

// ---------------------------------------------------------------- commands

interface Command {
  input: Input;
  /** Stable, golden-file-safe: the command and its options, with symbolic values (`--leaf-other`). */
  slug: string;
  args: string[];
}

const cmd = (input: Input, slug: string, ...rest: string[]): Command => {
  const [name, ...opts] = rest;
  return { input, slug, args: [name!, input.arg, ...opts] };
};

/** The probe run first for each input: its output decides the leaf or seq of the other commands. */
function probe(input: Input, session?: string): Command {
  const s = session !== undefined ? ['--session', session] : [];
  const slugS = session !== undefined ? `--session-${session}` : '';
  return input.kind === 'xcsh' ? cmd(input, 'entries', 'entries') : cmd(input, `events${slugS}`, 'events', ...s);
}

/**
 * The leaf for `context --leaf` (from `entries`): the first leaf in file order that is not the
 * default leaf; in a session without one (a linear chain) the entry in the middle of file order
 * instead, so that `--leaf` is run on every session with entries. Undefined when there is none.
 */
function pickLeaf(entriesJson: Buffer): { slug: string; id: string } | undefined {
  let parsed: { entries?: Array<{ id?: unknown; parentId?: unknown }>; leafId?: unknown };
  try {
    parsed = JSON.parse(entriesJson.toString('utf8')) as typeof parsed;
  } catch {
    return undefined;
  }
  const entries = (parsed.entries ?? []).filter((e): e is { id: string; parentId?: unknown } => typeof e.id === 'string');
  const parents = new Set(entries.map((e) => e.parentId));
  const other = entries.find((e) => !parents.has(e.id) && e.id !== parsed.leafId);
  if (other) return { slug: 'other', id: other.id };
  const middle = entries[Math.floor((entries.length - 1) / 2)];
  return middle && middle.id !== parsed.leafId ? { slug: 'middle', id: middle.id } : undefined;
}

/** The seq of the middle event (from `events`), or undefined. */
function middleSeq(eventsJson: Buffer): string | undefined {
  try {
    const events = (JSON.parse(eventsJson.toString('utf8')) as { events?: Array<{ seq?: unknown }> }).events ?? [];
    const seq = events[Math.floor((events.length - 1) / 2)]?.seq;
    return typeof seq === 'number' ? String(seq) : undefined;
  } catch {
    return undefined;
  }
}

function xcshCommands(input: Input, probeOut: Run, blobs: string): Command[] {
  const leaf = probeOut.code === 0 ? pickLeaf(probeOut.stdout) : undefined;
  const list = [
    cmd(input, 'context', 'context'),
    ...(leaf !== undefined ? [cmd(input, `context--leaf-${leaf.slug}--pretty`, 'context', '--leaf', leaf.id, '--pretty')] : []),
    cmd(input, 'context--leaf-null', 'context', '--leaf', 'null'),
    cmd(input, 'tree', 'tree'),
    cmd(input, 'tree--json', 'tree', '--json'),
    cmd(input, 'doctor', 'doctor'),
    cmd(input, 'doctor--json', 'doctor', '--json'),
    cmd(input, 'export--format-md', 'export', '--format', 'md'),
    cmd(input, 'export--format-html', 'export', '--format', 'html'),
  ];
  if (readFileSync(input.abs).includes('blob:sha256:')) {
    list.push(cmd(input, 'context--blobs', 'context', '--blobs', blobs), cmd(input, 'doctor--json--blobs', 'doctor', '--json', '--blobs', blobs));
  }
  return list;
}

function dshCommands(input: Input, probeOut: Run, session?: string): Command[] {
  const s = session !== undefined ? ['--session', session] : [];
  const slugS = session !== undefined ? `--session-${session}` : '';
  const at = probeOut.code === 0 ? middleSeq(probeOut.stdout) : undefined;
  return [
    cmd(input, `context${slugS}`, 'context', ...s),
    ...(at !== undefined ? [cmd(input, `context--at-middle--pretty${slugS}`, 'context', '--at', at, '--pretty', ...s)] : []),
    cmd(input, `tree${slugS}`, 'tree', ...s),
    cmd(input, `tree--json${slugS}`, 'tree', '--json', ...s),
    cmd(input, `doctor${slugS}`, 'doctor', ...s),
    cmd(input, `doctor--json${slugS}`, 'doctor', '--json', ...s),
    cmd(input, `export--format-md${slugS}`, 'export', '--format', 'md', ...s),
    cmd(input, `export--format-html${slugS}`, 'export', '--format', 'html', ...s),
  ];
}

// ---------------------------------------------------------------- golden files

/**
 * The run-dependent text of an output (see the header comment), replaced byte-exactly on the raw
 * bytes (latin1 maps each byte to one character and back). The temp folder is realpath'ed when
 * made, so its one spelling is the one the CLI sees. The repository's path is NOT replaced: its
 * files are given relative to it, so it never shows, and a short clone path (/app, /src) would
 * also match session text.
 */
function normalise(w: World, bytes: Buffer): Buffer {
  let s = bytes.toString('latin1');
  s = s.split(Buffer.from(w.work, 'utf8').toString('latin1')).join('<tmp>');
  const t = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
  s = s.replace(new RegExp(`"exportedAt":"${t}"`, 'g'), '"exportedAt":"<exportedAt>"');
  // the summary's file mtime (its neighbour "sizeBytes" keeps session text that has a "modified" key out of it)
  s = s.replace(new RegExp(`"modified":"${t}","sizeBytes":`, 'g'), '"modified":"<mtime>","sizeBytes":');
  // the HTML export's inlined webview code and styles (see the header comment)
  if (s.startsWith('<!DOCTYPE html>')) {
    s = s.replace(/script-src 'sha256-[A-Za-z0-9+/=]+' 'sha256-[A-Za-z0-9+/=]+'/, "script-src '<sha256>' '<sha256>'");
    s = s.replace(/<script type="module">[\s\S]*<\/script>\n<\/body>/, '<script type="module"><webview main.js></script>\n</body>');
    s = s.replace(/\n<script>[\s\S]*?<\/script>\n<script type="module">/, '\n<script><webview exportHost.js></script>\n<script type="module">');
    s = s.replace(/(<style>[\s\S]*?<\/style>\n)<style>[\s\S]*?<\/style>\n<script type="application\/json" id="session-loom-export">/, '$1<style><webview main.css></style>\n<script type="application/json" id="session-loom-export">');
  }
  return Buffer.from(s, 'latin1');
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const countLines = (b: Buffer): number => {
  let n = 0;
  for (const c of b) if (c === 0x0a) n++;
  return n;
};

/** The first PREVIEW_LINES lines, each cut at PREVIEW_CUT characters (with a note of the rest). */
function preview(b: Buffer): string[] {
  const lines: string[] = [];
  let at = 0;
  while (lines.length < PREVIEW_LINES && at < b.length) {
    const nl = b.indexOf(0x0a, at);
    const end = nl === -1 ? b.length : nl;
    const line = b.subarray(at, end).toString('utf8');
    lines.push(line.length > PREVIEW_CUT ? `${line.slice(0, PREVIEW_CUT)}… [cut: ${line.length - PREVIEW_CUT} more characters]` : line);
    at = end + 1;
  }
  return lines;
}

/** Block size for a hashed output: at most ~128 blocks, each a multiple of 4 KiB. */
const blockSize = (size: number): number => Math.max(4096, Math.ceil(size / 128 / 4096) * 4096);

/** The sha256 (first 12 hex) of each block: where a change starts, to a few KiB, in outputs stored as a hash. */
function blocks(b: Buffer, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < b.length; at += size) out.push(sha256(b.subarray(at, at + size)).slice(0, 12));
  return out;
}

function section(label: 'stdout' | 'stderr', b: Buffer): Buffer {
  if (b.length <= VERBATIM_MAX) return Buffer.concat([Buffer.from(`--- ${label}: ${b.length} bytes, verbatim ---\n`), b, Buffer.from('\n')]);
  const p = Buffer.from(preview(b).join('\n') + '\n', 'utf8');
  return Buffer.from(
    `--- ${label}: ${b.length} bytes, sha256 ${sha256(b)}, ${countLines(b)} line ends; over ${VERBATIM_MAX} bytes: stored as its hash ---\n` +
      `blocks of ${blockSize(b.length)} bytes (sha256, first 12 hex): ${blocks(b, blockSize(b.length)).join(' ')}\n` +
      `first ${PREVIEW_LINES} lines, each cut at ${PREVIEW_CUT} characters: ${p.length} bytes\n` +
      p.toString('utf8'),
    'utf8',
  );
}

const shellWord = (a: string): string => (/^[A-Za-z0-9_./:=@%+-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);

function serialise(w: World, c: Command, r: Run): Buffer {
  const head =
    `session-loom CLI golden (test/cli/golden.test.ts compares it; UPDATE_GOLDEN=1 rewrites it)\n` +
    `input: ${c.input.name}\n` +
    `cwd: ${c.input.cwd === REPO_ROOT ? '<repo>' : '<tmp>'}\n` +
    `command: ${normalise(w, Buffer.from(['session-loom', ...c.args].map(shellWord).join(' '))).toString('utf8')}\n` +
    `exit: ${r.code}\n`;
  return Buffer.concat([Buffer.from(head), section('stdout', normalise(w, r.stdout)), section('stderr', normalise(w, r.stderr)), Buffer.from('--- end ---\n')]);
}

type Part = { kind: 'verbatim'; bytes: Buffer } | { kind: 'hashed'; size: number; blockSize: number; blocks: string[]; preview: string[] };
interface Golden {
  command: string;
  exit: string;
  stdout: Part;
  stderr: Part;
}

/** Reads a golden file back (for the mismatch report only: the comparison itself is of whole files). */
function parseGolden(g: Buffer): Golden | null {
  let at = 0;
  const line = (): string => {
    const nl = g.indexOf(0x0a, at);
    const l = g.subarray(at, nl === -1 ? g.length : nl).toString('utf8');
    at = nl === -1 ? g.length : nl + 1;
    return l;
  };
  const fields: Record<string, string> = {};
  for (let i = 0; i < 5; i++) {
    const l = line();
    const m = /^(\w+): (.*)$/.exec(l);
    if (m) fields[m[1]!] = m[2]!;
  }
  const part = (): Part | null => {
    const h = line();
    const v = /^--- \w+: (\d+) bytes, verbatim ---$/.exec(h);
    if (v) {
      const n = Number(v[1]);
      const bytes = g.subarray(at, at + n);
      at += n + 1;
      return { kind: 'verbatim', bytes };
    }
    const hm = /^--- \w+: (\d+) bytes, sha256 /.exec(h);
    if (!hm) return null;
    const bm = /^blocks of (\d+) bytes[^:]*: (.*)$/.exec(line());
    const pm = /: (\d+) bytes$/.exec(line());
    if (!bm || !pm) return null;
    const p = g.subarray(at, at + Number(pm[1])).toString('utf8');
    at += Number(pm[1]);
    return { kind: 'hashed', size: Number(hm[1]), blockSize: Number(bm[1]), blocks: bm[2] === '' ? [] : bm[2]!.split(' '), preview: p.replace(/\n$/, '').split('\n') };
  };
  const stdout = part();
  const stderr = part();
  if (!stdout || !stderr) return null;
  return { command: fields.command ?? '', exit: fields.exit ?? '', stdout, stderr };
}

/** A window of a line around column `col`, with control characters made visible. */
function around(line: string | undefined, col: number): string {
  if (line === undefined) return '(no such line: the output ends before it)';
  const from = Math.max(0, col - 60);
  return `${from > 0 ? '…' : ''}${JSON.stringify(line.slice(from, col + 60)).slice(1, -1)}${col + 60 < line.length ? '…' : ''}`;
}

function firstLineDiff(expected: string[], actual: string[], what: string): string {
  for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
    if (expected[i] === actual[i]) continue;
    const e = expected[i] ?? '';
    const a = actual[i] ?? '';
    let col = 0;
    while (col < e.length && col < a.length && e[col] === a[col]) col++;
    return `${what}: first difference at line ${i + 1}, column ${col + 1}:\n      expected: ${around(expected[i], col)}\n      actual:   ${around(actual[i], col)}`;
  }
  return `${what}: the lines are equal but the bytes differ (a line end at the end of the output?)`;
}

function partDiff(what: 'stdout' | 'stderr', expected: Part, actual: Buffer): string | null {
  if (expected.kind === 'verbatim') {
    if (expected.bytes.equals(actual)) return null;
    const d = firstLineDiff(expected.bytes.toString('utf8').split('\n'), actual.toString('utf8').split('\n'), what);
    return `${d}\n      (expected ${expected.bytes.length} bytes, got ${actual.length})`;
  }
  const ab = blocks(actual, expected.blockSize);
  if (expected.size === actual.length && ab.join(' ') === expected.blocks.join(' ')) return null;
  const sizes = `(expected ${expected.size} bytes, got ${actual.length})`;
  const ap = preview(actual);
  if (ap.join('\n') !== expected.preview.join('\n')) return `${firstLineDiff(expected.preview, ap, what)}\n      ${sizes}`;
  let k = 0;
  while (k < ab.length && ab[k] === expected.blocks[k]) k++;
  const from = k * expected.blockSize;
  if (from >= actual.length) return `${what}: equal up to byte ${actual.length}, where the actual output ends; the golden's goes on ${sizes}`;
  const to = Math.min(actual.length, from + expected.blockSize);
  const firstLine = countLines(actual.subarray(0, from)) + 1;
  const lastLine = countLines(actual.subarray(0, to - 1)) + 1;
  const lineStart = actual.lastIndexOf(0x0a, from - 1) + 1;
  const col = actual.subarray(lineStart, from).toString('utf8').length;
  const lines = actual.subarray(lineStart, to).toString('utf8').split('\n');
  const shown =
    lastLine === firstLine
      ? `      actual at byte ${from}: ${around(lines[0], col)}`
      : lines
          .slice(0, 8)
          .map((l, i) => `      actual line ${firstLine + i}: ${JSON.stringify(l.slice(0, 120)).slice(1, -1)}${l.length > 120 ? '…' : ''}`)
          .join('\n') + (lines.length > 8 ? `\n      … (${lastLine - firstLine - 7} more lines in the block)` : '');
  return (
    `${what}: the first ${PREVIEW_LINES} lines are equal; the first difference is within bytes ${from}–${to - 1} ` +
    `(block ${k + 1} of ${expected.blockSize} bytes), lines ${firstLine}–${lastLine} of the actual output; the golden keeps only hashes there:\n${shown}\n      ${sizes}`
  );
}

function mismatchReport(w: World, c: Command, r: Run, file: string, golden: Buffer): string {
  const g = parseGolden(golden);
  const head = `golden mismatch: ${c.input.name} / ${c.slug}\n  golden:  ${posix(relative(REPO_ROOT, file))}\n  command: (cd ${c.input.cwd === REPO_ROOT ? '<repo>' : '<tmp>'} && ${['session-loom', ...c.args].map(shellWord).join(' ')})`;
  if (!g) return `${head}\n  the golden file could not be read back; compare it with what the command prints now`;
  const out: string[] = [head];
  const actualCommand = normalise(w, Buffer.from(['session-loom', ...c.args].map(shellWord).join(' '))).toString('utf8');
  if (g.command !== actualCommand) out.push(`  command line: expected ${g.command}\n                got      ${actualCommand}\n  (the leaf or seq picked from entries/events changed)`);
  if (g.exit !== String(r.code)) out.push(`  exit code: expected ${g.exit}, got ${r.code}`);
  for (const [what, part, actual] of [
    ['stdout', g.stdout, normalise(w, r.stdout)],
    ['stderr', g.stderr, normalise(w, r.stderr)],
  ] as const) {
    const d = partDiff(what, part, actual);
    if (d) out.push(`  ${d}`);
  }
  if (out.length === 1) out.push('  (only the golden file\'s framing differs: re-capture it)');
  out.push('  If this change of output is intended: UPDATE_GOLDEN=1 npm run test:cli, then review git diff test/cli/golden/');
  return out.join('\n');
}

function manifest(inputs: readonly Input[]): string {
  const lines = inputs.map((i) => {
    if (i.source !== undefined) {
      const src = Buffer.from(i.source, 'utf8');
      return `${i.name}\t${i.kind}\tmade by zstd or SQLite from ${src.length} bytes of text, sha256 ${sha256(src)}`;
    }
    const bytes = readFileSync(i.abs);
    return `${i.name}\t${i.kind}\t${bytes.length} bytes, sha256 ${sha256(bytes)}`;
  });
  return `# The golden test's inputs (test/cli/golden.test.ts): name, kind, and the bytes the CLI reads (for a zstd log or a SQLite store: the text it is made from, as the tools' builds may differ).\n${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------- the test

test('golden: the CLI prints byte for byte what it printed when the goldens were captured', { timeout: 30 * 60_000 }, async (t) => {
  assertCliBuilt();
  const w = await buildWorld();
  try {
    const names = new Set(w.inputs.map((i) => i.name));
    assert.equal(names.size, w.inputs.length, 'input names are unique');
    const limit = Math.max(1, availableParallelism());
    const results = new Map<Command, Run>();

    // probes first (entries / events): they pick the leaf or seq of the other commands
    const probes: Command[] = w.inputs.flatMap((i) => (i.kind === 'store' ? [probe(i), ...i.sessions!.map((s) => probe(i, s))] : [probe(i)]));
    await pool(probes, limit, async (c) => void results.set(c, await runCli(w, c.input.cwd, c.args)));
    const rest: Command[] = [];
    for (const p of probes) {
      const r = results.get(p)!;
      const i = p.input;
      if (i.kind === 'xcsh') rest.push(...xcshCommands(i, r, w.blobs));
      else if (i.kind === 'dsh') rest.push(...dshCommands(i, r));
      else if (p.args.includes('--session')) rest.push(...dshCommands(i, r, p.args[p.args.indexOf('--session') + 1]));
    }
    await pool(rest, limit, async (c) => void results.set(c, await runCli(w, c.input.cwd, c.args)));

    const all = [...probes, ...rest];
    const files = new Map<string, Command>();
    for (const c of all) {
      const f = `${c.input.name}.${c.slug}.txt`;
      assert.ok(!files.has(f), `two commands map to ${f}`);
      files.set(f, c);
    }

    if (UPDATE) mkdirSync(GOLDEN_DIR, { recursive: true });
    const manifestText = manifest(w.inputs);
    await t.test('the inputs are the ones the goldens were captured from (_inputs.txt)', () => {
      const p = join(GOLDEN_DIR, MANIFEST);
      if (UPDATE) return writeFileSync(p, manifestText);
      assert.ok(existsSync(p), `${MANIFEST} missing: capture the goldens with UPDATE_GOLDEN=1`);
      const want = readFileSync(p, 'utf8').split('\n');
      const got = manifestText.split('\n');
      const changed = got.filter((l) => !want.includes(l)).map((l) => `  now:  ${l}`);
      const gone = want.filter((l) => !got.includes(l)).map((l) => `  was:  ${l}`);
      assert.ok(changed.length === 0 && gone.length === 0, `inputs differ from those the goldens were captured from (a fixture or a builder changed, or a builder is not deterministic):\n${[...gone, ...changed].join('\n')}`);
    });

    let written = 0;
    for (const [f, c] of files) {
      await t.test(`${c.input.name} · ${c.slug}`, () => {
        const path = join(GOLDEN_DIR, f);
        const r = results.get(c)!;
        const now = serialise(w, c, r);
        if (UPDATE) {
          if (!existsSync(path) || !readFileSync(path).equals(now)) {
            writeFileSync(path, now);
            written++;
          }
          return;
        }
        assert.ok(existsSync(path), `no golden ${posix(relative(REPO_ROOT, path))} for ${c.input.name} / ${c.slug}: a new input or command? capture it with UPDATE_GOLDEN=1`);
        const golden = readFileSync(path);
        if (!golden.equals(now)) assert.fail(mismatchReport(w, c, r, path, golden));
      });
    }

    await t.test('no golden file is left without its input × command', (st) => {
      const stale = readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.txt') && f !== MANIFEST && !files.has(f));
      if (UPDATE) {
        for (const f of stale) unlinkSync(join(GOLDEN_DIR, f));
        st.diagnostic(`UPDATE_GOLDEN: ${written} golden files written, ${stale.length} stale ones removed, ${files.size} in all`);
        return;
      }
      assert.deepEqual(stale, [], 'golden files whose input or command is no longer run (an input was dropped, or a leaf/seq pick no longer applies)');
    });
  } finally {
    rmSync(w.work, { recursive: true, force: true });
  }
});
