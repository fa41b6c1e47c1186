// The Sessions view's search across sessions: when a query is set, every session under the roots
// is read (through the documents cache, which reads incrementally) one after the other, with a
// yield between files, under a cancellable progress in the view. The matching itself is pure
// (src/core/discovery/sessionSearch.ts). Stopping keeps what was found so far. The documents cache has no
// bound, so what the scan loaded only to look at is released again: at once when it does not
// match, beyond the first MAX_KEPT results, and for the rest when the search is cleared.
import * as vscode from 'vscode';
import {
  branchTokens,
  isSearchMatch,
  scanOrder,
  searchSession,
  sessionShown,
  titleMatches,
  type SessionSearchHit,
  type SearchStatus,
} from '../../core/discovery/sessionSearch';
import { tokenizeSearch, type TreeFilterMode, type VisibleTree } from '../../core/tree/treeView';
import type { SessionMeta } from './catalog';
import type { SessionDocuments } from './documents';

/** Matching sessions whose documents a search keeps loaded (and so shows expanded). */
const MAX_KEPT = 30;
/** How often the view is redrawn while results come in. */
const REDRAW_MS = 250;

/** What the search needs from the view. */
export interface SearchHost {
  readonly docs: SessionDocuments;
  filter(): TreeFilterMode;
  readonly viewId: string;
  /** The sessions listed in the view, in display order (listing the roots first if needed). */
  sessions(): Promise<SessionMeta[]>;
  /** Keeps the visible tree a search computed, so showing the result does not compute it again. */
  rememberTree(file: string, stamp: string, tokens: readonly string[], tree: VisibleTree): void;
  forgetTree(file: string): void;
  /** The user expanded this session's row outside a search (its document is worth keeping). */
  isUserExpanded(file: string): boolean;
  /** Results or status changed: redraw the view and its description. */
  redraw(): void;
}

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class SessionSearch implements vscode.Disposable {
  query = '';
  tokens: string[] = [];
  status: SearchStatus | undefined;
  private readonly hits = new Map<string, SessionSearchHit>();
  private gen = 0;
  private cancel: vscode.CancellationTokenSource | undefined;
  /** Files this search loaded (they were not in the cache before) and kept as results. */
  private readonly kept = new Set<string>();
  private redrawTimer: NodeJS.Timeout | undefined;
  private lastRedraw = 0;

  constructor(private readonly host: SearchHost) {}

  dispose(): void {
    this.cancel?.cancel();
    if (this.redrawTimer) clearTimeout(this.redrawTimer);
  }

  get active(): boolean {
    return this.tokens.length > 0;
  }

  get running(): boolean {
    return this.status?.state === 'running';
  }

  /** Sets the query (empty clears) and scans; resolves when the scan ends or is superseded. */
  async start(query: string): Promise<void> {
    this.query = query.trim();
    this.tokens = tokenizeSearch(this.query);
    await this.rescan();
  }

  /** Stops a running scan; what it found stays. */
  stop(): void {
    this.cancel?.cancel();
  }

  /** Scans again with the same query (the filter or the roots changed). */
  async rescan(): Promise<void> {
    const gen = ++this.gen;
    this.cancel?.cancel();
    this.hits.clear();
    this.releaseKept();
    if (!this.active) {
      this.status = undefined;
      this.setSearching(false);
      this.host.redraw();
      return;
    }
    const cts = new vscode.CancellationTokenSource();
    this.cancel = cts;
    const status: SearchStatus = { query: this.query, state: 'running', scanned: 0, total: 0, matched: 0 };
    this.status = status;
    this.setSearching(true);
    this.host.redraw();
    try {
      await vscode.window.withProgress({ location: { viewId: this.host.viewId }, title: vscode.l10n.t('Searching sessions for “{0}”', this.query), cancellable: true }, async (_progress, token) => {
        const sub = token.onCancellationRequested(() => cts.cancel());
        try {
          const metas = scanOrder(await this.host.sessions());
          status.total = metas.length;
          for (const meta of metas) {
            if (cts.token.isCancellationRequested || gen !== this.gen) break;
            if (await this.searchOne(meta, gen)) status.matched++;
            status.scanned++;
            this.scheduleRedraw();
            await nextTick();
          }
        } finally {
          sub.dispose();
        }
      });
    } finally {
      if (gen === this.gen) {
        status.state = cts.token.isCancellationRequested ? 'stopped' : 'done';
        this.setSearching(false);
        if (this.redrawTimer) clearTimeout(this.redrawTimer);
        this.redrawTimer = undefined;
        this.host.redraw();
      }
      cts.dispose();
    }
  }

  /** Files changed on disk during a search: look at them again (new files too). */
  async update(metas: readonly SessionMeta[]): Promise<void> {
    if (!this.active) return;
    const gen = this.gen;
    for (const meta of metas) {
      if (gen !== this.gen) return;
      const before = isSearchMatch(this.hits.get(meta.file));
      const now = await this.searchOne(meta, gen);
      if (this.status && before !== now) this.status.matched += now ? 1 : -1;
    }
    this.host.redraw();
  }

  hitOf(file: string): SessionSearchHit | undefined {
    return this.hits.get(file);
  }

  /** Whether a session (or a subagent session under it) is shown while the search is active. */
  shows(meta: SessionMeta): boolean {
    return !this.active || sessionShown(meta, this.hits);
  }

  /** The tokens a session's branch tree applies now (none without a search). */
  branchTokensOf(file: string): readonly string[] {
    return this.active ? branchTokens(this.hits.get(file), this.tokens) : [];
  }

  /** Looks at one session; true when it matches. */
  private async searchOne(meta: SessionMeta, gen: number): Promise<boolean> {
    const file = meta.file;
    const known = this.host.docs.isKnown(file);
    if (meta.format === 'dsh') {
      // dsh logs have no branch tree in this view: they match by their title and first prompt.
      const hit = { entryMatches: 0, titleMatch: titleMatches(meta, this.tokens) };
      this.hits.set(file, hit);
      return hit.titleMatch;
    }
    try {
      const doc = await this.host.docs.get(file);
      if (gen !== this.gen) {
        if (!known && !this.kept.has(file)) this.release(file);
        return false;
      }
      const { hit, tree } = searchSession(doc.source, meta, this.host.filter(), this.tokens);
      this.hits.set(file, hit);
      const match = isSearchMatch(hit);
      if (match && (known || this.kept.size < MAX_KEPT)) {
        if (!known) this.kept.add(file);
        if (hit.entryMatches > 0) this.host.rememberTree(file, doc.stamp, this.tokens, tree);
      } else if (!known) {
        this.release(file);
      }
      return match;
    } catch {
      // Unreadable right now: it can still match by the title its listing read.
      if (gen !== this.gen) return false;
      const hit = { entryMatches: 0, titleMatch: titleMatches(meta, this.tokens) };
      this.hits.set(file, hit);
      return hit.titleMatch;
    }
  }

  private release(file: string): void {
    this.host.docs.release(file);
    this.host.forgetTree(file);
  }

  /** Releases the documents a finished search kept, except sessions the user has open in the view. */
  private releaseKept(): void {
    for (const file of this.kept) if (!this.host.isUserExpanded(file)) this.release(file);
    this.kept.clear();
  }

  private setSearching(on: boolean): void {
    void vscode.commands.executeCommand('setContext', 'sessionLoom.searching', on);
  }

  /** Redraws at most every REDRAW_MS while a scan runs. */
  private scheduleRedraw(): void {
    if (this.redrawTimer) return;
    const wait = Math.max(0, this.lastRedraw + REDRAW_MS - Date.now());
    this.redrawTimer = setTimeout(() => {
      this.redrawTimer = undefined;
      this.lastRedraw = Date.now();
      this.host.redraw();
    }, wait);
  }
}
