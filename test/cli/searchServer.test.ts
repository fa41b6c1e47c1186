// The search server (src/cli/searchServer.ts) through the BUILT binary, as a terminal user meets it:
// the first `session-loom search` runs in its own process and starts a server in the background;
// the next ones are answered by it — byte for byte what a search in its own process prints, exact
// after the sessions change, only for its own environment — and it stops by itself. The rest of
// the CLI tests run with the server off (scripts/with-temp-dir.mjs), so each of them tests the
// in-process path; this file turns it on.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';
import { SERVER_KEY_ENV, serverSocketPath } from '../../src/cli/searchServerPath';

const TRACE = /^session-loom: answered by the search server \(pid (\d+)\)\n/m;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** The server's pid when it answered, else null. */
  servedBy: number | null;
}

let base: string;
let home: string;
let cache: string;
const pids = new Set<number>();

function envFor(h: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, HOME: h, XDG_CACHE_HOME: cache, SESSION_LOOM_SEARCH_SERVER: 'trace', SESSION_LOOM_SEARCH_SERVER_IDLE: '120', ...extra };
}

function cli(args: string[], env: NodeJS.ProcessEnv, cwd: string = base): Run {
  const r = runCli(args, { cwd, env, timeout: 120_000 });
  const m = TRACE.exec(r.stderr);
  const servedBy = m ? Number(m[1]) : null;
  if (servedBy !== null) pids.add(servedBy);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr.replace(TRACE, ''), servedBy };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const serverDir = (): string => join(cache, 'session-loom', 'server');
/** The socket of the server for `env` (as the CLI names it). */
const socketFor = (env: NodeJS.ProcessEnv): string => serverSocketPath(statSync(join(REPO_ROOT, 'dist', 'cliMain.js')), env)!;
const sockets = (): string[] => (existsSync(serverDir()) ? readdirSync(serverDir()).filter((n) => n.endsWith('.sock')) : []);

/** Searches until the server answers (it starts in the background after a search of its own). */
async function untilServed(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  for (let i = 0; i < 150; i++) {
    const r = cli(args, env);
    if (r.servedBy !== null) return r;
    await sleep(200);
  }
  throw new Error('no search server answered within 30 s');
}

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The text a run printed, but the timings (a search prints how long its query took). */
function comparable(r: Run): { code: number; stdout: string; stderr: string } {
  const ms = (t: string): string => t.replace(/\d+(\.\d+)? ms\b/g, '# ms').replace(/"ms":\s*\d+(\.\d+)?/g, '"ms":#');
  return { code: r.code, stdout: ms(r.stdout), stderr: ms(r.stderr) };
}

const line = (o: object): string => JSON.stringify(o) + '\n';

function session(dir: string, name: string, words: string[]): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  let text = line({ type: 'session', version: 3, id: `s-${name}`, timestamp: '2026-06-01T09:00:00.000Z', cwd: '/work/server' });
  let parent: string | null = null;
  words.forEach((w, i) => {
    const id = `${name.slice(0, 4)}${i.toString().padStart(4, '0')}`;
    text += line({ type: 'message', id, parentId: parent, timestamp: `2026-06-01T09:${String(i % 60).padStart(2, '0')}:00.000Z`, message: { role: i % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text: w }] } });
    parent = id;
  });
  writeFileSync(path, text);
  return path;
}

let project: string;
let planted: string;

before(() => {
  assertCliBuilt();
  base = mkdtempSync(join(tmpdir(), 'sl-server-'));
  home = join(base, 'home');
  cache = join(base, 'cache');
  project = join(home, '.xcsh', 'agent', 'sessions', '--work-server--');
  mkdirSync(project, { recursive: true });
  for (const f of ['real-v3/gjc-01-youtube-transcript-extraction.jsonl', 'real-v3/gjc-03-raddit-dashboard-pr.jsonl', 'upstream-full/pi-compact.jsonl']) copyFileSync(fixture(f), join(project, f.split('/')[1]!));
  const claude = join(home, '.claude', 'projects', '-work-server');
  mkdirSync(claude, { recursive: true });
  copyFileSync(fixture('claude-code/agent-history/session-01.jsonl'), join(claude, '0b6d1f0e-2a1c-4c53-9d7e-5a0f3f5d1e01.jsonl'));
  const codex = join(home, '.codex', 'sessions', '2025', '09', '25');
  mkdirSync(codex, { recursive: true });
  copyFileSync(fixture('codex/agentcmd/rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl'), join(codex, 'rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl'));
  planted = session(project, 'planted.jsonl', ['the vanadium reactor is warm', 'hafnium and vanadium together', 'a quiet line about tungsten']);
  session(project, 'other.jsonl', ['vanadium once more', 'osmium alone']);
});

