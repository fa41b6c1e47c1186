// dist/cli.js, the `session-loom` command: a few lines that run the CLI's bundle (dist/cliMain.js,
// src/cli/main.ts) through V8's code cache. Compiling the 1.5 MB bundle was ~25 ms of every
// command (a search on a kept index takes ~150 ms); with the cache V8 reads the compiled code
// instead. Node 20 has no module compile cache of its own (22 has), so this does what it does:
// `vm.Script` with `cachedData`, kept in the CLI's cache folder (code-cache/, 0700, files 0600),
// one file per bundle and Node version; V8 itself rejects a cache that does not fit its version,
// flags or source, and the bundle then compiles as usual. The cache is written after the first
// command that had none (not `--help` or `--version`), once that command is done; any failure to
// read or write it is silent: it is only ever a speed-up. A `search` is first offered to the search
// server (searchClient.ts), which answers without loading the bundle here at all.
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { makePrivateDirSync } from '../core/store/privateDir';
import { cliCacheDir } from './ownWrites';
import { askServer, startServer } from './searchClient';
import { serverMode, serverSocketPath } from './searchServerPath';

const BUNDLE = join(__dirname, 'cliMain.js');

/** The cache's file for this bundle (its size and mtime) and this Node. */
function cacheFileFor(dir: string, st: { size: number; mtimeMs: number }): string {
  return join(dir, `cli-${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}-${process.arch}.v8cache`);
}

/** A regular file's bytes, read without blocking (a FIFO put there is not waited on); null otherwise. */
function readRegular(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > 64 * 1024 * 1024) return null;
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < buf.length) {
      const k = readSync(fd, buf, n, buf.length - n, n);
      if (k === 0) break;
      n += k;
    }
    return buf.subarray(0, n);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Writes the cache atomically (temp file, rename) and removes the caches of other bundles or Node versions. */
function saveCache(dir: string, file: string, data: Buffer): void {
  makePrivateDirSync(dir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, file);
  for (const name of readdirSync(dir)) if (join(dir, name) !== file && name.endsWith('.v8cache')) unlinkSync(join(dir, name));
}

/** Runs the CLI's bundle in this process; `thenServe`: the search server's socket, to start it once the command succeeded. */
function runBundle(st: { size: number; mtimeMs: number }, thenServe: string | null): void {
  const source = readFileSync(BUNDLE, 'utf8');
  let dir: string | null = null;
  let file: string | null = null;
  let cached: Buffer | null = null;
  try {
    dir = join(cliCacheDir(), 'code-cache');
    file = cacheFileFor(dir, st);
    cached = readRegular(file);
  } catch {
    dir = null;
  }
  // The wrapper Node puts around a CommonJS module, so the bundle runs as if required.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: BUNDLE, ...(cached ? { cachedData: cached } : {}) });
  const mod = { exports: {} as { main?: () => Promise<void> } };
  (script.runInThisContext() as (...a: unknown[]) => void).call(mod.exports, mod.exports, require, mod, BUNDLE, __dirname);
  // Made before the command runs: V8 stamps a cache with its flags, and a command may change one
  // (search keeps SQLite's WASM on the baseline tier); such a cache would be rejected next time.
  const fresh = dir !== null && (cached === null || script.cachedDataRejected === true) ? script.createCachedData() : null;
  const done = mod.exports.main!();
  if (thenServe !== null) void done.then(() => process.exitCode === 0 && startServer(__filename, thenServe));
  if (fresh === null || dir === null || file === null) return;
  const [cacheDir, cacheFile] = [dir, file];
  // Not for a question about the CLI itself: `--help` or `--version` makes no folders.
  if (['--help', '-h', 'help', '--version', '-V', undefined].includes(process.argv[2])) return;
  void done.then(() => {
    try {
      saveCache(cacheDir, cacheFile, fresh);
    } catch {
      // only a speed-up
    }
  });
}

/**
 * A search goes to the search server when one is listening (src/cli/searchClient.ts); any other
 * command, or a search without a server, runs the bundle here.
 */
function start(): void {
  const st = statSync(BUNDLE);
  const mode = process.argv[2] === 'search' ? serverMode(process.env) : 'off';
  const socket = mode === 'off' ? null : serverSocketPath(st);
  if (socket === null) return runBundle(st, null);
  void askServer(socket, { argv: process.argv.slice(2), cwd: process.cwd(), isTerminal: process.stdout.isTTY === true }, mode === 'trace').then((served) => {
    if (!served) runBundle(st, socket);
  });
}

start();
