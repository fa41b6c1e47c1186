// One open session file, shared by every editor that shows it. Loads in the background (the
// webview paints its frame first), follows the file as it grows, and answers window requests
// from its current snapshot. Growth is read incrementally: only the appended tail is parsed and
// indexed (src/core/formats/xcsh/tail.ts), with a full reload whenever the file changed in any other way.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobStore, defaultBlobDir } from '../../core/formats/xcsh/blobs';
import { openSessionDocument, refreshSessionDocument, type SessionDocument as CoreDocument } from '../../core/formats/xcsh/document';
import type { TreeFilter } from '../../protocol/messages';
import { ContextWindows } from './contextWindows';
import { snapshotOfDocument, type SessionSnapshot } from './sessionSnapshot';
import { layoutTree, selectLeafIn, type FlatTree, type TreeLayout } from './treeRows';

/** Appends usually come in bursts (a tool call and its result): reload once they settle. */
const RELOAD_DEBOUNCE_MS = 250;

function blobStore(): BlobStore {
  const configured = vscode.workspace.getConfiguration('sessionLoom').get<string>('blobStore', '').trim();
  if (configured === '') return new BlobStore(defaultBlobDir());
  const dir = configured === '~' || configured.startsWith('~/') ? path.join(os.homedir(), configured.slice(1)) : configured;
  return new BlobStore(dir);
}

export interface Loaded {
  snap: SessionSnapshot;
  windows: ContextWindows;
}

export class SessionDocument implements vscode.CustomDocument {
  private current: Promise<Loaded>;
  private revision = 0;
  /** The core document behind the current snapshot; a refresh updates it in place. */
  private doc: CoreDocument | undefined;
  private watcher: fs.FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private lastSize = -1;
  private lastMtime = -1;
  /** The rows of the last filter and search (selection-independent), and the last selection laid over them. */
  private treeCache: { key: string; layout: TreeLayout; leafId?: string | null; flat?: FlatTree } | undefined;
  private readonly changed = new vscode.EventEmitter<Loaded>();
  /** Fires after the file changed on disk and was reloaded. */
  readonly onDidReload = this.changed.event;
  /** When the document was opened, for the open → first paint measurement. */
  readonly openedAt = performance.now();

  constructor(readonly uri: vscode.Uri) {
    this.current = this.load();
    this.watch();
  }

  get filePath(): string {
    return this.uri.fsPath;
  }

  loaded(): Promise<Loaded> {
    return this.current;
  }

  private async load(): Promise<Loaded> {
    const t0 = performance.now();
    // Blob refs are not checked on load (one stat per image): images resolve on demand, and a
    // missing blob shows its placeholder where it is used.
    const doc = await openSessionDocument(this.filePath);
    this.doc = doc;
    return this.snapshot(doc, t0);
  }

  private snapshot(doc: CoreDocument, t0: number): Loaded {
    const snap = snapshotOfDocument(this.filePath, doc, blobStore(), ++this.revision, t0);
    this.lastSize = snap.loaded.stat?.size ?? -1;
    this.lastMtime = snap.loaded.stat?.mtimeMs ?? -1;
    this.treeCache = undefined;
    return { snap, windows: new ContextWindows(snap) };
  }

  /** The flattened tree for a filter / search / selection: the rows cached per filter and search, the selection per call. */
  async tree(filter: TreeFilter, search: string, leafId: string | null): Promise<{ flat: FlatTree; loaded: Loaded }> {
    const loaded = await this.current;
    const index = loaded.snap.index;
    const key = `${loaded.snap.revision}\0${filter}\0${search}`;
    if (this.treeCache?.key !== key) this.treeCache = { key, layout: layoutTree(index, filter, search) };
    const cache = this.treeCache;
    if (cache.flat === undefined || cache.leafId !== leafId) {
      cache.flat = selectLeafIn(index, cache.layout, leafId);
      cache.leafId = leafId;
    }
    return { flat: cache.flat, loaded };
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
      const loaded = await this.refresh();
      if (!loaded) return;
      this.current = Promise.resolve(loaded);
      this.changed.fire(loaded);
    } catch {
      // a half-written state that fails to load: the next change retries
    }
  }

  /** The next snapshot: the appended tail read onto the current document, or a full load. */
  private async refresh(): Promise<Loaded | undefined> {
    await this.current.catch(() => undefined);
    const doc = this.doc;
    if (!doc) return this.load();
    const t0 = performance.now();
    const r = await refreshSessionDocument(doc);
    return r.kind === 'unchanged' ? undefined : this.snapshot(doc, t0);
  }

  dispose(): void {
    this.watcher?.close();
    clearInterval(this.pollTimer);
    clearTimeout(this.reloadTimer);
    this.changed.dispose();
  }
}
