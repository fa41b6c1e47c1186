// The read-ahead thread of a bulk index update (bundled as searchReadWorker.js beside the
// bundle that starts it; indexReadAhead.ts): reads whole session files into index rows, one at a
// time in the order asked, while the index's thread writes the previous ones into SQLite.
import { parentPort } from 'node:worker_threads';
import { readWholeFile, type WholeFileRows } from './indexRead';
import { lowerThisThreadPriority } from '../engine/worker/threadPriority';

// Background work: VS Code's threads come first (threadPriority.ts).
lowerThisThreadPriority();

export interface ReadRequest {
  i: number;
  path: string;
  maxRows: number;
}

export type ReadReply = { i: number; rows: WholeFileRows } | { i: number; error: string };

let chain: Promise<void> = Promise.resolve();
parentPort?.on('message', (m: ReadRequest) => {
  // One file at a time: the replies come back in the order of the requests.
  chain = chain.then(async () => {
    let reply: ReadReply;
    try {
      reply = { i: m.i, rows: await readWholeFile(m.path, m.maxRows) };
    } catch (e) {
      reply = { i: m.i, error: String((e as Error).message ?? e) };
    }
    parentPort!.postMessage(reply);
  });
});