after(async () => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone
    }
  }
  await until('the servers to stop', () => [...pids].every((p) => !alive(p)), 10_000).catch(() => {});
  rmSync(base, { recursive: true, force: true });
});

const QUERIES: string[][] = [
  ['vanadium'],
  ['vanadium', 'hafnium'],
  ['"vanadium reactor"'],
  ['vanad*'],
  ['vanadium', '-hafnium'],
  ['tungsten', '--json'],
  ['vanadium', '--json', '--pretty', '--limit', '1'],
  ['the'],
  ['agent:claude', 'redacted'],
  ['agent:codex', 'the'],
  ['nosuchwordanywhere'],
  ['-vanadium'],
  ['vanadium', '--limit', 'x'],
  ['vanadium', '--bogus'],
  ['vanadium', '--root', 'home/.xcsh/agent/sessions'],
  ['vanadium', '--root', 'no/such/folder'],
  ['--help'],
];

test('a search starts a server in the background; the next ones are answered by it, byte for byte what a search in its own process prints', async () => {
  const env = envFor(home);
  const first = cli(['search', 'vanadium'], env);
  assert.equal(first.servedBy, null, 'the first search has no server to ask');
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /planted\.jsonl/);
  await untilServed(['search', 'osmium'], env);
  assert.equal(sockets().length, 1);
  const dirMode = statSync(serverDir()).mode & 0o777;
  const sockMode = statSync(join(serverDir(), sockets()[0]!)).mode & 0o777;
  assert.equal(dirMode, 0o700, 'the sockets folder is the user’s alone');
  assert.equal(sockMode, 0o600);
  for (const q of QUERIES) {
    // Once first: a search over other roots builds their index on first use (and says so).
    cli(['search', ...q], env);
    const served = cli(['search', ...q], env);
    const own = cli(['search', ...q], { ...env, SESSION_LOOM_SEARCH_SERVER: '0' });
    assert.notEqual(served.servedBy, null, `served: ${q.join(' ')}`);
    assert.equal(own.servedBy, null);
    assert.deepEqual(comparable(served), comparable(own), `search ${q.join(' ')}`);
  }
  // The answers were real ones (not all empty): a few of them, checked.
  const and = cli(['search', 'vanadium', 'hafnium'], env);
  assert.match(and.stdout, /planted\.jsonl/);
  assert.doesNotMatch(and.stdout, /other\.jsonl/);
  assert.equal(cli(['search', '-vanadium'], env).code, 2);
  assert.match(cli(['search', 'agent:claude', 'redacted'], env).stdout, /\.claude/);
  assert.match(cli(['search', 'agent:codex', 'the'], env).stdout, /\.codex/);
});

