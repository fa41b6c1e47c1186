// Injected into the CommonJS bundles (scripts/esbuild-node.mjs): `import.meta.url` for the ES
// modules bundled into them (@sqlite.org/sqlite-wasm), as the bundle's own file URL.
export var __import_meta_url = require('url').pathToFileURL(__filename).href;
// And Node's require, under a name no bundled module declares: the library's `import("node:module")`
// becomes a call to it (scripts/esbuild-node.mjs), where its own `var require` would shadow `require`.
export var __node_require = require;
