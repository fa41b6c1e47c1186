// One webview showing a SessionDocument: validates what the webview sends, answers its requests
// from the document's session model, and forwards reloads and leaf selections to it.
import * as vscode from 'vscode';
import {
  HostToWebviewSchema,
  MESSAGE_PAGE,
  TREE_PAGE,
  WebviewToHostSchema,
  type FirstPaint,
  type MatchTerms,
  type WebviewState,
  type HostToWebview,
  type Method,
  type RequestMessage,
  type Result,
  type SessionSummary,
} from '../../protocol/messages';
import type { SessionModel } from '../../core/engine/model';
import { migrateSession, openLinkedSession, openRawJsonl, revealInSessions } from './editorCommands';
import type { SessionDocument } from './sessionDocument';
import { trackEditor } from './editorSelection';

export interface PanelHooks {
  /** A leaf selection waiting for a new editor of this document (previewContextAt opening it). */
  takePendingSelection(uri: vscode.Uri): LeafSelection | undefined;
  /** Where the user was in the last editor of this document (its tab was closed or replaced): the page restores it. */
  keptState?(uri: vscode.Uri): WebviewState | undefined;
  /** The page says where the user is now. */
  keepState?(uri: vscode.Uri, state: WebviewState): void;
  log(line: string): void;
  /** Paint timings as the webview reports them (the integration tests read them). */
  timing?(t: EditorTiming): void;
}

/**
 * A leaf to show, and the entry of its context to jump to (scrolled into view and flashed), with
 * the words of a search query to mark in it.
 */
export interface LeafSelection {
  leafId: string;
  revealEntryId: string | null;
  highlight?: MatchTerms;
}

export interface EditorTiming {
  file: string;
  /** peek: the latest messages while indexing; paint: the full view; repaint: after selecting a leaf. */
  kind: 'peek' | 'paint' | 'repaint';
  ms: number;
  /** paint: how many of its first answers (context, messages, tree rows) came with `init`, computed while the webview loaded. */
  prefetched?: number;
  /** paint, repaint: how many requests the webview made for it. */
  requests?: number;
}

/** How much longer than the rest of the first paint's answers the chart may take to come along with them. */
const CHART_GRACE_MS = 30;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A request answered slower than this is named in the editor's log. */
const SLOW_ANSWER_MS = 40;
/** How often the peek's progress bar is brought up to date. */
const PROGRESS_EVERY_MS = 400;

