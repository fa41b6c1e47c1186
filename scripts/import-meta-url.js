// Injected into the CommonJS bundles (scripts/esbuild-node.mjs): `import.meta.url` for the ES
// modules bundled into them (@sqlite.org/sqlite-wasm), as the bundle's own file URL.
export var __import_meta_url = require('url').pathToFileURL(__filename).href;
