// The model worker bundled as the build bundles it (a worker thread cannot run TypeScript through
// tsx on Node 20), in a temp folder with the SQLite WASM beside it.
import { buildSync } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './fixtures';

export async function bundleModelWorker(prefix: string): Promise<{ dir: string; workerFile: string }> {
  const { copySqliteWasm, nodeBundleOptions } = (await import(join(REPO_ROOT, 'scripts', 'esbuild-node.mjs'))) as {
    copySqliteWasm: (root: string, dir: string) => void;
    nodeBundleOptions: () => Record<string, unknown>;
  };
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const workerFile = join(dir, 'modelWorker.js');
  buildSync({ ...nodeBundleOptions(), entryPoints: [resolve(REPO_ROOT, 'src/core/engine/worker/modelWorker.ts')], outfile: workerFile, bundle: true, logLevel: 'error' });
  copySqliteWasm(REPO_ROOT, dir);
  return { dir, workerFile };
}
