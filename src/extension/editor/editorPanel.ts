// One webview showing a SessionDocument: validates what the webview sends, answers its requests
// from the document's current snapshot, and forwards reloads and leaf selections to it.
import * as vscode from 'vscode';
import { describeBlobProblem, resolveImageData } from '../../core/formats/xcsh/blobs';
import {
  HostToWebviewSchema,
  WebviewToHostSchema,
  type HostToWebview,
  type Method,
  type RequestMessage,
  type Result,
} from '../../protocol/messages';
import { migrateSession, openRawJsonl, revealInSessions } from './editorCommands';
import { rowOfEntry, treeRows } from './treeRows';
import type { SessionDocument } from './sessionDocument';

export interface PanelHooks {
  /** A leaf selection waiting for a new editor of this document (previewContextAt opening it). */
  takePendingSelection(uri: vscode.Uri): { leafId: string; revealEntryId: string | null } | undefined;
  log(line: string): void;
}

export class EditorPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private readonly queued: HostToWebview[] = [];
  /** A leaf chosen while the webview was gone (hidden, or not loaded yet): it wins over the restored one. */
  private pendingLeaf: { leafId: string; revealEntryId: string | null } | undefined;

  constructor(
    readonly document: SessionDocument,
    readonly panel: vscode.WebviewPanel,
    private readonly hooks: PanelHooks,
  ) {
    this.pendingLeaf = hooks.takePendingSelection(document.uri);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      document.onDidReload(({ snap }) => this.post({ type: 'sessionChanged', summary: snap.summary })),
      // Hidden, the webview is torn down (retainContextWhenHidden is off): what is posted meanwhile
      // would be lost, so it waits for the `ready` of the webview that comes back.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
    );
  }

  /** Messages posted before `ready` would be lost: queue them. */
  post(message: HostToWebview): void {
    if (!this.ready) {
      this.queued.push(message);
      return;
    }
    // Validate what we send too: a schema drift shows up here, in the host log, not as a blank UI.
    const checked = HostToWebviewSchema.safeParse(message);
    if (!checked.success) {
      this.hooks.log(`[editor] refusing to post an invalid ${message.type}: ${checked.error.message}`);
      return;
    }
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
        await this.onReady(msg.restored?.leafId ?? null, msg.restored?.followDefault ?? true);
        return;
      case 'painted': {
        const ms = performance.now() - this.document.openedAt;
        this.hooks.log(`[editor] ${this.document.uri.fsPath}: first paint ${ms.toFixed(0)} ms after open (${msg.messageCount} messages at leaf ${msg.leafId ?? '-'})`);
        return;
      }
      case 'selectionChanged':
        return;
      case 'request':
        await this.answer(msg);
        return;
    }
  }

  private async onReady(restoredLeaf: string | null, restoredFollow: boolean): Promise<void> {
    this.ready = false;
    try {
      const { snap } = await this.document.loaded();
      this.ready = true;
      const pending = this.pendingLeaf;
      this.pendingLeaf = undefined;
      const leafId = pending?.leafId ?? (restoredLeaf !== null && snap.index.has(restoredLeaf) ? restoredLeaf : snap.index.defaultLeafId);
      this.post({ type: 'init', summary: snap.summary, selectLeafId: leafId, followDefault: pending ? false : restoredFollow || leafId === snap.index.defaultLeafId });
      if (pending?.revealEntryId) this.post({ type: 'selectLeaf', leafId: pending.leafId, revealEntryId: pending.revealEntryId });
    } catch (err) {
      this.ready = true;
      this.post({ type: 'loadFailed', message: err instanceof Error ? err.message : String(err) });
    }
    for (const m of this.queued.splice(0)) this.post(m);
  }

  private respondError(id: number, error: string): void {
    void this.panel.webview.postMessage({ type: 'response', id, ok: false, error } satisfies HostToWebview);
  }

  private async answer(req: RequestMessage): Promise<void> {
    try {
      const result = await this.handle(req);
      void this.panel.webview.postMessage({ type: 'response', id: req.id, ok: true, result } satisfies HostToWebview);
    } catch (err) {
      this.respondError(req.id, err instanceof Error ? err.message : String(err));
    }
  }

  private async handle(req: RequestMessage): Promise<Result<Method>> {
    const { snap, windows } = await this.document.loaded();
    const uri = this.document.uri;
    switch (req.method) {
      case 'getContext':
        return windows.context(req.params.leafId);
      case 'getMessages':
        return { revision: snap.revision, items: windows.messages(req.params.leafId, req.params.start, req.params.count) };
      case 'getCutEntries':
        return { revision: snap.revision, items: windows.cutEntries(req.params.leafId, req.params.start, req.params.count) };
      case 'getTree': {
        const p = req.params;
        const { flat, loaded } = await this.document.tree(p.filter, p.search, windows.resolveLeaf(p.leafId));
        const index = loaded.snap.index;
        const leaf = windows.resolveLeaf(p.leafId);
        const leafPos = leaf === null ? -1 : index.indexOf(leaf);
        return {
          total: flat.ids.length,
          hidden: flat.hidden,
          selectedIndex: flat.selectedIndex,
          leafHidden: leafPos !== -1 && flat.rowAt[leafPos] === -1,
          focusIndex: p.focusEntryId !== null && index.has(p.focusEntryId) ? rowOfEntry(index, flat, p.focusEntryId) : null,
          rows: treeRows(index, flat, p.start, p.count),
        };
      }
      case 'locate':
        return windows.locate(req.params.leafId, req.params.entryId);
      case 'getImage': {
        const img = windows.imageData(req.params.entryId, req.params.blockIndex);
        // The webview shows these messages in place of the image.
        if (!img) return { kind: 'error', message: vscode.l10n.t('no image at this place in the entry') };
        const r = await resolveImageData(img.data, snap.blobs);
        if (r.kind === 'missing') return { kind: 'missing', hash: r.hash };
        if (r.kind === 'invalid') return { kind: 'error', message: vscode.l10n.t('invalid blob reference {0}', r.ref.slice(0, 80)) };
        if (r.kind === 'bad') return { kind: 'error', message: vscode.l10n.t('image blob {0} not shown: it {1}', r.hash, describeBlobProblem(r.problem, vscode.l10n.t)) };
        // Only image types a browser renders inert; anything else (svg carries script) is refused.
        const mime = /^image\/(png|jpeg|gif|webp|bmp)$/.test(img.mimeType) ? img.mimeType : null;
        if (!mime) return { kind: 'error', message: vscode.l10n.t('not shown: {0} images are not displayed', img.mimeType.slice(0, 60)) };
        return { kind: 'data', dataUrl: `data:${mime};base64,${r.base64}` };
      }
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
    for (const d of this.disposables) d.dispose();
  }
}
