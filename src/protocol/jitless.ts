// zod v4 probes `new Function('')` when the first object schema is defined, to decide whether it
// may JIT-compile parsers. Inside the webview our CSP forbids eval, so the probe would log a CSP
// violation on every open. The webview entry imports this module first, before any schema exists.
// A namespace import: esbuild then drops what is never used (zod's locales alone are ~300 KB).
import * as z from 'zod/mini';

z.config({ jitless: true });
