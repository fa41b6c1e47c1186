// The session editor: a read-only custom editor for *.jsonl (edits go through commands).
// `priority: "option"` in the manifest (we do not own .jsonl); files under the default session
// roots open here through a `workbench.editorAssociations` configuration default, and files
// under roots the user configured through a one-time reopen (see defaultOpen.ts).
import * as vscode from 'vscode';
import type { ModelHost } from '../../core/engine/worker/modelHost';
import { parseSearchQuery } from '../../core/search/queryLanguage';
import type { WebviewState } from '../../protocol/messages';
import { EditorPanel, type EditorTiming, type LeafSelection } from './editorPanel';
import { openRawJsonl, revealInSessions, targetEntryId, targetUri, VIEW_TYPE } from './editorCommands';
import { registerDefaultOpen } from './defaultOpen';
import { SessionDocument } from './sessionDocument';
import { preloadWebviewAssets, webviewHtml } from './webviewHtml';
import { LruMap } from '../../core/lruMap';

/** The show options a command was given (a Sessions row passes them), if they are that. */
function showOptions(show: unknown): vscode.TextDocumentShowOptions | undefined {
  if (typeof show !== 'object' || show === null) return undefined;
  const { preview, preserveFocus } = show as { preview?: unknown; preserveFocus?: unknown };
  return { ...(typeof preview === 'boolean' ? { preview } : {}), ...(typeof preserveFocus === 'boolean' ? { preserveFocus } : {}) };
}

/** How many files' places are kept (the least recently used go first). */
const KEPT_STATES = 200;

export class SessionEditorProvider implements vscode.CustomReadonlyEditorProvider<SessionDocument> {
  static readonly viewType = VIEW_TYPE;

  private readonly panels = new Set<EditorPanel>();
  private readonly pending = new Map<string, LeafSelection>();
  /**
   * Where the user was in each file's last editor (leaf, scroll, expansions, filter), by URI: an
   * editor opened again — its tab was closed, or replaced as a preview tab — starts there (issue 25).
   */
  private readonly kept = new LruMap<string, WebviewState>(KEPT_STATES);
  private readonly output: vscode.OutputChannel;

  /** Paint timings of every editor (the extension's API hands them to tests and tools). */
  private readonly painted = new vscode.EventEmitter<EditorTiming>();

  static register(context: vscode.ExtensionContext, models: ModelHost): { disposable: vscode.Disposable; onDidPaint: vscode.Event<EditorTiming>; forgetPlaces(): void } {
    const provider = new SessionEditorProvider(context, models);
    void preloadWebviewAssets(context.extensionUri);
    const disposables: vscode.Disposable[] = [
      provider.output,
      provider.painted,
      vscode.window.registerCustomEditorProvider(VIEW_TYPE, provider, {
        // State survives hide/show through the webview's getState/setState, not by keeping it alive.
        webviewOptions: { retainContextWhenHidden: false, enableFindWidget: true },
        supportsMultipleEditorsPerDocument: true,
      }),
      // The third argument (a Sessions row's click) says whether to open a preview or pinned editor.
      vscode.commands.registerCommand('sessionLoom.openSession', (arg?: unknown, _selection?: unknown, show?: unknown) => provider.open(targetUri(arg), showOptions(show))),
      vscode.commands.registerCommand('sessionLoom.openRawJsonl', async (arg?: unknown, line?: unknown) => {
        const uri = targetUri(arg);
        if (uri) await openRawJsonl(uri, typeof line === 'number' ? line : null);
      }),
      // A jump to the entry: the context at it, scrolled to it; `highlight`, a search query whose words are marked there.
      vscode.commands.registerCommand('sessionLoom.previewContextAt', (file?: unknown, entryId?: unknown, show?: unknown, highlight?: unknown) =>
        provider.previewContextAt(targetUri(file), targetEntryId(file, entryId), showOptions(show), typeof highlight === 'string' && highlight.trim() !== '' ? highlight : undefined),
      ),
      vscode.commands.registerCommand('sessionLoom.revealInSessions', async (file?: unknown, entryId?: unknown) => {
        const uri = targetUri(file);
        if (uri && typeof entryId === 'string') await revealInSessions(uri, entryId);
      }),
      registerDefaultOpen(),
    ];
    // (Tests start each case from a fresh window's places: the extension's API.)
    return { disposable: vscode.Disposable.from(...disposables), onDidPaint: provider.painted.event, forgetPlaces: () => provider.kept.clear() };
  }

