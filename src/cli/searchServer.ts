// The search server: a `session-loom search` process that stays, so the next search at the terminal
// finds the CLI's code compiled, SQLite's WASM instantiated and warm, and pays only for the query.
// Started in the background by the first search that had none (src/cli/searchClient.ts), it
// listens on a Unix socket in the user's own cache folder (0700; src/cli/searchServerPath.ts
// names it after the CLI bundle, Node and the environment a search reads), runs one search at a
// time exactly as the command does in a process of its own (the same `run`, the same index and its
// lock, which it holds only while a search runs; every session's identity is checked before each
// answer, so answers stay exact), and stops when idle (10 minutes; SESSION_LOOM_SEARCH_SERVER_IDLE
// seconds), when its socket is taken away or replaced, when the CLI is updated, or after a search
// that left it holding much memory. `SESSION_LOOM_SEARCH_SERVER=0` turns it off.
import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { makePrivateDirSync } from '../core/store/privateDir';
import { loadSqliteWasm } from '../core/store/sqliteWasm';
import { run } from './main';
import type { ServerFrame, ServerRequest } from './searchClient';
import { serverSocketPath } from './searchServerPath';
import { keepOptimizingTier, type Io } from './util';

const BUNDLE = join(__dirname, 'cliMain.js');
/** After a search that left the process above this (a first build of a large corpus), it stops: the next search starts a lean one. */
const MAX_RSS = 768 * 1024 * 1024;
/** The longest request line taken (argv and a folder): a client sends a few hundred bytes. */
const MAX_REQUEST = 1 << 20;

function idleMs(env: NodeJS.ProcessEnv): number {
  const s = Number(env.SESSION_LOOM_SEARCH_SERVER_IDLE);
  return Number.isFinite(s) && s > 0 ? Math.min(s, 24 * 3600) * 1000 : 10 * 60 * 1000;
}

function isRequest(x: unknown): x is ServerRequest {
  const r = x as ServerRequest | null;
  return typeof r === 'object' && r !== null && Array.isArray(r.argv) && r.argv.every((a) => typeof a === 'string') && typeof r.cwd === 'string' && typeof r.isTerminal === 'boolean';
}

/** Whether something answers at `socket` (another server started at the same moment). */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection(socket);
    c.on('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.on('error', () => resolve(false));
  });
}

/** The socket's inode, or null when it is gone. */
function inodeOf(path: string): number | null {
  try {
    return lstatSync(path).ino;
  } catch {
    return null;
  }
}

export async function serveSearch(): Promise<void> {
  const bundle = statSync(BUNDLE);
  const socket = serverSocketPath(bundle);
  if (socket === null) return;
  makePrivateDirSync(dirname(socket));
  if (await answers(socket)) return;
  // A socket left by a server that was killed: nothing answers at it.
  try {
    unlinkSync(socket);
  } catch {
    // none there
  }
  // A long-lived process: SQLite's WASM may go to V8's optimising tier (a one-shot search keeps it on the baseline).
  keepOptimizingTier();
  // Loaded now, not at the first search: the point of the server.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the search command's module, as main.ts loads it
  require('./commands/search');
  await loadSqliteWasm();

  const server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(socket, () => resolve(true));
  });
  // EADDRINUSE: another server started in between, and it answers.
  if (!listening) return;
  chmodSync(socket, 0o600);
  const ours = inodeOf(socket);
  const idle = idleMs(process.env);
  let timer: NodeJS.Timeout | undefined;
  let busy = false;
  let queue: Promise<void> = Promise.resolve();

  const stop = (): void => {
    clearTimeout(timer);
    clearInterval(watch);
    server.close();
    // Only our own socket: a newer server's may be at the path already.
    if (inodeOf(socket) === ours) {
      try {
        unlinkSync(socket);
      } catch {
        // gone
      }
    }
    setImmediate(() => process.exit(0));
  };
  const rearm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!busy) stop();
    }, idle);
  };
  // The socket taken away or replaced, or the CLI updated (its bundle is not the one loaded): stop.
  const watch = setInterval(
    () => {
      if (busy) return;
      let same = false;
      try {
        const now = statSync(BUNDLE);
        same = now.size === bundle.size && now.mtimeMs === bundle.mtimeMs;
      } catch {
        same = false;
      }
      if (!same || inodeOf(socket) !== ours) stop();
    },
    Math.min(idle, 30_000),
  );
  watch.unref();
  rearm();

  server.on('connection', (conn: Socket) => {
    conn.setEncoding('utf8');
    conn.on('error', () => {});
    let pending = '';
    const onData = (chunk: string): void => {
      pending += chunk;
      const nl = pending.indexOf('\n');
      if (nl < 0) {
        if (pending.length > MAX_REQUEST) conn.destroy();
        return;
      }
      conn.off('data', onData);
      let req: unknown;
      try {
        req = JSON.parse(pending.slice(0, nl));
      } catch {
        req = null;
      }
      // One search at a time (they share the index and its lock); a failed one does not stop the queue.
      // Taken at once, answered in turn: the client knows the server is alive while it waits.
      if (!conn.destroyed) conn.write(`${JSON.stringify({ accepted: true } satisfies ServerFrame)}\n`);
      queue = queue.then(() => answer(req, conn)).catch(() => {
          conn.destroy();
        });
    };
    conn.on('data', onData);
  });

  const answer = async (req: unknown, conn: Socket): Promise<void> => {
    const send = (f: ServerFrame): void => {
      if (!conn.destroyed) conn.write(`${JSON.stringify(f)}\n`);
    };
    if (conn.destroyed) return;
    if (!isRequest(req) || req.argv[0] !== 'search') {
      send({ fallback: 'not a search' });
      conn.end();
      return;
    }
    try {
      process.chdir(req.cwd);
    } catch {
      // The client's folder is gone, or not ours to enter: it runs the search itself and says why.
      send({ fallback: 'cannot enter the working folder' });
      conn.end();
      return;
    }
    busy = true;
    clearTimeout(timer);
    try {
      const io: Io = { out: (t) => send({ out: t }), err: (t) => send({ err: t }), isTerminal: req.isTerminal };
      const code = await run(req.argv, io);
      send({ exit: code, pid: process.pid });
      conn.end();
    } finally {
      process.chdir('/');
      busy = false;
      if (process.memoryUsage().rss > MAX_RSS) stop();
      else rearm();
    }
  };
  // Keeps running until stop(): the server holds the event loop.
  await new Promise<void>((resolve) => server.on('close', resolve));
}