test("the server's answers stay exact: a session appended to, rewritten at the same size, added and deleted while it runs", async () => {
  const env = envFor(home);
  await untilServed(['search', 'osmium'], env);
  appendFileSync(planted, line({ type: 'message', id: 'appended1', parentId: 'plan0002', timestamp: '2026-06-01T10:00:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'now rhenium too' }] } }));
  const appended = cli(['search', 'rhenium'], env);
  assert.notEqual(appended.servedBy, null);
  assert.match(appended.stdout, /planted\.jsonl/);
  // Same size, same second: the word changes, its length does not.
  const before = readFileSync(planted, 'utf8');
  writeFileSync(planted, before.replace('rhenium', 'iridium'));
  const rewritten = cli(['search', 'iridium'], env);
  assert.match(rewritten.stdout, /planted\.jsonl/);
  assert.equal(cli(['search', 'rhenium'], env).stdout, '');
  const added = session(project, 'added.jsonl', ['ruthenium arrives']);
  assert.match(cli(['search', 'ruthenium'], env).stdout, /added\.jsonl/);
  unlinkSync(added);
  const gone = cli(['search', 'ruthenium'], env);
  assert.notEqual(gone.servedBy, null);
  assert.equal(gone.stdout, '');
  assert.match(gone.stderr, /no session matches/);
});

test('a server answers only its own environment: another HOME gets its own server and its own sessions', async () => {
  const home2 = join(base, 'home2');
  session(join(home2, '.xcsh', 'agent', 'sessions', '--work-two--'), 'second.jsonl', ['vanadium in the second home']);
  const env1 = envFor(home);
  const env2 = envFor(home2);
  const one = await untilServed(['search', 'vanadium'], env1);
  const first2 = cli(['search', 'vanadium'], env2);
  assert.equal(first2.servedBy, null, "the first home's server does not answer the second");
  assert.match(first2.stdout, /second\.jsonl/);
  assert.doesNotMatch(first2.stdout, /planted\.jsonl/);
  const two = await untilServed(['search', 'vanadium'], env2);
  assert.notEqual(two.servedBy, one.servedBy);
  assert.match(two.stdout, /second\.jsonl/);
  assert.doesNotMatch(two.stdout, /planted\.jsonl/);
  assert.equal(sockets().length, 2);
});

test('only a search goes to the server; SESSION_LOOM_SEARCH_SERVER=0 runs it in its own process and starts none', async () => {
  const env = envFor(home);
  await untilServed(['search', 'osmium'], env);
  const ls = cli(['ls'], env);
  assert.equal(ls.code, 0);
  assert.equal(ls.servedBy, null);
  const home3 = join(base, 'home3');
  session(join(home3, '.xcsh', 'agent', 'sessions', '--work-three--'), 'third.jsonl', ['scandium']);
  const off = { ...envFor(home3), SESSION_LOOM_SEARCH_SERVER: '0' };
  const count = sockets().length;
  for (let i = 0; i < 3; i++) assert.match(cli(['search', 'scandium'], off).stdout, /third\.jsonl/);
  await sleep(1500);
  assert.equal(sockets().length, count, 'no server was started');
});

test('searches that arrive together each get their own answer, never a piece of another', async () => {
  const env = envFor(home);
  await untilServed(['search', 'osmium'], env);
  const sock = socketFor(env);
  const words = ['vanadium', 'osmium', 'tungsten', 'hafnium', 'nosuchwordanywhere', 'vanad*', 'the', 'redacted'];
  // Connected first, then every request written in the same tick: they reach the server together.
  const conns = await Promise.all(
    words.map(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const c = createConnection(sock);
          c.on('connect', () => resolve(c));
          c.on('error', reject);
        }),
    ),
  );
  const answers = conns.map(
    (c) =>
      new Promise<Run>((resolve) => {
        let text = '';
        c.setEncoding('utf8');
        c.on('data', (d: string) => (text += d));
        c.on('close', () => {
          const r: Run = { code: -1, stdout: '', stderr: '', servedBy: null };
          for (const l of text.split('\n').filter((x) => x !== '')) {
            const f = JSON.parse(l) as { out?: string; err?: string; exit?: number; pid?: number };
            if (f.out !== undefined) r.stdout += f.out;
            if (f.err !== undefined) r.stderr += f.err;
            if (f.exit !== undefined) [r.code, r.servedBy] = [f.exit, f.pid!];
          }
          resolve(r);
        });
      }),
  );
  conns.forEach((c, i) => c.write(`${JSON.stringify({ argv: ['search', words[i]!], cwd: base, isTerminal: false })}\n`));
  const runs = await Promise.all(answers);
  words.forEach((w, i) => {
    const own = cli(['search', w], { ...env, SESSION_LOOM_SEARCH_SERVER: '0' });
    assert.notEqual(runs[i]!.servedBy, null, `${w} was answered`);
    assert.deepEqual(comparable(runs[i]!), comparable(own), w);
  });
});

test('the server takes nothing but a search: another command, or a line that is not a request, is handed back', async () => {
  const env = envFor(home);
  await untilServed(['search', 'osmium'], env);
  const sock = socketFor(env);
  /** The server's frames but its "taken" one, which comes first. */
  const frames = (text: string): unknown[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown).filter((f) => !(f as { accepted?: boolean }).accepted);
  const ask = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      let got = '';
      const c = createConnection(sock);
      c.setEncoding('utf8');
      c.on('connect', () => c.write(text));
      c.on('data', (d: string) => (got += d));
      c.on('close', () => resolve(got));
      c.on('error', reject);
    });
  assert.deepEqual(frames(await ask(`${JSON.stringify({ argv: ['context', planted], cwd: base, isTerminal: false })}\n`)), [{ fallback: 'not a search' }]);
  assert.deepEqual(frames(await ask('not json\n')), [{ fallback: 'not a search' }]);
  assert.deepEqual(frames(await ask(`${JSON.stringify({ argv: ['search', 'osmium'], cwd: join(base, 'no-such-folder'), isTerminal: false })}\n`)), [{ fallback: 'cannot enter the working folder' }]);
  // Still serving after all that.
  assert.notEqual(cli(['search', 'osmium'], env).servedBy, null);
});

