// Builds every bundle of the project: the extension host (CommonJS, node), the CLI,
// the webview (ESM, browser) and the integration-test entry that runs inside VS Code.
// Type-checking is separate (`npm run typecheck`): esbuild only strips types.
// Building the extension host also writes l10n/bundle.l10n.json: the keys of every l10n call in
// src/extension, src/core (`l10nT`) and webview/ (see test/l10n-keys.mjs).
import * as esbuild from 'esbuild';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILE, writeL10nBundle } from './test/l10n-keys.mjs';
import { copySqliteWasm, nodeBundleOptions, sqliteGlueRequire } from './scripts/esbuild-node.mjs';
import { writeCodiconSubset } from './scripts/codicons.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  // esbuild's own table lists every output with its .map and flags each file over 1 MB with a
  // warning sign (a development bundle is unminified: expected, nothing to fix). One summary line
  // per build says the same; real warnings and errors still print. Watch mode keeps esbuild's
  // own rebuild messages.
  logLevel: watch ? 'info' : 'warning',
  metafile: !watch,
  absWorkingDir: root,
};

const node = { ...common, ...nodeBundleOptions() };

// `session-loom --version` prints package.json's version, put into dist/cli.js at build time.
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const cli = nodeBundleOptions({ shebang: true });

/**
 * Writes l10n/bundle.l10n.json (the l10n keys of src/extension, src/core and webview/) at the start
 * of each extension-host build, watch rebuilds included (in --watch, a webview-only edit reaches the
 * bundle with the next host rebuild). A key that is not a string literal fails the
 * build, named by file and line.
 * @type {import('esbuild').Plugin}
 */
const l10nBundle = {
  name: 'l10n-bundle',
  setup(build) {
    build.onStart(() => {
      const { errors, count, written } = writeL10nBundle(root);
      if (written) console.log(`${BUNDLE_FILE}: ${count} strings`);
      return { errors: errors.map((e) => ({ text: e.text, location: { file: e.file, line: e.line, column: e.column, lineText: e.lineText } })) };
    });
  },
};

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  { ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: [l10nBundle] },
  // The `session-loom` command: a launcher that runs the CLI's bundle through V8's code cache (src/cli/launch.ts).
  { ...node, ...cli, entryPoints: ['src/cli/launch.ts'], outfile: 'dist/cli.js' },
  { ...node, define: { ...node.define, SESSION_LOOM_VERSION: JSON.stringify(version) }, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cliMain.js', plugins: [sqliteGlueRequire] },
  // The thread the extension reads and holds sessions in (src/core/engine/worker/).
  { ...node, entryPoints: ['src/core/engine/worker/modelWorker.ts'], outfile: 'dist/modelWorker.js' },
  // The search index's worker thread (src/extension/search/indexClient.ts starts it beside dist/extension.js).
  { ...node, entryPoints: ['src/core/search/indexWorker.ts'], outfile: 'dist/searchWorker.js' },
  // The read-ahead thread of a bulk index update, started by searchWorker.js and cli.js (indexReadAhead.ts).
  { ...node, entryPoints: ['src/core/search/indexReadWorker.ts'], outfile: 'dist/searchReadWorker.js' },
  {
    ...common,
    entryPoints: { main: 'webview/main.ts' },
    // Minified in development too: the editor's page carries this bundle inline, and on each open
    // the extension host serializes and compresses the whole page (unminified, 560 KB: 40–80 ms of
    // its thread in a CPU profile; 330 KB minified). The tests then run what ships.
    // (SESSION_LOOM_WEBVIEW_UNMINIFIED=1: names a CPU profile of the page can be read by.)
    minify: !process.env.SESSION_LOOM_WEBVIEW_UNMINIFIED,
    // When the bundle's first statement runs (the editor's log: its parse and compile come before).
    banner: { js: 'globalThis.slBundleStart=performance.now();' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    loader: { '.css': 'css' },
  },
  // The host of an exported HTML page (src/core/export/htmlExport.ts): a classic script that plays
  // VS Code's part for the same webview bundle.
  { ...common, entryPoints: { exportHost: 'webview/exportHost.ts' }, outdir: 'dist/webview', platform: 'browser', format: 'iife', target: 'es2022' },
];

// The integration suite is compiled only for development builds; it never ships.
if (!production) {
  builds.push({
    ...node,
    entryPoints: ['test/integration/suite/index.ts'],
    outfile: 'out/test/suite/index.js',
    external: ['vscode', 'mocha', 'playwright-core'],
    sourcemap: 'inline',
  });
  // Writes the big generated sessions the suite opens, outside the extension host.
  builds.push({ ...node, entryPoints: ['test/integration/generateSession.ts'], outfile: 'out/test/generateSession.js' });
  builds.push({ ...node, entryPoints: ['test/integration/generateClaude.ts'], outfile: 'out/test/generateClaude.js' });
}

const present = builds.filter((b) => {
  const entries = Array.isArray(b.entryPoints) ? b.entryPoints : Object.values(b.entryPoints);
  return entries.every((e) => existsSync(join(root, e)));
});

// A production build starts from an empty dist/: a stale .map or bundle from a development
// build would otherwise ship in the VSIX (.vscodeignore lets all of dist/webview/ through).
if (production) rmSync(join(root, 'dist'), { recursive: true, force: true });
// The codicons the webview draws, and only those (scripts/codicons.mjs says why).
await writeCodiconSubset(root);
// The SQLite WASM binary the dsh store reader loads from beside the bundle (scripts/esbuild-node.mjs).
copySqliteWasm(root, join(root, 'dist'));
if (watch) {
  for (const b of present) {
    const ctx = await esbuild.context(b);
    await ctx.watch();
  }
} else {
  const started = Date.now();
  const results = await Promise.all(present.map((b) => esbuild.build(b)));
  const size = (bytes) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`);
  const outputs = results.flatMap((r) => Object.entries(r.metafile?.outputs ?? {})).filter(([file]) => !file.endsWith('.map'));
  console.log(`[build] ${production ? 'production' : 'development'}: ${outputs.map(([file, o]) => `${file} ${size(o.bytes)}`).join(', ')} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
