// `session-loom export` and `session-loom fork` (issue 13), on the BUILT binary and copies of the
// real fixtures: the source is never written, the output is new.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';

let home: string;
let work: string;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-share-home-'));
  work = mkdtempSync(join(tmpdir(), 'sl-share-work-'));
});

const cli = (...args: string[]) => runCli(args, { env: { ...process.env, HOME: home, USERPROFILE: home }, timeout: 120_000 });

let n = 0;
function copy(rel: string): string {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const p = join(dir, basename(rel));
  copyFileSync(fixture(...rel.split('/')), p);
  return p;
}
const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
const headings = (md: string): string[] => md.split('\n').filter((l) => /^## \d+\. /.test(l));

test('export --format md: one heading per message `context` prints, at the default leaf and at --leaf; the file untouched', () => {
  const p = copy('upstream-full/pi-session.jsonl');
  const before = sha(p);
  const ctx = JSON.parse(cli('context', p).stdout) as { messages: unknown[] };
  const r = cli('export', p, '--format', 'md');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(headings(r.stdout).length, ctx.messages.length);
  const tree = JSON.parse(cli('tree', p, '--json').stdout) as { roots: { entries: { id: string }[] }[] };
  const mid = tree.roots[0]!.entries[20]!.id;
  const atMid = JSON.parse(cli('context', p, '--leaf', mid).stdout) as { messages: unknown[] };
  assert.equal(headings(cli('export', p, '--leaf', mid, '--format', 'md').stdout).length, atMid.messages.length);
  assert.equal(sha(p), before);
});

test('export -o writes a new file and never overwrites one; bad --format and unknown --leaf are errors', () => {
  const p = copy('upstream/pi-large-session.v1.head25.jsonl');
  const out = join(work, `out-${n++}.md`);
  const r = cli('export', p, '--format', 'md', '-o', out);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(readFileSync(out, 'utf8'), /^# /);
  const again = cli('export', p, '--format', 'md', '-o', out);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /exists; an export never overwrites/);
  assert.equal(cli('export', p, '--format', 'pdf').code, 2);
  assert.equal(cli('export', p).code, 2, '--format is required');
  const bad = cli('export', p, '--format', 'md', '--leaf', 'nope');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /no entry with id "nope"/);
});

test('fork: a new v3 file beside the source with the path to the entry; the source unchanged; JSON on stdout', () => {
  const p = copy('upstream-full/pi-before-compaction.jsonl');
  const before = sha(p);
  const tree = JSON.parse(cli('tree', p, '--json').stdout) as { defaultLeafId: string };
  const r = cli('fork', p, tree.defaultLeafId);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { file: string; sessionId: string; parentSession: string; title: string; entries: number };
  assert.equal(sha(p), before);
  assert.equal(readdirSync(join(p, '..')).length, 2);
  assert.match(basename(out.file), /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f]{16}\.jsonl$/);
  assert.equal(out.parentSession, JSON.parse(readFileSync(p, 'utf8').split('\n')[0]!).id);
  const header = JSON.parse(readFileSync(out.file, 'utf8').split('\n')[0]!) as Record<string, unknown>;
  assert.equal(header.version, 3);
  assert.equal(header.id, out.sessionId);
  assert.match(String(header.title), /^Fork of /);
  // what the fork sends equals what the source sent there
  const a = JSON.parse(cli('context', p).stdout) as { messages: unknown[] };
  const b = JSON.parse(cli('context', out.file).stdout) as { messages: unknown[] };
  assert.deepEqual(b.messages, a.messages);
  assert.equal(cli('doctor', out.file).code, 0, 'the fork is a clean session');
});

test('fork refusals: damaged source, unknown entry, an existing -o, a missing entry id (usage)', () => {
  const dmg = copy('real-v3/gjc-01-youtube-transcript-extraction.jsonl');
  const tree = JSON.parse(cli('tree', dmg, '--json').stdout) as { defaultLeafId: string };
  const r = cli('fork', dmg, tree.defaultLeafId);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot fork: damaged/);
  assert.equal(readdirSync(join(dmg, '..')).length, 1);
  const ok = copy('upstream/pi-large-session.v1.head25.jsonl');
  assert.match(cli('fork', ok, 'zzzzzzzz').stderr, /no entry with id "zzzzzzzz"/);
  const taken = join(work, `taken-${n++}.jsonl`);
  writeFileSync(taken, 'x\n');
  const t = JSON.parse(cli('tree', ok, '--json').stdout) as { defaultLeafId: string };
  const o = cli('fork', ok, t.defaultLeafId, '-o', taken);
  assert.equal(o.code, 1);
  assert.equal(readFileSync(taken, 'utf8'), 'x\n');
  assert.equal(cli('fork', ok).code, 2);
});
