// Where the search server listens (src/cli/searchServer.ts, src/cli/searchClient.ts): a Unix socket
// in the CLI's cache folder, one per CLI bundle, Node version and environment. Kept small: the
// launcher (dist/cli.js) imports it before it knows whether it needs the CLI's bundle at all.
import { fnv1a } from '../core/fnv';
import { join } from 'node:path';
import { cliCacheDir } from './ownWrites';

/**
 * The environment a search reads (its roots, its cache folder, its limits): a server answers only
 * clients whose values of these are its own, so it never searches another home's sessions or
 * writes another cache's index. test/cli/searchServer.test.ts checks that every variable the
 * CLI's code reads is here (or named there as one a search does not read).
 */
export const SERVER_KEY_ENV = [
  'HOME',
  'USERPROFILE',
  'LOCALAPPDATA',
  'XDG_CACHE_HOME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'TZ',
  'CLAUDE_CONFIG_DIR',
  'CODEX_HOME',
  'DSH_HOME',
  'SESSION_LOOM_MAX_RECORD_BYTES',
  'SESSION_LOOM_SEARCH_BATCH_BYTES',
  'SESSION_LOOM_SEARCH_SERVER_IDLE',
] as const;

/** `SESSION_LOOM_SEARCH_SERVER`: `0` (or `off`, `false`) turns the server off; `trace` says on stderr who answered. */
export function serverMode(env: NodeJS.ProcessEnv): 'off' | 'on' | 'trace' {
  const v = (env.SESSION_LOOM_SEARCH_SERVER ?? '').trim().toLowerCase();
  if (v === '0' || v === 'off' || v === 'false' || v === 'no') return 'off';
  return v === 'trace' ? 'trace' : 'on';
}

/** A Unix socket's path is at most 107 bytes on Linux (103 on macOS); a longer cache path has no server. */
const MAX_SOCKET_PATH = 100;

/**
 * The socket for this CLI bundle (its size and mtime), this Node and this environment, or null
 * where there is none (Windows, a cache path too long for a socket). FNV-1a (core/fnv.ts): a
 * stable short name, no crypto needed (the folder is the user's alone; the name is not a secret).
 */
export function serverSocketPath(bundle: { size: number; mtimeMs: number }, env: NodeJS.ProcessEnv = process.env): string | null {
  if (process.platform === 'win32') return null;
  const key = [bundle.size, Math.trunc(bundle.mtimeMs), process.version, process.arch, process.getuid?.() ?? '', ...SERVER_KEY_ENV.map((k) => `${k}=${env[k] ?? '\0'}`)].join('\n');
  const path = join(serverDir(env), `search-${(fnv1a(key) >>> 0).toString(16).padStart(8, '0')}.sock`);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH ? path : null;
}

/** The folder of the servers' sockets: private to the user (0700), made by the server. */
export function serverDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cliCacheDir(env), 'server');
}
