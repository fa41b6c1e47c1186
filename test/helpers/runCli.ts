// The BUILT command line (dist/cli.js, built by `node esbuild.mjs`; `npm run test:cli` builds first)
// run as a child process of the tests: its exit status and what it wrote to stdout and stderr.
// The tests under test/cli/ all run it through here; each passes the environment it means (a
// private HOME and cache folder, or a clean one), so no real sessions or caches leak in.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './fixtures';

export const CLI = join(REPO_ROOT, 'dist', 'cli.js');

/** For a test file's `before`: the bundle is there (a missing build fails with what to run, not ENOENT). */
export function assertCliBuilt(): void {
  assert.ok(existsSync(CLI), 'dist/cli.js missing: run `npm run test:cli` (it builds first)');
}

export interface CliOptions {
  /** The child's whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to its stdin (default: an empty stdin). */
  input?: string;
  /** Killed after this many ms (`status` null, `code` -1): a hang fails the test instead of the run. */
  timeout?: number;
  killSignal?: NodeJS.Signals;
  /** Run as another user (tests running as root). */
  uid?: number;
  gid?: number;
  /** Options for node itself, before dist/cli.js (e.g. `--max-old-space-size=128`). */
  nodeArgs?: string[];
  /** An open file descriptor stdout goes to instead of a pipe (`stdout` is then empty). */
  stdoutFd?: number;
}

export interface CliRun<T extends string | Buffer = string> {
  /** The exit status; null when killed by a signal (a timeout). */
  status: number | null;
  signal: NodeJS.Signals | null;
  /** The exit status, -1 when killed. */
  code: number;
  stdout: T;
  stderr: T;
  /** stdout parsed as JSON. */
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Room for the largest document a test prints (spawnSync's default of 1 MB would kill the child). */
const MAX_BUFFER = 512 << 20;

function result<T extends string | Buffer>(status: number | null, signal: NodeJS.Signals | null, stdout: T, stderr: T): CliRun<T> {
  return { status, signal, code: status ?? -1, stdout, stderr, json: () => JSON.parse(stdout.toString()) };
}

const user = (o: CliOptions): { uid?: number; gid?: number } => (o.uid !== undefined ? { uid: o.uid, gid: o.gid ?? o.uid } : {});

/** `session-loom <args>`, waited for. */
export function runCli(args: readonly string[], opts: CliOptions = {}): CliRun {
  const r = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), CLI, ...args], {
    encoding: 'utf8',
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    input: opts.input,
    timeout: opts.timeout,
    killSignal: opts.killSignal,
    maxBuffer: MAX_BUFFER,
    ...(opts.stdoutFd !== undefined ? { stdio: ['pipe', opts.stdoutFd, 'pipe'] } : {}),
    ...user(opts),
  });
  return result(r.status, r.signal, r.stdout ?? '', r.stderr);
}

/**
 * `session-loom <args>` without blocking this process (a test that races the CLI against a writer,
 * or runs many at once). The output is read until the streams close, as bytes with `encoding: 'buffer'`.
 */
export function runCliAsync(args: readonly string[], opts?: CliOptions): Promise<CliRun>;
export function runCliAsync(args: readonly string[], opts: CliOptions & { encoding: 'buffer' }): Promise<CliRun<Buffer>>;
export function runCliAsync(args: readonly string[], opts: CliOptions & { encoding?: 'buffer' } = {}): Promise<CliRun<string> | CliRun<Buffer>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), CLI, ...args], {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...user(opts),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    const timer = opts.timeout === undefined ? undefined : setTimeout(() => child.kill(opts.killSignal ?? 'SIGTERM'), opts.timeout);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      const [stdout, stderr] = [Buffer.concat(out), Buffer.concat(err)];
      resolve(opts.encoding === 'buffer' ? result(status, signal, stdout, stderr) : result(status, signal, stdout.toString('utf8'), stderr.toString('utf8')));
    });
  });
}
