// The extension host's side of the model worker (./modelWorker.ts): one worker thread holds every
// opened session, and each opened session is a `SessionModel` here whose calls cross the port.
// The host thread only posts requests and receives small, display-shaped answers (a window of
// rows or messages), so opening a 1M-entry session costs it nothing but waiting.
//
// A worker that dies (out of memory on a huge file, a crash) fails the calls in flight with a clear
// error; the next call of a model opens its session again in a new worker, once.
import { Worker } from 'node:worker_threads';
import type { SessionFormat } from '../../formats/detect';
import type { ChartData, ContextInfo, MessageView, SessionSummary } from '../../../protocol/messages';
import type { BranchQuery, BranchSegment, ImageResult, RefreshOutcome, RevealStep, RunEntry, SessionModel, TreeParams, TreeResult } from '../model';
import { CancelledError, RpcClient } from '../rpc';
import type { LoadProgress, ModelMethod, OpenParams, Opened } from './modelRegistry';
import type { TailPeek } from '../xcsh/tailPeek';

export { CancelledError };
export type { TailPeek };

interface Connection {
  worker: Worker;
  rpc: RpcClient;
  /** Counts workers started, so a model knows its handle belongs to a worker that is gone. */
  generation: number;
}

export interface ModelHostOptions {
  /** The worker's script (dist/modelWorker.js beside the extension's bundle). */
  workerFile: string;
  /** Extra Node flags for the worker (the unit tests pass `--import tsx`). */
  execArgv?: string[];
  /** The worker's heap limit in MB (default: Node's, from the machine's memory). */
  maxOldGenerationSizeMb?: number;
  /** Where the worker keeps big sessions' indexes between openings (indexCache.ts); none: not kept. */
  indexCacheDir?: string;
}

/**
 * The worker's heap: its young generation is kept small. Reading a session allocates a stream of
 * short-lived strings and objects, and V8 otherwise grows the young generation to its maximum
 * (~16 MB of semi-spaces per thread) before collecting: on a 7.6 MB dsh log that alone is 2× the
 * log. Capped, the same load costs half the memory and no time (measured by `npm run bench:dsh`,
 * which loads in a worker with these limits).
 */
export const MODEL_WORKER_LIMITS = { maxYoungGenerationSizeMb: 6 } as const;

export class ModelHost {
  #conn: Connection | undefined;
  #generation = 0;
  #disposed = false;

  constructor(private readonly options: ModelHostOptions) {}

  /** Where the worker keeps big sessions' indexes (undefined: not kept). */
  get indexCacheDir(): string | undefined {
    return this.options.indexCacheDir;
  }

