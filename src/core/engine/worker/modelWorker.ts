// The thread that holds opened sessions for the extension (issue 11: the extension host's event
// loop never stalls on a load). It opens session models with the same `openSessionModel` the CLI
// and the tests call in-process and answers the host's calls on them through the rpc module, so
// what the editor shows is computed by exactly the code the tests check.
//
// Bundled as dist/modelWorker.js; the host side is ./modelHost.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { countSessionMessages, peekSessionFile } from '../openModel';
import { serve } from '../rpc';
import { ModelRegistry, type CallParams, type OpenParams } from './modelRegistry';
import { lowerThisThreadPriority } from './threadPriority';

if (!parentPort) throw new Error('modelWorker.js runs as a worker thread');
lowerThisThreadPriority();
const { indexCacheDir } = (workerData ?? {}) as { indexCacheDir?: string };
const registry = new ModelRegistry(indexCacheDir ? { indexCacheDir } : {});
serve(parentPort, {
  open: (p, signal) => registry.open(p as OpenParams, signal),
  call: (p) => registry.call(p as CallParams),
  release: async (p) => registry.release((p as { handle: number }).handle),
  // The Sessions view's message count of a row, read in full off the host's thread.
  countMessages: (p) => countSessionMessages((p as { file: string }).file),
  // The editor's first paint of a big session: served between the index's reads of an open.
  peek: (p) => peekSessionFile((p as { file: string }).file),
  // How far a load has read: the editor says so while a big session is read.
  progress: async (p) => registry.progress((p as { file: string }).file),
  // What the worker holds (tests check that a cancelled load is let go).
  held: async () => registry.held(),
});
