// The sessions a model worker holds, by handle. Opening a file that is already open (or still
// loading) shares that load: two editors of one session, or an editor and a view, cost one read
// and one copy in memory. The last release disposes the model; a release while the load is still
// running (the editor was closed) disposes it as soon as the load ends, and the opener is told
// `CancelledError` at once instead of waiting for a load nobody wants.
//
// Plain logic with no thread of its own: the worker (./modelWorker.ts) serves it, and the tests
// call it in-process too.
import { english, type Translate } from '../../l10n';
import type { SessionFormat } from '../../formats/detect';
import { CancelledError } from '../rpc';
import type { SessionModel } from '../model';
import { openSessionModel } from '../openModel';
import { IndexCache } from '../xcsh/lazy/indexCache';

export interface OpenParams {
  path: string;
  /** Which session of a dsh SQLite store. */
  session?: string;
  blobDir?: string;
  dshHome?: string;
  /** The display language's strings (vscode.l10n.bundle): the worker has no `vscode` to ask. */
  bundle?: Record<string, string>;
}

export interface Opened {
  handle: number;
  format: SessionFormat;
}

/** What the host may call on an opened model: the SessionModel's questions, nothing else. */
export const MODEL_METHODS = [
  'summary',
  'has',
  'defaultLeaf',
  'tree',
  'context',
  'messages',
  'cutEntries',
  'chart',
  'locate',
  'image',
  'refresh',
  'rawEntry',
  // the Sessions view's branch tree
  'segments',
  'runEntries',
  'revealPath',
  'searchHit',
] as const;
export type ModelMethod = (typeof MODEL_METHODS)[number];

export interface CallParams {
  handle: number;
  method: ModelMethod;
  args: unknown[];
}

interface Slot {
  key: string;
  /** The file (the key also names the dsh session, blob dir and dsh home). */
  path: string;
  handle: number;
  refs: number;
  model: Promise<SessionModel>;
  /** Stops the load (between chunks) once nobody waits for it. */
  loading: AbortController;
  /** How far the load has read (null: nothing reported yet, or a model that does not report). */
  read: LoadProgress | null;
  loaded: boolean;
}

export interface LoadProgress {
  bytes: number;
  total: number;
}

/** `vscode.l10n.t` over a bundle: the template translated when the bundle has it, then filled in. */
export function bundleTranslate(bundle: Record<string, string> | undefined): Translate {
  if (!bundle) return english;
  return (message, ...args) => english(bundle[message] ?? message, ...args);
}

export interface RegistryOptions {
  /** Where big sessions' indexes are kept between openings (indexCache.ts); none: not kept. */
  indexCacheDir?: string;
}

export class ModelRegistry {
  #next = 1;
  readonly #indexCache: IndexCache | undefined;

  constructor(opts: RegistryOptions = {}) {
    this.#indexCache = opts.indexCacheDir ? new IndexCache(opts.indexCacheDir) : undefined;
  }

  readonly #byKey = new Map<string, Slot>();
  readonly #byHandle = new Map<number, Slot>();

  /** How many sessions are held (loaded or loading). */
  get size(): number {
    return this.#byHandle.size;
  }

  /** The paths of the sessions held (loaded or loading), with how many opens share each: what a test asks to see a load cancelled. */
  held(): { path: string; refs: number }[] {
    return [...this.#byHandle.values()].map((s) => ({ path: s.path, refs: s.refs }));
  }

  /** How far the load of `path` has read while it is still loading (null once loaded, or when nothing is known). */
  progress(path: string): LoadProgress | null {
    for (const s of this.#byHandle.values()) {
      if (!s.loaded && s.read && s.path === path) return s.read;
    }
    return null;
  }

  async open(p: OpenParams, signal?: AbortSignal): Promise<Opened> {
    if (signal?.aborted) throw new CancelledError();
    const key = JSON.stringify([p.path, p.session ?? null, p.blobDir ?? '', p.dshHome ?? '']);
    let slot = this.#byKey.get(key);
    if (!slot) {
      const loading = new AbortController();
      const progress = (bytes: number, total: number): void => {
        created.read = { bytes, total };
      };
      const model = openSessionModel(p.path, {
        signal: loading.signal,
        onProgress: progress,
        l10nT: bundleTranslate(p.bundle),
        ...(this.#indexCache ? { indexCache: this.#indexCache } : {}),
        ...(p.blobDir ? { blobDir: p.blobDir } : {}),
        ...(p.dshHome ? { dshHome: p.dshHome } : {}),
        ...(p.session !== undefined ? { session: p.session } : {}),
      });
      // (`progress` runs after the first read chunk, by when `created` exists.)
      const created: Slot = { key, path: p.path, handle: this.#next++, refs: 0, model, loading, read: null, loaded: false };
      slot = created;
      model.then(
        () => (created.loaded = true),
        () => undefined,
      );
      this.#byKey.set(key, created);
      this.#byHandle.set(created.handle, created);
      // A failed load is not kept: the next open tries again (the file may have been fixed).
      model.catch(() => this.#drop(created));
    }
    slot.refs++;
    const held = slot;
    try {
      const model = await new Promise<SessionModel>((resolve, reject) => {
        const onAbort = (): void => reject(new CancelledError());
        signal?.addEventListener('abort', onAbort, { once: true });
        held.model.then(resolve, reject).finally(() => signal?.removeEventListener('abort', onAbort));
      });
      return { handle: held.handle, format: model.format };
    } catch (e) {
      this.release(held.handle);
      throw e;
    }
  }

  async call(p: CallParams): Promise<unknown> {
    const slot = this.#byHandle.get(p.handle);
    if (!slot) throw new Error(`no open session with handle ${p.handle}`);
    if (!(MODEL_METHODS as readonly string[]).includes(p.method)) throw new Error(`not a session model method: ${String(p.method)}`);
    const model = await slot.model;
    const fn = model[p.method] as ((...a: unknown[]) => Promise<unknown>) | undefined;
    // An optional method a format does not have answers null (e.g. rawEntry of a dsh log).
    return fn ? fn.apply(model, p.args) : null;
  }

  release(handle: number): void {
    const slot = this.#byHandle.get(handle);
    if (!slot || --slot.refs > 0) return;
    this.#drop(slot);
    slot.loading.abort();
    slot.model.then((m) => m.dispose(), () => undefined);
  }

  #drop(slot: Slot): void {
    if (this.#byHandle.get(slot.handle) === slot) this.#byHandle.delete(slot.handle);
    if (this.#byKey.get(slot.key) === slot) this.#byKey.delete(slot.key);
  }
}