  #connect(): Connection {
    if (this.#disposed) throw new Error('the session worker was shut down');
    if (this.#conn) return this.#conn;
    const worker = new Worker(this.options.workerFile, {
      ...(this.options.execArgv ? { execArgv: this.options.execArgv } : {}),
      ...(this.options.indexCacheDir ? { workerData: { indexCacheDir: this.options.indexCacheDir } } : {}),
      resourceLimits: { ...MODEL_WORKER_LIMITS, ...(this.options.maxOldGenerationSizeMb ? { maxOldGenerationSizeMb: this.options.maxOldGenerationSizeMb } : {}) },
    });
    const conn: Connection = { worker, rpc: new RpcClient(worker), generation: ++this.#generation };
    const down = (why: string): void => {
      if (this.#conn !== conn) return;
      this.#conn = undefined;
      conn.rpc.failAll(new Error(`The session worker stopped (${why}); the session is read again on the next request.`));
      conn.rpc.close();
    };
    worker.on('error', (e) => down(e.message));
    worker.on('exit', (code) => down(`exit code ${code}`));
    // An idle worker must not keep the process (a CLI run, a test) alive; a call waiting for an
    // answer must (see #track).
    worker.unref();
    this.#conn = conn;
    return conn;
  }

  #inFlight = 0;

  /** @internal a call on the worker: the worker is referenced while any is waiting. */
  async track<T>(conn: Connection, method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    if (this.#inFlight++ === 0) conn.worker.ref();
    try {
      return await conn.rpc.call<T>(method, params, signal);
    } finally {
      if (--this.#inFlight === 0) this.#conn?.worker.unref();
    }
  }

  /** Opens a session in the worker (or joins a load of it already running). */
  async open(params: OpenParams, signal?: AbortSignal): Promise<SessionModel> {
    const conn = this.#connect();
    const opened = await this.track<Opened>(conn, 'open', params, signal);
    return new RemoteSessionModel(this, params, opened, conn.generation);
  }

  /** A session file's message count (`countMessages`), read in the worker. */
  countMessages(file: string): Promise<number> {
    return this.track<number>(this.#connect(), 'countMessages', { file });
  }

  /**
   * The latest messages of a session file and its header facts, from its first and last bytes
   * (tailPeek.ts): what the editor paints while the worker is still indexing the file.
   */
  peek(file: string): Promise<TailPeek | null> {
    return this.track<TailPeek | null>(this.#connect(), 'peek', { file });
  }

  /** How far the worker's load of `file` has read; null when it is not loading (or its model does not say). */
  async progress(file: string): Promise<LoadProgress | null> {
    const conn = this.#conn;
    return conn ? this.track<LoadProgress | null>(conn, 'progress', { file }) : null;
  }

  /** Starts the worker before its first call: loading its bundle is then off the first open's path. */
  warm(): void {
    this.#connect();
  }

  /**
   * The sessions the worker holds (loaded or loading) and how many opens share each; none when no
   * worker runs. For tests: a load nobody waits for any more is no longer held.
   */
  async held(): Promise<{ path: string; refs: number }[]> {
    const conn = this.#conn;
    return conn ? this.track(conn, 'held', {}) : [];
  }

  /** @internal the connection a model's call goes through, and whether it is still the model's. */
  connection(): Connection {
    return this.#connect();
  }

  /** @internal the running connection, without starting one. */
  current(): Connection | undefined {
    return this.#conn;
  }

  /** @internal */
  async reopen(params: OpenParams): Promise<{ opened: Opened; generation: number }> {
    const conn = this.#connect();
    return { opened: await this.track<Opened>(conn, 'open', params), generation: conn.generation };
  }

  /** The worker's thread id while it runs (tests check that loads happen there). */
  get threadId(): number | undefined {
    return this.#conn?.worker.threadId;
  }

  /** Stops the worker: every model is gone with it. */
  dispose(): void {
    this.#disposed = true;
    const conn = this.#conn;
    this.#conn = undefined;
    if (conn) {
      conn.rpc.failAll(new Error('the session worker was shut down'));
      conn.rpc.close();
      void conn.worker.terminate();
    }
  }
}

/** A session opened in the worker, asked through the port. */
class RemoteSessionModel implements SessionModel {
  #handle: number;
  #generation: number;
  #disposed = false;
  #lastRevision: number | undefined;

  constructor(
    private readonly host: ModelHost,
    private readonly params: OpenParams,
    opened: Opened,
    generation: number,
  ) {
    this.#handle = opened.handle;
    this.#generation = generation;
    this.format = opened.format;
  }

  readonly format: SessionFormat;

  get path(): string {
    return this.params.path;
  }

  async #call<T>(method: ModelMethod, ...args: unknown[]): Promise<T> {
    if (this.#disposed) throw new Error('this session was closed');
    let conn = this.host.connection();
    if (conn.generation !== this.#generation) {
      // The worker that held this session is gone: open it again in the new one.
      const { opened, generation } = await this.host.reopen(this.params);
      this.#handle = opened.handle;
      this.#generation = generation;
      conn = this.host.connection();
    }
    return this.host.track<T>(conn, 'call', { handle: this.#handle, method, args });
  }

  async summary(): Promise<SessionSummary> {
    const s = await this.#call<SessionSummary>('summary');
    this.#lastRevision = s.revision;
    return s;
  }
  has(nodeId: string): Promise<boolean> {
    return this.#call('has', nodeId);
  }
  defaultLeaf(): Promise<string | null> {
    return this.#call('defaultLeaf');
  }
  tree(p: TreeParams): Promise<TreeResult> {
    return this.#call('tree', p);
  }
  context(leafId: string | null): Promise<ContextInfo> {
    return this.#call('context', leafId);
  }
  messages(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    return this.#call('messages', leafId, start, count);
  }
  cutEntries(leafId: string | null, start: number, count: number): Promise<MessageView[]> {
    return this.#call('cutEntries', leafId, start, count);
  }
  chart(leafId: string | null): Promise<ChartData> {
    return this.#call('chart', leafId);
  }
  locate(leafId: string | null, entryId: string): Promise<{ messageIndex: number | null; cutIndex: number | null }> {
    return this.#call('locate', leafId, entryId);
  }
  image(entryId: string, blockIndex: number): Promise<ImageResult> {
    return this.#call('image', entryId, blockIndex);
  }
  rawEntry(entryId: string): Promise<unknown> {
    return this.#call('rawEntry', entryId);
  }
  // The branch queries of an xcsh model (a dsh model has none: the worker answers null).
  segments(q: BranchQuery, under: string | null): Promise<BranchSegment[]> {
    return this.#call('segments', q, under);
  }
  runEntries(q: BranchQuery, firstId: string, start: number, count: number): Promise<RunEntry[]> {
    return this.#call('runEntries', q, firstId, start, count);
  }
  revealPath(q: BranchQuery, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null> {
    return this.#call('revealPath', q, entryId);
  }
  searchHit(q: BranchQuery): Promise<{ entryMatches: number }> {
    return this.#call('searchHit', q);
  }
  async refresh(): Promise<RefreshOutcome> {
    const r = await this.#call<RefreshOutcome>('refresh');
    // The model may be shared with another holder that refreshed it first: what is new to this
    // holder is what it has not seen, whoever read it.
    const seen = this.#lastRevision;
    this.#lastRevision = r.summary.revision;
    return r.kind === 'unchanged' && seen !== undefined && seen !== r.summary.revision ? { ...r, kind: 'reloaded' } : r;
  }
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const conn = this.host.current();
    if (conn?.generation === this.#generation) void conn.rpc.call('release', { handle: this.#handle }).catch(() => undefined);
  }
}