  /** `models`: the worker sessions are read and held in (issue 11). */
  private constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly models: ModelHost,
  ) {
    this.output = vscode.window.createOutputChannel('Session Loom Editor');
  }

  log(line: string): void {
    this.output.appendLine(line);
    if (process.env.SESSION_LOOM_TEST_HOME) console.log(line);
  }

  async openCustomDocument(uri: vscode.Uri): Promise<SessionDocument> {
    return new SessionDocument(uri, this.models);
  }

  async resolveCustomEditor(document: SessionDocument, panel: vscode.WebviewPanel): Promise<void> {
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.context.extensionUri, 'dist')],
    };
    const editor = new EditorPanel(document, panel, {
      takePendingSelection: (uri) => {
        const p = this.pending.get(uri.toString());
        this.pending.delete(uri.toString());
        return p;
      },
      log: (l) => this.log(l),
      timing: (t) => this.painted.fire(t),
      keptState: (uri) => this.kept.get(uri.toString()),
      keepState: (uri, state) => this.kept.set(uri.toString(), state),
    });
    this.panels.add(editor);
    // The editor's write actions (New Session from Here) are hidden for a file Session Loom never
    // writes: another agent's log, a dsh log, a damaged or too new session. Copy Resume Command is
    // shown for what an agent can resume: a writable xcsh session, a Claude Code or Codex log.
    const noteReadOnly = (): void => {
      if (!panel.active) return;
      void document.loaded().then(
        (l) => {
          void vscode.commands.executeCommand('setContext', 'sessionLoom.editorReadOnly', l.summary.readOnlyReason !== null);
          void vscode.commands.executeCommand('setContext', 'sessionLoom.editorResumable', l.summary.readOnlyReason === null || l.summary.format === 'claude' || l.summary.format === 'codex');
        },
        () => undefined,
      );
    };
    panel.onDidChangeViewState(noteReadOnly);
    noteReadOnly();
    panel.onDidDispose(() => {
      this.panels.delete(editor);
      editor.dispose();
    });
    panel.webview.html = webviewHtml(panel.webview, this.context.extensionUri, document.uri.path.split('/').pop() ?? '', vscode.l10n.bundle, editor.kept);
    // The first step of the open's timeline in the log: what VS Code took to ask us, and our page handed over.
    this.log(`[editor] ${document.uri.fsPath}: page handed to the webview ${(performance.now() - document.openedAt).toFixed(0)} ms after open`);
  }

  /** Opens (or reveals) the editor for `uri`: pinned and focused unless `show` asks for a preview. */
  private async open(uri: vscode.Uri | undefined, show?: vscode.TextDocumentShowOptions): Promise<void> {
    if (!uri) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open Session: select a .jsonl session file first.'));
      return;
    }
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE, show);
  }

  /** Opens (or reveals) the editor for `uri` and selects the leaf `entryId` in it. */
  async previewContextAt(uri: vscode.Uri | undefined, entryId: string | undefined, show?: vscode.TextDocumentShowOptions, highlight?: string): Promise<void> {
    if (!uri) return this.open(uri);
    if (!entryId) return this.open(uri, show);
    // The editors already open take the selection before one is revealed: a hidden one applies it
    // when its webview comes back (EditorPanel.selectLeaf) instead of restoring its old leaf. An
    // editor the open creates takes it when it is resolved, during the open.
    const q = highlight !== undefined ? parseSearchQuery(highlight) : null;
    const terms = q && (q.words.length > 0 || q.prefixes.length > 0 || q.phrases.length > 0) ? { words: q.words, prefixes: q.prefixes, phrases: q.phrases } : undefined;
    const selection: LeafSelection = { leafId: entryId, revealEntryId: entryId, ...(terms ? { highlight: terms } : {}) };
    for (const p of this.panels) if (p.document.uri.toString() === uri.toString()) p.selectLeaf(selection);
    const key = uri.toString();
    this.pending.set(key, selection);
    try {
      await this.open(uri, show);
    } finally {
      this.pending.delete(key);
    }
  }
}