test('a killed server leaves a socket nothing answers at: the next search runs itself, and the server it starts takes the path over', async () => {
  const env = envFor(home);
  const r = await untilServed(['search', 'osmium'], env);
  process.kill(r.servedBy!, 'SIGKILL');
  await until('the server to die', () => !alive(r.servedBy!));
  assert.equal(sockets().length, 2, 'the killed server’s socket is still there');
  const own = cli(['search', 'osmium'], env);
  assert.equal(own.servedBy, null);
  assert.match(own.stdout, /other\.jsonl/);
  const again = await untilServed(['search', 'osmium'], env);
  assert.notEqual(again.servedBy, r.servedBy);
  assert.match(again.stdout, /other\.jsonl/);
});

test('a server that does not take the request within 3 s is not waited on: the search runs itself', async () => {
  const env = envFor(home);
  const r = await untilServed(['search', 'osmium'], env);
  process.kill(r.servedBy!, 'SIGKILL');
  await until('the server to die', () => !alive(r.servedBy!));
  const sock = socketFor(env);
  unlinkSync(sock);
  // Something listening at the path that never answers (a stuck server): connections wait in its backlog.
  const stuck = createServer(() => {});
  await new Promise<void>((resolve) => stuck.listen(sock, resolve));
  try {
    const t = Date.now();
    const own = cli(['search', 'osmium'], env);
    const ms = Date.now() - t;
    assert.equal(own.servedBy, null);
    assert.equal(own.code, 0);
    assert.match(own.stdout, /other\.jsonl/);
    assert.ok(ms >= 2900, `it waited for the server first (${ms} ms)`);
  } finally {
    await new Promise<void>((resolve) => stuck.close(() => resolve()));
  }
});

test('a sockets folder others may enter is not used', async () => {
  const env = envFor(home);
  await untilServed(['search', 'osmium'], env);
  chmodSync(serverDir(), 0o755);
  try {
    const r = cli(['search', 'osmium'], env);
    assert.equal(r.servedBy, null, 'not connected through a folder that is not private');
    assert.match(r.stdout, /other\.jsonl/);
  } finally {
    chmodSync(serverDir(), 0o700);
  }
});

test('an idle server stops by itself and removes its socket', async () => {
  const home4 = join(base, 'home4');
  session(join(home4, '.xcsh', 'agent', 'sessions', '--work-four--'), 'fourth.jsonl', ['yttrium']);
  const env = envFor(home4, { SESSION_LOOM_SEARCH_SERVER_IDLE: '1' });
  const before = new Set(sockets());
  cli(['search', 'yttrium'], env);
  // Started, then idle for a second: it may be gone before a search reaches it, which is what the test is about.
  await until('its socket', () => sockets().some((s) => !before.has(s)));
  const mine = sockets().find((s) => !before.has(s))!;
  await until('the idle server to remove its socket', () => !sockets().includes(mine), 20_000);
});

test('the server is keyed by every environment variable a search reads', () => {
  // Every `env.NAME` the CLI's and the core's code reads: in the key, or named here as not read by a search.
  const notSearch = new Set(['SESSION_LOOM_SEARCH_SERVER']);
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) for (const m of readFileSync(p, 'utf8').matchAll(/\benv\.([A-Z_][A-Z0-9_]*)/g)) names.add(m[1]!);
    }
  };
  walk(join(REPO_ROOT, 'src', 'core'));
  walk(join(REPO_ROOT, 'src', 'cli'));
  assert.ok(names.has('CLAUDE_CONFIG_DIR') && names.has('XDG_CACHE_HOME'), 'the scan finds the reads');
  const key = new Set<string>(SERVER_KEY_ENV);
  for (const n of names) assert.ok(key.has(n) || notSearch.has(n), `${n} is read by the CLI but not in SERVER_KEY_ENV`);
  // os.homedir() and os.tmpdir() read these.
  for (const n of ['HOME', 'TMPDIR']) assert.ok(key.has(n));
});
