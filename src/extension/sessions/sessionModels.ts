// The sessions the Sessions view has opened, as models in the model worker (issue 11): the view
// asks them for its rows (segments, pages of runs, reveal paths, search counts) and its tooltips
// (their summaries), and the extension host never parses a session. A session is opened when its
// row is expanded, hovered or revealed, or while a search looks at it.
//
// What is kept: the sessions a row shows expanded, or a search holds as results; besides those at
// most `keepIdle` others, least recently used first out (a collapsed row, a hovered one), so the
// worker does not hold every session the user ever looked at. Collapsing a row whose load still
// runs aborts the load (the worker's registry stops it unless another opener, the editor on the
// same file, waits for it too). No `vscode` here: the unit tests run it against a real worker.
import type { SessionModel } from '../../core/engine/model';
import { CancelledError } from '../../core/engine/rpc';
import type { SessionSummary } from '../../protocol/messages';

export { CancelledError };

/** One opened session as the view knows it: its model and the summary of the state it last read. */
export interface ViewSession {
  readonly file: string;
  readonly model: SessionModel;
  readonly summary: SessionSummary;
  /** size:mtime:revision of that state: what memoised rows are keyed by. */
  readonly stamp: string;
}

/** Opens a session's model (the extension: ModelHost.open with the editor's parameters). */
export type OpenModel = (file: string, signal: AbortSignal) => Promise<SessionModel>;

/** Why a session is kept: its row is expanded, or a search shows it as a result. */
export type HoldReason = 'expanded' | 'search';

interface Slot {
  file: string;
  abort: AbortController;
  /** The load, or the refresh after a change on disk. */
  pending: Promise<ViewSession>;
  ready: ViewSession | undefined;
  /** The file changed on disk since `ready` was read: the next `get` refreshes the model. */
  stale: boolean;
  holds: Set<HoldReason>;
}

function stampOf(s: SessionSummary): string {
  return `${s.sizeBytes}:${s.modified ?? ''}:${s.revision}`;
}

export class SessionModels {
  readonly #slots = new Map<string, Slot>();
  /** Files of loaded slots nobody holds, least recently used first. */
  readonly #idle: string[] = [];
  #disposed = false;

  constructor(
    private readonly open: OpenModel,
    readonly keepIdle = 8,
  ) {}

  /** The session if loaded and current, without loading. */
  peek(file: string): ViewSession | undefined {
    const slot = this.#slots.get(file);
    return slot && !slot.stale ? slot.ready : undefined;
  }

  /** Whether the file is open (or opening) here, current or not. */
  isKnown(file: string): boolean {
    return this.#slots.has(file);
  }

  /** Why the session is kept (a row expanded, a search's results); empty when only idle or unknown. */
  holdsOf(file: string): HoldReason[] {
    return [...(this.#slots.get(file)?.holds ?? [])];
  }

  /** How many sessions are open or opening (tests). */
  get size(): number {
    return this.#slots.size;
  }

  /** The session, opened (or its running load joined), refreshed first when its file changed. */
  get(file: string): Promise<ViewSession> {
    if (this.#disposed) return Promise.reject(new Error('the Sessions view was closed'));
    let slot = this.#slots.get(file);
    if (slot?.stale && slot.ready) {
      slot.stale = false;
      slot.pending = this.#refresh(slot, slot.ready);
    }
    if (!slot) {
      const created: Slot = { file, abort: new AbortController(), pending: undefined as never, ready: undefined, stale: false, holds: new Set() };
      slot = created;
      this.#slots.set(file, created);
      created.pending = this.#load(created);
    }
    this.#touch(slot);
    return slot.pending;
  }

  async #load(slot: Slot): Promise<ViewSession> {
    let model: SessionModel | undefined;
    try {
      model = await this.open(slot.file, slot.abort.signal);
      if (this.#slots.get(slot.file) !== slot) throw new CancelledError();
      const summary = await model.summary();
      if (this.#slots.get(slot.file) !== slot) throw new CancelledError();
      const ready = { file: slot.file, model, summary, stamp: stampOf(summary) };
      slot.ready = ready;
      this.#trim();
      return ready;
    } catch (e) {
      // A released slot's model is nobody's; a failed load is not kept (the next get tries again).
      model?.dispose();
      if (this.#slots.get(slot.file) === slot) this.#drop(slot);
      throw e;
    }
  }

  async #refresh(slot: Slot, before: ViewSession): Promise<ViewSession> {
    try {
      // The model reads only what was appended when the file grew (the worker's refresh).
      const { summary } = await before.model.refresh();
      if (this.#slots.get(slot.file) !== slot) throw new CancelledError();
      const ready = { file: slot.file, model: before.model, summary, stamp: stampOf(summary) };
      slot.ready = ready;
      return ready;
    } catch (e) {
      if (this.#slots.get(slot.file) === slot) this.#drop(slot);
      throw e;
    }
  }

  /** The file changed on disk: the next `get` refreshes its model (`peek` sees nothing until then). */
  invalidate(file: string): void {
    const slot = this.#slots.get(file);
    if (slot?.ready) slot.stale = true;
  }

  /** Keeps the session open for this reason (until `unhold`). */
  hold(file: string, why: HoldReason): void {
    const slot = this.#slots.get(file);
    if (!slot) return;
    slot.holds.add(why);
    this.#touch(slot);
  }

  /**
   * Lets go of one reason to keep the session. Unheld, a loaded session joins the idle ones (the
   * oldest beyond `keepIdle` is released); one still loading is cancelled.
   */
  unhold(file: string, why: HoldReason): void {
    const slot = this.#slots.get(file);
    if (!slot || !slot.holds.delete(why) || slot.holds.size > 0) return;
    if (!slot.ready) {
      this.release(file);
      return;
    }
    this.#touch(slot);
    this.#trim();
  }

  /** Forgets a session: its load is aborted, its model released in the worker. */
  release(file: string): void {
    const slot = this.#slots.get(file);
    if (!slot) return;
    this.#drop(slot);
    slot.abort.abort();
    slot.ready?.model.dispose();
  }

  /** Forgets every session (the view is refreshed from scratch). */
  clear(): void {
    for (const file of [...this.#slots.keys()]) this.release(file);
  }

  dispose(): void {
    this.clear();
    this.#disposed = true;
  }

  #drop(slot: Slot): void {
    this.#slots.delete(slot.file);
    const i = this.#idle.indexOf(slot.file);
    if (i !== -1) this.#idle.splice(i, 1);
  }

  /** Moves a session to the recent end of the idle list when nobody holds it. */
  #touch(slot: Slot): void {
    const i = this.#idle.indexOf(slot.file);
    if (i !== -1) this.#idle.splice(i, 1);
    if (slot.holds.size === 0) this.#idle.push(slot.file);
  }

  /** Releases the least recently used idle sessions beyond `keepIdle` (loaded ones only: a load in flight has a waiter). */
  #trim(): void {
    let excess = this.#idle.length - this.keepIdle;
    for (let i = 0; excess > 0 && i < this.#idle.length; ) {
      const slot = this.#slots.get(this.#idle[i]!);
      if (slot?.ready && slot.holds.size === 0) {
        this.release(slot.file);
        excess--;
      } else i++;
    }
  }
}
