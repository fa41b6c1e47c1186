// The indexing worker (bundled as dist/searchWorker.js): the search index opened, updated and
// queried off the extension host's thread, over the request/response channel of
// src/core/engine/rpc.ts. Progress of an update goes out as separate `progress` messages (the
// channel itself has one answer per call). Each window's extension host runs one such worker.
import { parentPort } from 'node:worker_threads';
import { serve } from '../engine/rpc';
import type { UpdateProgress } from './indexUpdate';
import { SessionSearchIndex } from './searchIndex';
import { lowerThisThreadPriority } from '../engine/worker/threadPriority';

// Background work: VS Code's threads come first (threadPriority.ts).
lowerThisThreadPriority();

export interface IndexProgressMessage {
  kind: 'progress';
  call: string;
  progress: UpdateProgress;
}

// The integration tests make the first build commit in small batches, to see queries answered
// between them (a real build commits every 64 MB, which their few sessions never reach).
const batchBytes = Number(process.env.SESSION_LOOM_SEARCH_BATCH_BYTES) || undefined;

let index: SessionSearchIndex | null = null;
let indexPath = '';

function need(): SessionSearchIndex {
  if (!index) throw new Error('the search index is not open');
  return index;
}

export const handlers = {
  /** Opens the index at `path` (closing another). Returns whether it starts empty. */
  async open(p: unknown): Promise<{ fresh: boolean }> {
    const { path } = p as { path: string };
    if (index && indexPath === path) return { fresh: false };
    index?.close();
    index = null;
    index = await SessionSearchIndex.open(path);
    indexPath = path;
    return { fresh: index.fresh };
  },
  async update(p: unknown, signal: AbortSignal) {
    const { roots, call } = p as { roots: string[]; call: string };
    return need().update(roots, {
      signal,
      ...(batchBytes ? { batchBytes } : {}),
      onProgress: (progress) => parentPort?.postMessage({ kind: 'progress', call, progress } satisfies IndexProgressMessage),
    });
  },
  async updateFiles(p: unknown) {
    return need().updateFiles((p as { paths: string[] }).paths);
  },
  async search(p: unknown) {
    const { query, entriesPerSession, detailedSessions } = p as { query: string; entriesPerSession?: number; detailedSessions?: number };
    return need().search(query, { entriesPerSession: entriesPerSession ?? 0, detailedSessions: detailedSessions ?? 0 });
  },
  async matchIds(p: unknown) {
    const { query, files } = p as { query: string; files: string[] };
    const out: Record<string, string[]> = {};
    for (const f of files) out[f] = need().matchIds(query, f);
    return out;
  },
  async entryHits(p: unknown) {
    const { query, file, limit } = p as { query: string; file: string; limit: number };
    return need().entryHits(query, file, limit);
  },
  async close() {
    index?.close();
    index = null;
    return null;
  },
};

if (parentPort) serve(parentPort, handlers);
