// The launcher's side of the search server (src/cli/searchServer.ts): a `session-loom search` asks
// the server for this bundle and environment, if one is listening, and prints its answer; a node
// process that only connects and prints takes ~50 ms, where loading the CLI, SQLite and the
// index's schema took ~100 ms more. No server (or one that stops before its answer is complete):
// the launcher runs the search itself, then starts a server for the next one.
// node:net and node:child_process are required where they are used: this module is part of the
// launcher every command starts with (dist/cli.js), and `context` or `ls` need neither (~2.5 ms).
import { existsSync, lstatSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
/* eslint-disable @typescript-eslint/no-require-imports -- loaded when a search asks or starts a server, not at every start */
const net = (): typeof import('node:net') => require('node:net');
const childProcess = (): typeof import('node:child_process') => require('node:child_process');
/* eslint-enable @typescript-eslint/no-require-imports */

/** What a client sends: one line of JSON. */
export interface ServerRequest {
  argv: string[];
  cwd: string;
  isTerminal: boolean;
}

/**
 * One line of JSON from the server: stderr text (written as it comes: a first build says so),
 * stdout text (held until the end), the exit status (the answer is complete), or "run it yourself"
 * (a request it does not take).
 */
export type ServerFrame = { accepted: true } | { err: string } | { out: string } | { exit: number; pid: number } | { fallback: string };

/**
 * How long a client waits for the server to take its request: a server whose thread is stuck
 * (it never should be) does not hang every search after it. Once taken, the client waits as long
 * as the search runs (a first build takes minutes, and says so on stderr).
 */
const ACCEPT_MS = 3000;
/** A server is started at most this often for one socket: not one per search when it cannot listen (a file system without sockets). */
const RESTART_MS = 10_000;

/** Whether `dir` is a folder of this user's alone: a socket anyone else could have put there is not connected to. */
function privateDir(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && (process.getuid === undefined || st.uid === process.getuid()) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * Asks the server at `socket`. Resolves true when its answer was printed and the exit status set,
 * false when the search is the caller's to run (no server, a socket not ours, an answer cut short
 * — nothing of stdout has been written then).
 */
export function askServer(socket: string, request: ServerRequest, trace: boolean): Promise<boolean> {
  if (!privateDir(dirname(socket))) return Promise.resolve(false);
  return new Promise((resolve) => {
    const out: string[] = [];
    let pending = '';
    let settled = false;
    const finish = (served: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(stuck);
      conn.destroy();
      resolve(served);
    };
    const conn = net().createConnection(socket);
    const stuck = setTimeout(() => finish(false), ACCEPT_MS);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(`${JSON.stringify(request)}\n`));
    conn.on('data', (chunk: string) => {
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl >= 0 && !settled; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let frame: ServerFrame;
        try {
          frame = JSON.parse(line) as ServerFrame;
        } catch {
          return finish(false);
        }
        if ('accepted' in frame) clearTimeout(stuck);
        else if ('err' in frame) process.stderr.write(frame.err);
        else if ('out' in frame) out.push(frame.out);
        else if ('fallback' in frame) return finish(false);
        else if ('exit' in frame) {
          if (trace) process.stderr.write(`session-loom: answered by the search server (pid ${frame.pid})\n`);
          process.stdout.on('error', (e: NodeJS.ErrnoException) => {
            if (e.code !== 'EPIPE') throw e;
          });
          if (out.length > 0) process.stdout.write(out.join(''));
          process.exitCode = frame.exit;
          return finish(true);
        }
      }
    });
    // ENOENT (no server), ECONNREFUSED (one that is gone), or an end before the exit status.
    conn.on('error', () => finish(false));
    conn.on('close', () => finish(false));
  });
}

/**
 * Starts the server for `socket` in the background (its own session, no terminal, no open
 * descriptors of ours), to answer the next search. It stops by itself when idle.
 */
export function startServer(cliScript: string, socket: string): void {
  try {
    // The mark of the last start (the folder is made by the server; before the first start there is none).
    const mark = `${socket}.started`;
    const last = statSync(mark, { throwIfNoEntry: false });
    if (last && Date.now() - last.mtimeMs < RESTART_MS) return;
    if (last || existsSync(dirname(mark))) writeFileSync(mark, '', { mode: 0o600 });
    const child = childProcess().spawn(process.execPath, [cliScript, '--search-server'], { detached: true, stdio: 'ignore', cwd: '/', env: process.env });
    child.on('error', () => {});
    child.unref();
  } catch {
    // only a speed-up
  }
}
