// The official SQLite WASM build (@sqlite.org/sqlite-wasm, pinned: the registry's `latest` tag is
// an old 3.41), loaded once per process. WASM rather than a native module keeps the VSIX
// platform-neutral; it includes FTS5 (sql.js does not), which the prompt-history reader needs.
//
// The package is an ES module that finds `sqlite3.wasm` beside itself through import.meta.url.
// In the CommonJS bundles esbuild makes (dist/extension.js, dist/cli.js) that file is copied
// next to the bundle (esbuild.mjs) and `import.meta.url` is defined as the bundle's own URL;
// here the bytes are read and handed over directly, so no lookup by URL is needed at all.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';

type SqliteModule = typeof import('@sqlite.org/sqlite-wasm', { with: { 'resolution-mode': 'import' } });
export type Sqlite3 = Awaited<ReturnType<SqliteModule['default']>>;

let loading: Promise<Sqlite3> | null = null;

/** Where the library's own console output goes: nowhere. */
const quiet = (): void => undefined;

/** Where `sqlite3.wasm` is: beside the bundle when bundled, else the package's own copy. */
export function sqliteWasmPath(): string {
  const beside = join(__dirname, 'sqlite3.wasm');
  if (existsSync(beside)) return beside;
  // createRequire rather than require.resolve: the bundler leaves it alone (a bundle never needs
  // this fallback: its copy sits beside it).
  return createRequire(__filename).resolve('@sqlite.org/sqlite-wasm/sqlite3.wasm');
}

/** The SQLite WASM module, initialised once (about 100 ms the first time). */
export function loadSqliteWasm(): Promise<Sqlite3> {
  loading ??= (async () => {
    const wasmPath = sqliteWasmPath();
    const wasmBinary = await readFile(wasmPath);
    const { default: init } = await import('@sqlite.org/sqlite-wasm');
    // The typings declare no options; the Emscripten module accepts these (node.mjs).
    const withOptions = init as unknown as (opts: Record<string, unknown>) => Promise<Sqlite3>;
    const sqlite3 = await withOptions({ wasmBinary, locateFile: () => wasmPath, print: quiet, printErr: quiet });
    // print/printErr silence the Emscripten module; the library's own API also writes to the
    // console through sqlite3.config (a failing step logs "sqlite3_step() rc= 11 SQLITE_CORRUPT
    // SQL = …" by config.warn before it throws). The error it throws is what we report, in our
    // own words: its console lines would be raw, unescaped noise on the user's stderr.
    const config = (sqlite3 as unknown as { config?: Record<string, unknown> }).config;
    if (config) for (const k of ['debug', 'log', 'warn', 'error'] as const) config[k] = quiet;
    return sqlite3;
  })();
  loading.catch(() => {
    loading = null;
  });
  return loading;
}
