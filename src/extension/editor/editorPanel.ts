// One webview showing a SessionDocument: validates what the webview sends, answers its requests
// from the document's session model, and forwards reloads and leaf selections to it.
import * as vscode from 'vscode';
import {
  HostToWebviewSchema,
  MESSAGE_PAGE,
  TREE_PAGE,
  WebviewToHostSchema,
  type HostToWebview,
  type Method,
  type RequestMessage,
  type Result,
} from '../../protocol/messages';
import { migrateSession, openRawJsonl, revealInSessions } from './editorCommands';
import type { SessionDocument } from './sessionDocument';
import { trackEditor } from './editorSelection';

export interface PanelHooks {
  /** A leaf selection waiting for a new editor of this document (previewContextAt opening it). */
  takePendingSelection(uri: vscode.Uri): { leafId: string; revealEntryId: string | null } | undefined;
  log(line: string): void;
  /** Paint timings as the webview reports them (the integration tests read them). */
  timing?(t: EditorTiming): void;
}

export interface EditorTiming {
  file: string;
  /** peek: the latest messages while indexing; paint: the full view; repaint: after selecting a leaf. */
  kind: 'peek' | 'paint' | 'repaint';
  ms: number;
  /** paint: how many of its first requests were answered from what was computed while the webview loaded. */
  prefetched?: number;
}

/** A request answered slower than this is named in the editor's log. */
const SLOW_ANSWER_MS = 40;
/** How often the peek's progress bar is brought up to date. */
const PROGRESS_EVERY_MS = 400;