export class EditorPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private readonly queued: HostToWebview[] = [];
  /** A leaf chosen while the webview was gone (hidden, or not loaded yet): it wins over the restored one. */
  private pendingLeaf: LeafSelection | undefined;
  /** The leaf the webview shows, for the commands that act on it (editorSelection.ts). */
  private shownLeaf: string | null = null;
  /** The panel was closed: its webview throws on access, so answers still in flight are dropped. */
  private disposed = false;
  /**
   * What a fresh page paints first (the default leaf), computed while the webview loads: over a
   * second in a browser workbench, when a session of a few MB is long read. Null when there is
   * nothing to compute ahead (a selection is waiting) or it failed.
   */
  private readonly firstPaint: Promise<{ summary: SessionSummary; leafId: string; first: FirstPaint } | null>;
  /** An `init` went to the page before it said `ready` (see postInitAhead). */
  private initAhead = false;
  /** A big session's latest messages went to the page before it said `ready` (see postPeekAhead). */
  private peekAhead = false;
  /** The page has said `ready` since it was (re)loaded. */
  private heardReady = false;
  /** The page was torn down (hidden) at least once: VS Code drops what is posted to it meanwhile. */
  private reloaded = false;
  /** The answers that the last `init` carried (for the paint's log line). */
  private carried = 0;
  /** The page said (`hello`) that it restores its own state: nothing more is posted to it ahead of its `ready`. */
  private restoring = false;
  /** Where the user was in the last editor of this document (the page restores it), if anywhere. */
  readonly kept: WebviewState | undefined;

  constructor(
    readonly document: SessionDocument,
    readonly panel: vscode.WebviewPanel,
    private readonly hooks: PanelHooks,
  ) {
    this.pendingLeaf = hooks.takePendingSelection(document.uri);
    // A jump names its own leaf; otherwise the page starts where the user was in the file's last editor.
    this.kept = this.pendingLeaf ? undefined : hooks.keptState?.(document.uri);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      document.onDidReload(({ summary }) => this.post({ type: 'sessionChanged', summary })),
      // Hidden, the webview is torn down (retainContextWhenHidden is off): what is posted meanwhile
      // would be lost, so it waits for the `ready` of the webview that comes back, a new page whose
      // `init` answers its `ready` (none is posted ahead).
      panel.onDidChangeViewState(() => {
        if (panel.visible) return;
        this.ready = this.heardReady = this.initAhead = false;
        this.reloaded = true;
      }),
      trackEditor({ uri: document.uri, panel, leafId: () => this.shownLeaf, model: async () => (await document.loaded()).model }),
    );
    this.firstPaint = this.pendingLeaf ? Promise.resolve(null) : computeFirstPaint(document, this.kept);
    if (!this.pendingLeaf) {
      void this.postInitAhead();
      void this.postPeekAhead();
    }
  }

  /** Whether the `init` posted ahead is what a page restoring `restored` shows (webview/main.ts: aheadFits, the same test). */
  private async aheadFits(restored: WebviewState): Promise<boolean> {
    const ahead = await this.firstPaint;
    if (!ahead || restored.filter !== 'default' || restored.search !== '') return false;
    return restored.followDefault ? ahead.leafId === ahead.summary.defaultLeafId : ahead.leafId === restored.leafId;
  }

  /** Whether something sent ahead of `ready` may go to this page (a fresh one that has not said it yet). */
  private mayPostAhead(): boolean {
    return !this.heardReady && !this.reloaded && !this.disposed && !this.pendingLeaf && !this.initAhead;
  }

  /**
   * Posts the first paint's `init` as soon as it is computed, before the page says `ready`: VS Code
   * holds what is posted to a page before its `load` and hands it over once its scripts ran, so the
   * rows are drawn without waiting for its `ready` (two round trips, before: `ready` → `init`, then
   * its requests → their answers). A page that restores its state (a window reload) asks with its
   * `ready` as usual. (Putting the first paint in the page itself was tried: VS Code waits for the
   * page before it begins the webview's document, so waiting for the first paint delayed everything.)
   */
  private async postInitAhead(): Promise<void> {
    // (Not waiting for the page's `hello`: that cost a round trip, ~50 ms, before the rows were
    // drawn. A page that restores its state ignores it.)
    const ahead = await this.firstPaint;
    if (!ahead || this.restoring || !this.mayPostAhead()) return;
    this.initAhead = true;
    this.carried = 3;
    this.send({ type: 'init', summary: ahead.summary, selectLeafId: ahead.leafId, followDefault: ahead.leafId === ahead.summary.defaultLeafId, first: ahead.first, ahead: true });
    this.hooks.log(`[editor] ${this.document.uri.fsPath}: first paint sent ahead of the page's ready, ${this.sinceOpen().toFixed(0)} ms after open`);
  }

  /**
   * A big session's latest messages, posted as soon as they are read from its end, while the worker
   * indexes it, for a fresh page to paint once its scripts ran (as `init` is: postInitAhead).
   */
  private async postPeekAhead(): Promise<void> {
    const peek = await this.document.peek();
    if (!peek || this.restoring || !this.mayPostAhead()) return;
    if (this.document.settled) return; // the `init` follows at once
    this.peekAhead = true;
    this.send({ type: 'peek', peek, ahead: true });
    this.hooks.log(`[editor] ${this.document.uri.fsPath}: latest messages sent ahead of the page's ready, ${this.sinceOpen().toFixed(0)} ms after open, while indexing`);
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
    // The model's answers an `init` carries are left to the webview, as every response is: checked
    // here too they were ~20 ms of this thread per open (a 2.3 MB session's first page and rows).
    const checked = HostToWebviewSchema.safeParse(message.type === 'init' ? { ...message, first: undefined } : message);
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

  selectLeaf(selection: LeafSelection): void {
    if (this.ready) this.post({ type: 'selectLeaf', ...selection });
    else this.pendingLeaf = selection;
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
      case 'hello':
        this.hooks.log(`[editor] ${this.document.uri.fsPath}: the page said hello ${this.sinceOpen().toFixed(0)} ms after open${msg.restored ? ' (it restores its state)' : ''}`);
        this.restoring = msg.restored;
        return;
      case 'ready':
        if (msg.again) {
          // Still without `init` a while after its first `ready`: one posted ahead was lost. (Else its
          // `init` is on its way: the session is still being read.)
          if (!this.initAhead) return;
          this.hooks.log(`[editor] ${this.document.uri.fsPath}: the webview asked again for its init, ${this.sinceOpen().toFixed(0)} ms after open`);
          this.initAhead = false;
          await this.onReady(msg.restored?.leafId ?? null, msg.restored?.followDefault ?? true, msg.restored, false);
          return;
        }
        this.hooks.log(`[editor] ${this.document.uri.fsPath}: webview ready ${this.sinceOpen().toFixed(0)} ms after open`);
        if (msg.boot) {
          const b = msg.boot;
          const assets = b.assets.map((a) => `${a.name} ${a.start}–${a.end}, `).join('');
          // The page's own clock against ours: when its document began, and how long its `ready` was on its way.
          const began = b.origin !== undefined ? b.origin - performance.timeOrigin - this.document.openedAt : null;
          const byClock = began !== null ? ` (by the clock ${began.toFixed(0)} ms; its ready took ${(this.sinceOpen() - began - b.ready).toFixed(0)} ms to reach us)` : '';
          this.hooks.log(`[editor]   its document began ${(this.sinceOpen() - b.ready).toFixed(0)} ms after open${byClock}; then (ms): html ${b.html}, ${assets}${b.bundle !== undefined ? `bundle began ${b.bundle}, ` : ''}script ran ${b.evaluated}, ready ${b.ready}`);
        }
        this.heardReady = true;
        // A fresh page paints the `init` posted ahead of its `ready` (as does one restoring the state
        // the host kept, whose leaf it was computed for): nothing more to send but what waited for it.
        if (this.initAhead && (msg.restored === null || (await this.aheadFits(msg.restored)))) return this.flush();
        this.initAhead = false;
        // A fresh page paints a peek posted ahead; a page that restored its state ignored it.
        const peekShown = this.peekAhead && msg.restored === null;
        this.peekAhead = false;
        await this.onReady(msg.restored?.leafId ?? null, msg.restored?.followDefault ?? true, msg.restored, peekShown);
        return;
      case 'painted': {
        const ms = this.sinceOpen();
        const prefetched = this.carried;
        const asked = msg.requests !== undefined ? `${msg.requests} requests, ` : '';
        const st = msg.steps;
        if (st) this.hooks.log(`[editor]   its steps (ms into its document): ${Object.entries(st).sort((a, b) => a[1] - b[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`);
        this.timed('paint', ms, `first paint ${ms.toFixed(0)} ms after open (${msg.messageCount} messages at leaf ${msg.leafId ?? '-'}; ${asked}${prefetched} of its answers came with init)`, {
          prefetched,
          ...(msg.requests !== undefined ? { requests: msg.requests } : {}),
        });
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
            (msg.answeredMs !== undefined ? ` (the host's last answer came at ${msg.answeredMs.toFixed(0)} ms` + (msg.requests !== undefined ? `; ${msg.requests} requests)` : ')') : ''),
          msg.requests !== undefined ? { requests: msg.requests } : {},
        );
        return;
      case 'selectionChanged':
        this.shownLeaf = msg.leafId;
        return;
      case 'stateChanged':
        this.hooks.keepState?.(this.document.uri, msg.state);
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
  private timed(kind: EditorTiming['kind'], ms: number, what: string, extra: Pick<EditorTiming, 'prefetched' | 'requests'> = {}): void {
    this.hooks.log(`[editor] ${this.document.uri.fsPath}: ${what}`);
    this.hooks.timing?.({ file: this.document.filePath, kind, ms, ...extra });
  }

  /** A page said `ready` and needs its `init`: the restored leaf (if it still exists), else the default one. */
  private async onReady(restoredLeaf: string | null, restoredFollow: boolean, restored: { filter: string; search: string } | null, peekShown: boolean): Promise<void> {
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
    if (peekShown) this.reportProgress(() => settled);
    else if (!this.pendingLeaf && (restoredLeaf === null || restoredFollow)) {
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
      const kept = restoredLeaf !== null && (await model.has(restoredLeaf)) ? restoredLeaf : defaultLeaf;
      const pending = this.pendingLeaf;
      this.pendingLeaf = undefined;
      const leafId = pending?.leafId ?? kept;
      // The answers computed ahead fit a page that shows their leaf under the default filter.
      const ahead = await this.firstPaint;
      const fits = ahead !== null && ahead.leafId === leafId && ahead.summary.revision === summary.revision && (restored === null || (restored.filter === 'default' && restored.search === ''));
      this.carried = fits ? 3 : 0;
      this.ready = true;
      const jump = pending?.revealEntryId ? { entryId: pending.revealEntryId, ...(pending.highlight !== undefined ? { highlight: pending.highlight } : {}) } : undefined;
      this.post({ type: 'init', summary, selectLeafId: leafId, followDefault: pending ? false : restoredFollow || leafId === defaultLeaf, ...(fits ? { first: ahead.first } : {}), ...(jump ? { jump } : {}) });
    } catch (err) {
      this.ready = true;
      this.post({ type: 'loadFailed', message: err instanceof Error ? err.message : String(err) });
    }
    for (const m of this.queued.splice(0)) this.post(m);
  }

  /** The page is ready and has its `init`: what waited for it goes now (a selection made meanwhile last). */
  private flush(): void {
    this.ready = true;
    for (const m of this.queued.splice(0)) this.post(m);
    const pending = this.pendingLeaf;
    this.pendingLeaf = undefined;
    if (pending) this.post({ type: 'selectLeaf', ...pending });
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
      case 'openLinkedSession':
        await openLinkedSession(uri, req.params.path);
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

/**
 * Once the session is read, the answers a fresh page asks for first — the default leaf's context,
 * its first page of messages and the page of branch-tree rows around its row — so they go to the
 * page with its `init`. (The model's first tree call also lays the tree out, which is then cached.)
 */
async function computeFirstPaint(document: SessionDocument, kept?: WebviewState): Promise<{ summary: SessionSummary; leafId: string; first: FirstPaint } | null> {
  try {
    const { model, summary } = await document.loaded();
    // The leaf the page will show: the one the user left (under the default filter: the tree's rows
    // computed here fit no other), else the default leaf.
    const left = kept && !kept.followDefault && kept.leafId !== null && kept.filter === 'default' && kept.search === '' && (await model.has(kept.leafId)) ? kept.leafId : null;
    const leafId = left ?? (await model.defaultLeaf());
    if (leafId === null) return null;
    const chart = model.chart(leafId).catch(() => undefined);
    const [context, items, tree] = await Promise.all([model.context(leafId), model.messages(leafId, 0, MESSAGE_PAGE), firstTreePage(model, leafId)]);
    // The chart comes along when it is ready about as soon (a branch of thousands of turns takes
    // longer: the page then asks for it after its first paint).
    const drawn = await Promise.race([chart, sleep(CHART_GRACE_MS).then(() => undefined)]);
    return { summary, leafId, first: { context, messages: { revision: summary.revision, items }, tree, ...(drawn ? { chart: drawn } : {}) } };
  } catch {
    return null; // the page's own requests say what went wrong
  }
}

/** The page of tree rows with the selected leaf's row in its middle (the tree opens scrolled to it). */
async function firstTreePage(model: SessionModel, leafId: string): Promise<FirstPaint['tree']> {
  const q = { filter: 'default', search: '', leafId, focusEntryId: null } as const;
  const where = await model.tree({ ...q, start: 0, count: 0 });
  const start = Math.max(0, Math.min((where.selectedIndex ?? 0) - TREE_PAGE / 2, where.total - TREE_PAGE));
  return { start, page: await model.tree({ ...q, start, count: TREE_PAGE }) };
}
