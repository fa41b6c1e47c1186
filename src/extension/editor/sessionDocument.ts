// One open session file, shared by every editor that shows it. Loads its session model in the
// model worker (the webview paints its frame first; the extension host's thread never parses
// the file) and follows the file as it grows; the panels ask the model for windows. Growth is read incrementally: only the appended tail is parsed and
// indexed (src/core/formats/xcsh/tail.ts), with a full reload whenever the file changed in any other way.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { SessionModel } from '../../core/engine/model';
import type { ModelHost } from '../../core/engine/worker/modelHost';
import type { LoadProgress } from '../../core/engine/worker/modelRegistry';
import type { SessionSummary, TailPeek } from '../../protocol/messages';
import { sessionOfUri } from '../sessions/sessionUri';
import { sessionOpenParams } from '../openParams';

/** Below this size a session loads about as fast as a peek of it would paint: no peek. */
export const PEEK_MIN_BYTES = 4 * 1024 * 1024;

/** Appends usually come in bursts (a tool call and its result): reload once they settle. */
const RELOAD_DEBOUNCE_MS = 250;

/** The loaded model and the summary of its current state. */
export interface Loaded {
  model: SessionModel;
  summary: SessionSummary;
}

export class SessionDocument implements vscode.CustomDocument {
  private current: Promise<Loaded>;
  private watcher: fs.FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private lastSize = -1;
  private lastMtime = -1;
  private disposed = false;
  private readonly changed = new vscode.EventEmitter<Loaded>();
  /** Fires after the file changed on disk and was reloaded. */
  readonly onDidReload = this.changed.event;
  /** When the document was opened, for the open → first paint measurement. */
  readonly openedAt = performance.now();

  constructor(
    readonly uri: vscode.Uri,
    private readonly models: ModelHost,
  ) {
    this.current = this.load();
    this.current.then(
      () => (this.#settled = true),
      () => (this.#settled = true),
    );
    // Read while the webview boots, so it is there when the webview can paint it.
    void this.peek();
    this.watch();
  }

  #peek: Promise<TailPeek | null> | undefined;

  /**
   * The latest messages of a big file, read from its last bytes while the worker indexes it (null
   * for a small file: it loads before a peek would paint). Read once per document.
   */
  peek(): Promise<TailPeek | null> {
    this.#peek ??= fs.promises.stat(this.filePath).then(
      (st) => (st.size >= PEEK_MIN_BYTES && sessionOfUri(this.uri) === undefined ? this.models.peek(this.filePath).catch(() => null) : null),
      () => null,
    );
    return this.#peek;
  }

  /** How far the worker has read this session while it loads (null once loaded or when unknown). */
  progress(): Promise<LoadProgress | null> {
    return this.models.progress(this.filePath).catch(() => null);
  }

  get filePath(): string {
    return this.uri.fsPath;
  }

  loaded(): Promise<Loaded> {
    return this.current;
  }

  /** Whether the session's first load has settled (loaded or failed). */
  get settled(): boolean {
    return this.#settled;
  }

  #settled = false;

  private async load(): Promise<Loaded> {
    const st = await fs.promises.stat(this.filePath).catch(() => null);
    this.lastSize = st?.size ?? -1;
    this.lastMtime = st?.mtimeMs ?? -1;
    const model = await this.models.open(sessionOpenParams(this.filePath, sessionOfUri(this.uri)));
    if (this.disposed) model.dispose();
    const summary = await model.summary();
    // What a new editor asks first — the default leaf's context and the tree under the default
    // filter — computed while its webview is still booting; the answers are then the worker's
    // cached ones (a first tree of a 1M-entry session is ~0.3 s of layout).
    if (!this.disposed) {
      void model.context(null).catch(() => undefined);
      void model.tree({ filter: 'default', search: '', leafId: null, focusEntryId: null, start: 0, count: 0 }).catch(() => undefined);
    }
    return { model, summary };
  }

  /**
   * fs.watch on the file itself (agents append in place); a slow stat poll backs it up, since
   * some file systems (network mounts, some containers) deliver no events.
   */
  private watch(): void {
    try {
      this.watcher = fs.watch(this.filePath, { persistent: false }, () => this.scheduleReload());
      this.watcher.on('error', () => undefined);
    } catch {
      // no watcher: the poll below still notices growth
    }
    this.pollTimer = setInterval(() => {
      fs.stat(this.filePath, (err, st) => {
        if (!err && (st.size !== this.lastSize || st.mtimeMs !== this.lastMtime)) this.scheduleReload();
      });
    }, 2_000);
    this.pollTimer.unref?.();
  }

  private scheduleReload(): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.reload(), RELOAD_DEBOUNCE_MS);
  }

  private async reload(): Promise<void> {
    let st: fs.Stats;
    try {
      st = await fs.promises.stat(this.filePath);
    } catch {
      return; // deleted or moved: keep showing what we have
    }
    if (st.size === this.lastSize && st.mtimeMs === this.lastMtime) return;
    this.lastSize = st.size;
    this.lastMtime = st.mtimeMs;
    try {
      const prev = await this.current.catch(() => undefined);
      if (!prev) {
        this.current = this.load();
        this.changed.fire(await this.current);
        return;
      }
      const r = await prev.model.refresh();
      if (r.kind === 'unchanged') return;
      const loaded = { model: prev.model, summary: r.summary };
      this.current = Promise.resolve(loaded);
      this.changed.fire(loaded);
    } catch {
      // a half-written state that fails to load: the next change retries
    }
  }

  dispose(): void {
    this.disposed = true;
    // The load is not cancelled here: VS Code can hand a document it is closing to the next editor
    // of the same file (a close and a reopen in quick succession got a cancelled load and never
    // painted). A load that finishes after the close releases its model at once (load()).
    this.watcher?.close();
    clearInterval(this.pollTimer);
    clearTimeout(this.reloadTimer);
    this.changed.dispose();
    void this.current.then((l) => l.model.dispose(), () => undefined);
  }
}
