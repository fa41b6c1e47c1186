// The extension host's side of the search index: a worker thread (dist/searchWorker.js, see
// src/core/search/indexWorker.ts) that owns the index in the extension's global storage, one
// index per set of session roots. Everything heavy (reading sessions, FTS5) runs there; this side
// only sends requests. A worker that dies is started again on the next request.
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RpcClient } from '../../core/engine/rpc';
import { indexPathFor } from '../../core/search/indexDb';
import type { EntryHit } from '../../core/search/indexQuery';
import type { UpdateProgress, UpdateStats } from '../../core/search/indexUpdate';
import type { IndexProgressMessage } from '../../core/search/indexWorker';
import type { SearchOutcome } from '../../core/search/searchIndex';

export class SearchIndexClient {
  private worker: Worker | undefined;
  private rpc: RpcClient | undefined;
  private openPath: string | undefined;
  private nextCall = 1;
  private readonly progress = new Map<string, (p: UpdateProgress) => void>();

  /** `storageDir`: where indexes live (the extension's global storage). */
  constructor(
    private readonly storageDir: string,
    private readonly workerFile = path.join(__dirname, 'searchWorker.js'),
  ) {}

  private start(): RpcClient {
    if (this.rpc) return this.rpc;
    const worker = new Worker(this.workerFile);
    const rpc = new RpcClient(worker);
    worker.on('message', (m: IndexProgressMessage) => {
      if (m && m.kind === 'progress') this.progress.get(m.call)?.(m.progress);
    });
    const down = (why: string): void => {
      if (this.worker !== worker) return;
      rpc.failAll(new Error(`the search worker stopped (${why})`));
      rpc.close();
      this.worker = undefined;
      this.rpc = undefined;
      this.openPath = undefined;
    };
    worker.on('error', (e) => down(e.message));
    worker.on('exit', (code) => down(`exit ${code}`));
    // The worker must not keep the extension host alive on its own.
    worker.unref();
    this.worker = worker;
    this.rpc = rpc;
    return rpc;
  }

  /** Opens the index of these roots in the worker; true when it starts empty (a first build). */
  async open(roots: readonly string[]): Promise<boolean> {
    const rpc = this.start();
    const p = indexPathFor(this.storageDir, roots);
    if (this.openPath === p) return false;
    const { fresh } = await rpc.call<{ fresh: boolean }>('open', { path: p });
    this.openPath = p;
    return fresh;
  }

  async update(roots: readonly string[], onProgress?: (p: UpdateProgress) => void, signal?: AbortSignal): Promise<UpdateStats> {
    await this.open(roots);
    const call = `u${this.nextCall++}`;
    if (onProgress) this.progress.set(call, onProgress);
    try {
      return await this.rpc!.call<UpdateStats>('update', { roots: [...roots], call }, signal);
    } finally {
      this.progress.delete(call);
    }
  }

  async updateFiles(roots: readonly string[], paths: readonly string[]): Promise<UpdateStats> {
    await this.open(roots);
    return this.rpc!.call<UpdateStats>('updateFiles', { paths: [...paths] });
  }

  async search(roots: readonly string[], query: string, opts: { entriesPerSession?: number; detailedSessions?: number } = {}): Promise<SearchOutcome> {
    await this.open(roots);
    return this.rpc!.call<SearchOutcome>('search', { query, ...opts });
  }

  async matchIds(roots: readonly string[], query: string, files: readonly string[]): Promise<Record<string, string[]>> {
    await this.open(roots);
    return this.rpc!.call<Record<string, string[]>>('matchIds', { query, files: [...files] });
  }

  async entryHits(roots: readonly string[], query: string, file: string, limit: number): Promise<EntryHit[]> {
    await this.open(roots);
    return this.rpc!.call<EntryHit[]>('entryHits', { query, file, limit });
  }

  dispose(): void {
    const w = this.worker;
    const rpc = this.rpc;
    this.worker = undefined;
    this.rpc = undefined;
    this.openPath = undefined;
    if (w && rpc) {
      // Close the index (releasing its lock) before the thread goes.
      void rpc.call('close', null).finally(() => void w.terminate());
    }
  }
}
