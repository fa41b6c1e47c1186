// What every Node bundle (dist/extension.js, dist/cli.js, and the bundles tests make) needs for
// the WASM it carries, shared by esbuild.mjs and test/cli/dshBundle.test.ts so they cannot drift.
//
// @sqlite.org/sqlite-wasm is an ES module that finds itself through import.meta.url, which a
// CommonJS bundle does not have: it is defined as the bundle's own file URL (injected by
// scripts/import-meta-url.js, inside the bundle, so its "use strict" stays first), and
// sqlite3.wasm is copied next to the bundle, where src/core/store/sqliteWasm.ts looks first.
// xxhash-wasm and fzstd need nothing: the former inlines its WASM, the latter is plain code.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * For a bundle run through `vm.Script` (the CLI's, dist/cliMain.js, which src/cli/launch.ts runs
 * with V8's code cache): the library's Node glue loads `node:module` with a dynamic `import()`,
 * which a CommonJS bundle keeps as is, and such code cannot run one without an experimental flag.
 * Node's `require` does the same there. The build fails if the library stops matching. (A plugin:
 * esbuild's buildSync, which tests and benches use for the other bundles, takes none.)
 */
export const sqliteGlueRequire = {
  name: 'sqlite-wasm-require',
  setup(build) {
    build.onLoad({ filter: /@sqlite\.org[\\/]sqlite-wasm[\\/]dist[\\/]node\.mjs$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(args.path, 'utf8');
      const from = 'await import("node:module")';
      if (!text.includes(from) || text.includes('import(', text.indexOf(from) + from.length)) return { errors: [{ text: `${args.path}: expected one ${from} and no other import(): scripts/esbuild-node.mjs needs updating` }] };
      return { contents: text.replace(from, '__node_require("node:module")'), loader: 'js' };
    });
  },
};

/** esbuild options for a CommonJS bundle run by Node. `shebang` puts `#!/usr/bin/env node` first. */
export function nodeBundleOptions({ shebang = false } = {}) {
  return {
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    define: { 'import.meta.url': '__import_meta_url' },
    inject: [join(here, 'import-meta-url.js')],
    ...(shebang ? { banner: { js: '#!/usr/bin/env node' } } : {}),
  };
}

/** Copies sqlite3.wasm into `dir` (next to the bundles). */
export function copySqliteWasm(root, dir) {
  const require = createRequire(join(root, 'package.json'));
  mkdirSync(dir, { recursive: true });
  copyFileSync(require.resolve('@sqlite.org/sqlite-wasm/sqlite3.wasm'), join(dir, 'sqlite3.wasm'));
}
