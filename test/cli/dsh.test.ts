// The built CLI on deepseek-harness logs (issue 10): events, context, tree, doctor, ls and the
// refusals of every write command, on all five fixtures and their zstd and SQLite forms.
// Expected numbers come from the fixtures' README and the spec (dsh-format.md), not from our code.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';
import { DSH_FIXTURES, dshFixture, dshFixtureText, storeSessionOf, writeDshStore, zstdLogOf } from '../helpers/dshBuild';

let home: string;
let work: string;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-dsh-home-'));
  work = mkdtempSync(join(tmpdir(), 'sl-dsh-work-'));
});

const cli = (...args: string[]) => runCli(args, { env: { ...process.env, HOME: home, USERPROFILE: home }, timeout: 120_000 });

const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
const old = (p: string): void => utimesSync(p, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
let n = 0;

/** The three forms of a fixture: raw, zstd (3 records per frame), and a session of an SQLite store. */
async function forms(name: string): Promise<{ raw: string; zstd: string; db: string }> {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const text = dshFixtureText(name);
  const raw = join(dir, 'session.jsonl');
  copyFileSync(dshFixture(name), raw);
  const zstd = join(dir, 'session.jsonl.zstd');
  writeFileSync(zstd, zstdLogOf(text, 3));
  const db = join(dir, 'store.db');
  await writeDshStore(db, [storeSessionOf(text, 'one')]);
  for (const f of [raw, zstd, db]) old(f);
  return { raw, zstd, db };
}

test('events: the same logical stream from raw, zstd and SQLite for every fixture; dsh-packed-chunks expands to 124 events', async () => {
  for (const name of DSH_FIXTURES) {
    const f = await forms(name);
    const raw = cli('events', f.raw);
    assert.equal(raw.code, 0, `${name}: ${raw.stderr}`);
    const j = raw.json();
    assert.equal(j.format, 'dsh');
    assert.equal(j.closers, 0, `${name} is complete or already repaired`);
    j.events.forEach((e: { seq: number }, i: number) => assert.equal(e.seq, i, `${name}: contiguous seqs from 0`));
    if (name === 'dsh-packed-chunks.session.jsonl') assert.equal(j.events.length, 124);
    assert.deepEqual(cli('events', f.zstd).json().events, j.events, `${name}: zstd`);
    assert.deepEqual(cli('events', f.db, '--session', 'one').json().events, j.events, `${name}: sqlite`);
  }
});

test('a store without --session lists its sessions and exits 2; an xcsh file is pointed at entries, a dsh log at events', async () => {
  const f = await forms('dsh-cancel-aborted.session.jsonl');
  const r = cli('events', f.db);
  assert.equal(r.code, 2);
  assert.deepEqual(r.json().sessions.map((s: { id: string }) => s.id), ['one']);
  assert.match(r.stderr, /--session/);
  const x = cli('events', fixture('real-v3', 'gjc-03-raddit-dashboard-pr.jsonl'));
  assert.equal(x.code, 2);
  assert.match(x.stderr, /entries/);
  const e = cli('entries', f.raw);
  assert.equal(e.code, 2);
  assert.match(e.stderr, /events/);
});

test('context: {format, at, messages, system, tools, model}; --at folds only the events up to that seq', async () => {
  const f = await forms('dsh-compaction-recovery.session.jsonl');
  const end = cli('context', f.raw).json();
  assert.deepEqual(Object.keys(end).sort(), ['at', 'format', 'messages', 'model', 'system', 'tools']);
  assert.equal(end.at, 30);
  assert.equal(end.messages.length, 4, 'the compaction replaced the first prompt');
  assert.deepEqual(end.model, { provider: 'deepseek-official', model: 'deepseek-v4-flash' });
  const early = cli('context', f.raw, '--at', '15').json();
  assert.equal(early.at, 15);
  assert.equal(early.messages[0].source.kind, 'user', 'before the compaction the prompt is sent as typed');
  assert.deepEqual(cli('context', f.zstd, '--at', '15').json(), early);
  assert.deepEqual(cli('context', f.db, '--session', 'one', '--at', '15').json(), early);
  assert.equal(cli('context', f.raw, '--at', '999').code, 1);
  assert.equal(cli('context', f.raw, '--leaf', 'x').code, 2);
});

test('an interrupted log: closers counted apart, last in events, and in the context; the file unchanged', () => {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const p = join(dir, 'session.jsonl');
  writeFileSync(p, dshFixtureText('dsh-interrupted-tool-outcome-unknown.session.jsonl').split('\n').slice(0, 6).join('\n') + '\n');
  old(p);
  const before = sha(p);
  const j = cli('events', p).json();
  assert.equal(j.state, 'interrupted');
  assert.equal(j.closers, 3);
  assert.deepEqual(j.events.slice(-3).map((e: { type: string }) => e.type), ['tool/result', 'step/end', 'turn/end']);
  assert.equal(j.events.at(-3).data.error.code, 'TOOL_OUTCOME_UNKNOWN');
  const ctx = cli('context', p).json();
  assert.equal(ctx.messages.at(-1).content[0].toolCallId, 'unknown-outcome-call');
  assert.equal(sha(p), before);
});

test('tree prints turns → steps → events with chunk runs as one line; doctor exits 1 on a torn log, 0 on a complete one', async () => {
  const f = await forms('dsh-packed-chunks.session.jsonl');
  const t = cli('tree', f.raw);
  assert.equal(t.code, 0, t.stderr);
  const lines = t.stdout.trimEnd().split('\n');
  assert.ok(lines.some((l) => /^t\d+ turn: Turn 1/.test(l)));
  assert.ok(lines.some((l) => /^ {2}s\d+ step: Step 1/.test(l)));
  assert.ok(lines.some((l) => /^ {4}c\d+ chunks: streamed \d+ chunks$/.test(l)));
  assert.ok(!lines.some((l) => / chunk: /.test(l)), 'single chunks are summarised by their run');
  assert.equal(cli('doctor', f.raw).code, 0);
  const torn = join(work, String(n++) + '-torn.jsonl');
  const text = dshFixtureText('dsh-packed-chunks.session.jsonl');
  writeFileSync(torn, text + '{"type":"turn/start","seq":124,"ti');
  old(torn);
  const d = cli('doctor', torn, '--json');
  assert.equal(d.code, 1);
  assert.equal(d.json().state, 'torn');
});

test('ls lists dsh sessions beside xcsh ones with a format field; dsh subagents nest under their parent', () => {
  const root = join(work, String(n++) + '-root');
  const proj = join(root, '--work-p--');
  mkdirSync(join(proj, 'parent-id'), { recursive: true });
  mkdirSync(join(proj, 'child-id'), { recursive: true });
  const header = (id: string, extra = ''): string => `{"type":"session","version":0,"id":"${id}","createdAt":1783600629539,"cwd":"/work/p"${extra},"delegationDepth":${extra ? 1 : 0}}`;
  const body = dshFixtureText('dsh-cancel-aborted.session.jsonl').split('\n').slice(1).join('\n');
  writeFileSync(join(proj, 'parent-id', 'session.jsonl'), `${header('parent-id')}\n${body}`);
  writeFileSync(join(proj, 'child-id', 'session.jsonl.zstd'), zstdLogOf(`${header('child-id', ',"parentSession":"parent-id","origin":"subagent"')}\n${body}`));
  copyFileSync(fixture('real-v3', 'gjc-03-raddit-dashboard-pr.jsonl'), join(proj, 'x.jsonl'));
  const r = cli('ls', '--root', root, '--json');
  assert.equal(r.code, 0, r.stderr);
  const all = r.json().flatMap((g: { sessions: unknown[]; subagents: Record<string, unknown[]> }) => [...g.sessions, ...Object.values(g.subagents).flat()]) as { id: string; format: string; path: string }[];
  assert.deepEqual(all.map((s) => s.format).sort(), ['dsh', 'dsh', 'xcsh']);
  const group = r.json().find((g: { project: string }) => g.project === '/work/p');
  assert.deepEqual(Object.values(group.subagents).flat().map((s) => (s as { id: string }).id), ['child-id']);
  const text = cli('ls', '--root', root);
  assert.match(text.stdout, /parent-id .*\[dsh\]/);
});

test('migrate, relabel and title refuse a dsh log in every form, naming the format; bytes untouched', async () => {
  const f = await forms('dsh-cancel-aborted.session.jsonl');
  for (const file of [f.raw, f.zstd]) {
    const before = sha(file);
    for (const args of [['migrate', file], ['title', file, 'T'], ['relabel', file, 'e1', 'x']]) {
      const r = cli(...args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}`);
      assert.match(r.stderr, /dsh/, args.join(' '));
    }
    assert.equal(sha(file), before);
  }
});