export class EditorPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private readonly queued: HostToWebview[] = [];
  /** A leaf chosen while the webview was gone (hidden, or not loaded yet): it wins over the restored one. */
  private pendingLeaf: { leafId: string; revealEntryId: string | null } | undefined;
  /** The leaf the webview shows, for the commands that act on it (editorSelection.ts). */
  private shownLeaf: string | null = null;
  /** The panel was closed: its webview throws on access, so answers still in flight are dropped. */
  private disposed = false;
  /**
   * The answers the first paint asks for, computed while the webview loads (over a second in a
   * browser workbench, when the session is often read already), by request: each is used once.
   */
  private readonly early = new Map<string, Promise<unknown>>();
  /** First-paint requests answered from `early`. */
  private earlyUsed = 0;

  constructor(
    readonly document: SessionDocument,
    readonly panel: vscode.WebviewPanel,
    private readonly hooks: PanelHooks,
  ) {
    this.pendingLeaf = hooks.takePendingSelection(document.uri);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      document.onDidReload(({ summary }) => {
        // Computed before the session changed: the webview asks again.
        this.early.clear();
        this.post({ type: 'sessionChanged', summary });
      }),
      // Hidden, the webview is torn down (retainContextWhenHidden is off): what is posted meanwhile
      // would be lost, so it waits for the `ready` of the webview that comes back.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      trackEditor({ uri: document.uri, panel, leafId: () => this.shownLeaf, model: async () => (await document.loaded()).model }),
    );
    void this.prefetchFirstPaint();
  }

  /**
   * Once the session is read, asks the model now for what a fresh webview asks first — the default
   * leaf's context, its first page of messages and of branch-tree rows — so they wait ready when it
   * does. Not for a webview that restores another leaf or view state (its requests differ, and are
   * answered as usual), nor when a selection is waiting (a reveal opens elsewhere).
   */
  private async prefetchFirstPaint(): Promise<void> {
    if (this.pendingLeaf) return;
    try {
      const { model, summary } = await this.document.loaded();
      if (this.ready || this.disposed || this.pendingLeaf) return;
      const leafId = await model.defaultLeaf();
      if (leafId === null || this.ready || this.disposed) return;
      const keep = (key: string, p: Promise<unknown>): void => {
        p.catch(() => undefined); // (a failure is asked again when the webview asks: handle below)
        this.early.set(key, p);
      };
      const messages = { leafId, start: 0, count: MESSAGE_PAGE };
      const tree = { filter: 'default', search: '', leafId, focusEntryId: null, start: 0, count: TREE_PAGE } as const;
      keep(requestKey('getContext', { leafId }), model.context(leafId));
      keep(requestKey('getMessages', messages), model.messages(leafId, 0, MESSAGE_PAGE).then((items) => ({ revision: summary.revision, items })));
      keep(requestKey('getTree', tree), model.tree(tree));
    } catch {
      // the webview's own requests say what went wrong
    }
  }

  /** Messages posted before `ready` would be lost: queue them. */
  post(message: HostToWebview): void {
    if (!this.ready) {
      this.queued.push(message);
      return;
    }
    this.send(message);
  }

  private send(message: HostToWebview): void {
    // Validate what we send too: a schema drift shows up here, in the host log, not as a blank UI.
    const checked = HostToWebviewSchema.safeParse(message);
    if (!checked.success) {
      this.hooks.log(`[editor] refusing to post an invalid ${message.type}: ${checked.error.message}`);
      return;
    }
    this.postRaw(message);
  }

  /** Every message leaves through here: an answer that outlives its panel is dropped, not thrown. */
  private postRaw(message: HostToWebview): void {
    if (this.disposed) return;
    void this.panel.webview.postMessage(message);
  }

  selectLeaf(leafId: string, revealEntryId: string | null): void {
    if (this.ready) this.post({ type: 'selectLeaf', leafId, revealEntryId });
    else this.pendingLeaf = { leafId, revealEntryId };
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = WebviewToHostSchema.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown } | null)?.id;
      this.hooks.log(`[editor] invalid message from the webview: ${parsed.error.message.slice(0, 300)}`);
      if (typeof id === 'number') this.respondError(id, `invalid request: ${parsed.error.issues[0]?.message ?? 'schema mismatch'}`);
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case 'ready':
        this.hooks.log(`[editor] ${this.document.uri.fsPath}: webview ready ${this.sinceOpen().toFixed(0)} ms after open`);
        if (msg.boot) {
          const b = msg.boot;
          const assets = b.assets.map((a) => `${a.name} ${a.start}–${a.end}`).join(', ');
          this.hooks.log(`[editor]   its document began ${(this.sinceOpen() - b.ready).toFixed(0)} ms after open; then (ms): html ${b.html}, ${assets}, script ran ${b.evaluated}, ready ${b.ready}`);
        }
        await this.onReady(msg.restored?.leafId ?? null, msg.restored?.followDefault ?? true);
        return;
      case 'painted': {
        const ms = this.sinceOpen();
        // (A webview shown again after it was hidden paints anew: its count starts again.)
        const prefetched = this.earlyUsed;
        this.earlyUsed = 0;
        this.early.clear();
        this.timed('paint', ms, `first paint ${ms.toFixed(0)} ms after open (${msg.messageCount} messages at leaf ${msg.leafId ?? '-'}; ${prefetched} of its answers computed while the webview loaded)`, prefetched);
        return;
      }
      case 'peekPainted': {
        const ms = this.sinceOpen();
        this.timed('peek', ms, `latest ${msg.messageCount} messages painted ${ms.toFixed(0)} ms after open, while indexing`);
        return;
      }
      case 'repainted':
        this.timed(
          'repaint',
          msg.ms,
          `leaf ${msg.leafId ?? '-'} repainted ${msg.ms.toFixed(0)} ms after it was selected` +
            (msg.answeredMs !== undefined ? ` (the host's last answer came at ${msg.answeredMs.toFixed(0)} ms)` : ''),
        );
        return;
      case 'selectionChanged':
        this.shownLeaf = msg.leafId;
        return;
      case 'request':
        await this.answer(msg);
        return;
    }
  }

  private sinceOpen(): number {
    return performance.now() - this.document.openedAt;
  }

  /** A paint timing the webview reported: in the log and to the API's listeners. */
  private timed(kind: EditorTiming['kind'], ms: number, what: string, prefetched?: number): void {
    this.hooks.log(`[editor] ${this.document.uri.fsPath}: ${what}`);
    this.hooks.timing?.({ file: this.document.filePath, kind, ms, ...(prefetched !== undefined ? { prefetched } : {}) });
  }

  private async onReady(restoredLeaf: string | null, restoredFollow: boolean): Promise<void> {
    this.ready = false;
    const loading = this.document.loaded();
    let settled = false;
    // Registered before the `await` below: `settled` is true before `init` is posted, so a peek
    // that arrives later is dropped instead of painting over the full view.
    loading.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Until the session is indexed, its latest messages (when the webview is to show the default
    // leaf, which the peek's rows are the end of).
    if (!this.pendingLeaf && (restoredLeaf === null || restoredFollow)) {
      void this.document.peek().then((peek) => {
        if (peek && !settled) {
          this.hooks.log(`[editor] ${this.document.uri.fsPath}: latest messages sent ${this.sinceOpen().toFixed(0)} ms after open, while indexing`);
          // Sent at once, not queued behind `ready` like post(): the webview is ready, `init` is what waits.
          this.send({ type: 'peek', peek });
          this.reportProgress(() => settled);
        }
      });
    }
    try {
      const { model, summary } = await loading;
      const defaultLeaf = await model.defaultLeaf();
      const restored = restoredLeaf !== null && (await model.has(restoredLeaf)) ? restoredLeaf : defaultLeaf;
      this.ready = true;
      const pending = this.pendingLeaf;
      this.pendingLeaf = undefined;
      const leafId = pending?.leafId ?? restored;
      this.post({ type: 'init', summary, selectLeafId: leafId, followDefault: pending ? false : restoredFollow || leafId === defaultLeaf });
      if (pending?.revealEntryId) this.post({ type: 'selectLeaf', leafId: pending.leafId, revealEntryId: pending.revealEntryId });
    } catch (err) {
      this.ready = true;
      this.post({ type: 'loadFailed', message: err instanceof Error ? err.message : String(err) });
    }
    for (const m of this.queued.splice(0)) this.post(m);
  }

  /** While the peek shows, how far the worker has read, a few times a second until the session is loaded. */
  private reportProgress(done: () => boolean): void {
    const tick = (): void => {
      if (done() || this.disposed) return;
      void this.document.progress().then((p) => {
        if (done() || this.disposed) return;
        if (p) this.send({ type: 'loadProgress', bytes: p.bytes, total: p.total });
        setTimeout(tick, PROGRESS_EVERY_MS);
      });
    };
    tick();
  }

  private respondError(id: number, error: string): void {
    this.postRaw({ type: 'response', id, ok: false, error });
  }

  private async answer(req: RequestMessage): Promise<void> {
    const started = performance.now();
    try {
      const result = await this.handle(req);
      const took = performance.now() - started;
      // What a slow repaint waited for, in the editor's log (the worker's answer, not the drawing).
      if (took >= SLOW_ANSWER_MS) this.hooks.log(`[editor] ${this.document.uri.fsPath}: ${req.method} answered in ${took.toFixed(0)} ms`);
      this.postRaw({ type: 'response', id: req.id, ok: true, result });
    } catch (err) {
      this.respondError(req.id, err instanceof Error ? err.message : String(err));
    }
  }

  private async handle(req: RequestMessage): Promise<Result<Method>> {
    const key = requestKey(req.method, req.params);
    const early = this.early.get(key);
    if (early) {
      this.early.delete(key);
      try {
        const result = (await early) as Result<Method>;
        this.earlyUsed++;
        return result;
      } catch {
        // failed ahead of time: asked again below, and reported if it fails again
      }
    }
    const { model, summary } = await this.document.loaded();
    const uri = this.document.uri;
    switch (req.method) {
      case 'getContext':
        return model.context(req.params.leafId);
      case 'getMessages':
        return { revision: summary.revision, items: await model.messages(req.params.leafId, req.params.start, req.params.count) };
      case 'getCutEntries':
        return { revision: summary.revision, items: await model.cutEntries(req.params.leafId, req.params.start, req.params.count) };
      case 'getChart':
        return model.chart(req.params.leafId);
      case 'getTree':
        return model.tree(req.params);
      case 'locate':
        return model.locate(req.params.leafId, req.params.entryId);
      case 'getImage':
        return model.image(req.params.entryId, req.params.blockIndex);
      case 'openRaw':
        await openRawJsonl(uri, req.params.line);
        return {};
      case 'revealInSessions':
        await revealInSessions(uri, req.params.entryId);
        return {};
      case 'migrate':
        await migrateSession(uri);
        return {};
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const d of this.disposables) d.dispose();
  }
}

/** A request's method and parameters as one string (parameters in key order), to match prefetched answers. */
function requestKey(method: string, params: object): string {
  return `${method} ${JSON.stringify(params, Object.keys(params).sort())}`;
}
