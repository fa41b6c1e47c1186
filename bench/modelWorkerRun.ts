// Runs a bundled measuring script the way the extension runs a session load: in a worker thread
// with the model worker's heap limits (MODEL_WORKER_LIMITS), in a fresh process. Returns the
// script's last stdout line (its JSON figures).
import { execFileSync } from 'node:child_process';
import { MODEL_WORKER_LIMITS } from '../src/core/engine/worker/modelHost';

export function lastLineInModelWorker(script: string, args: string[]): string {
  const code = `const { Worker } = require('node:worker_threads');
const w = new Worker(${JSON.stringify(script)}, { argv: ${JSON.stringify(args)}, resourceLimits: ${JSON.stringify(MODEL_WORKER_LIMITS)} });
w.on('error', (e) => { console.error(e); process.exit(1); });`;
  const out = execFileSync(process.execPath, ['-e', code], { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim().split('\n').pop()!;
}
