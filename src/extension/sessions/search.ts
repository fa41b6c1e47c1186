// The Sessions view's search across sessions. With the search index (issue 12): the index's
// worker brings itself up to date (reading only what changed; the first build shows a
// cancellable notification) and answers the query — which sessions match, ranked, with their
// counts — and the first MAX_KEPT matching sessions are loaded to open on their matching entries
// (the entries the index found narrow their branch trees). Without the index (another window
// owns it, the worker failed), every session is opened in the model worker one after the other,
// which counts its entries matching the old AND-ed substring search (src/core/discovery/
// sessionSearch.ts). Stopping keeps what was found so far. What the search opened only to look at
// is released again: beyond the first MAX_KEPT results at once, and the rest when the search is
// cleared (they join the view's few idle sessions, see sessionModels.ts).
import * as vscode from 'vscode';
import {
  branchTokens,
  isSearchMatch,
  scanOrder,
  sessionShown,
  titleMatches,
  type SessionSearchHit,
  type SearchStatus,
} from '../../core/discovery/sessionSearch';
import { parseSearchQuery } from '../../core/search/queryLanguage';
import type { SessionModel } from '../../core/engine/model';
import { tokenizeSearch, type TreeFilterMode } from '../../core/tree/treeView';
import type { SearchIndexClient } from '../search/indexClient';
import type { UpdateProgress } from '../../core/search/indexUpdate';
import type { SearchOutcome } from '../../core/search/searchIndex';
import type { SessionMeta } from './catalog';
import { prompts } from '../commands/prompts';
import type { SessionModels } from './sessionModels';

/** Matching sessions a search keeps open (and so shows expanded). */
const MAX_KEPT = 30;
/** How often the view is redrawn while results come in. */
const REDRAW_MS = 250;

/** What the search needs from the view. */
export interface SearchHost {
  readonly models: SessionModels;
  /** How many entries a session's tree shows under the current filter and search (its branch query). */
  matches(model: SessionModel, file: string): Promise<number>;
  filter(): TreeFilterMode;
  readonly viewId: string;
  /** The sessions listed in the view, in display order (listing the roots first if needed). */
  sessions(): Promise<SessionMeta[]>;
  /** The search index (absent: every search scans the files). */
  readonly index?: SearchIndexClient | undefined;
  /** The sessions roots of the listing. */
  roots(): readonly string[];
  /** Results or status changed: redraw the view and its description. */
  redraw(): void;
}

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));
const EMPTY: ReadonlySet<string> = new Set();

export class SessionSearch implements vscode.Disposable {
  query = '';
  tokens: string[] = [];
  status: SearchStatus | undefined;
  private readonly hits = new Map<string, SessionSearchHit>();
  /** The entries the index matched, per session (absent: the tokens match, as in a scan). */
  private readonly ids = new Map<string, ReadonlySet<string>>();
  /** Rank of each matching session (0 = best), from the index. */
  private readonly ranks = new Map<string, number>();
  /** Whether the last search used the index (else it scanned every file). */
  usedIndex = false;
  /** The index was opened by a search: from then on the watcher's changes keep it current. */
  private indexOpened = false;
  private gen = 0;
  private cancel: vscode.CancellationTokenSource | undefined;
  /** Files this search opened (they were not open before) and keeps as results. */
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
    // The words to highlight (and, without the index, to match): the query's words and phrases, not its filters.
    const q = parseSearchQuery(this.query);
    const words = [...q.words, ...q.prefixes, ...q.phrases.flat()];
    this.tokens = this.query === '' ? [] : words.length > 0 ? [...new Set(words)] : tokenizeSearch(this.query);
    await this.rescan();
  }

  /** Stops a running scan; what it found stays. */
  stop(): void {
    this.cancel?.cancel();
  }

  /** Searches again with the same query (the filter or the roots changed). */
  async rescan(): Promise<void> {
    const gen = ++this.gen;
    this.cancel?.cancel();
    this.hits.clear();
    this.ids.clear();
    this.ranks.clear();
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
          if (cts.token.isCancellationRequested || gen !== this.gen) return;
          if (await this.searchIndexed(metas, status, cts, gen)) return;
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

  /**
   * The search through the index. False when there is no index to use (the caller scans the
   * files instead); true when it answered or the user stopped it.
   */
  private async searchIndexed(metas: SessionMeta[], status: SearchStatus, cts: vscode.CancellationTokenSource, gen: number): Promise<boolean> {
    const index = this.host.index;
    if (!index) return false;
    const roots = this.host.roots();
    const ac = new AbortController();
    const sub = cts.token.onCancellationRequested(() => ac.abort());
    try {
      const fresh = await index.open(roots);
      this.indexOpened = true;
      const inView = new Map(metas.map((m) => [m.file, m]));
      // While a long update runs (the first build: minutes on a big corpus), what is committed so
      // far is searched after each of its batches — newest sessions first — so results come in
      // as the index grows instead of only at its end. One query at a time; the last catches up.
      let finished = false;
      let asking = false;
      let committed = 0;
      let shown = 0;
      const showSoFar = async (): Promise<void> => {
        if (asking) return;
        asking = true;
        try {
          while (!finished && shown < committed && gen === this.gen) {
            const upTo = committed;
            const out = await index.search(roots, this.query);
            if (finished || gen !== this.gen) return;
            shown = upTo;
            this.showIndexResults(out, inView, status, false);
          }
        } catch {
          // the answer at the end says what went wrong
        } finally {
          asking = false;
        }
      };
      const onProgress = (p: UpdateProgress): void => {
        status.scanned = Math.min(p.done, status.total);
        if (p.committed > committed && p.committed < p.total) {
          committed = p.committed;
          void showSoFar();
        }
        this.scheduleRedraw();
      };
      const run = index.update(roots, onProgress, ac.signal);
      // Stopped by the user: what the index holds so far is still searched (the update commits
      // what it read before it stops); superseded by another search: nothing more to do.
      const ended = run.then(
        () => true,
        (e: unknown) => {
          if ((e as { name?: string }).name === 'CancelledError' && gen === this.gen) return false;
          throw e;
        },
      );
      if (fresh) {
        // The first build reads every session once: say so where it shows, and let it be stopped.
        await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Building the search index'), cancellable: true }, async (progress, token) => {
          const stop = token.onCancellationRequested(() => cts.cancel());
          let last = 0;
          const timer = setInterval(() => {
            const pct = status.total > 0 ? Math.floor((status.scanned / status.total) * 100) : 0;
            progress.report({ increment: pct - last, message: vscode.l10n.t('{0} of {1} sessions', status.scanned, status.total) });
            last = pct;
          }, 250);
          try {
            await ended.catch(() => undefined);
          } finally {
            clearInterval(timer);
            stop.dispose();
          }
        });
      }
      const complete = await ended.finally(() => {
        finished = true;
      });
      if (gen !== this.gen) return true;
      const out = await index.search(roots, this.query);
      if (gen !== this.gen) return true;
      for (const p of out.results.problems) prompts.info(vscode.l10n.t('Search: {0}', p));
      if (complete) status.scanned = status.total;
      const matched = this.showIndexResults(out, inView, status, true);
      if (!complete || cts.token.isCancellationRequested) return true;
      // The best results open on their matching entries: their documents are loaded, their trees narrowed to the index's matches.
      const top = matched.filter((s) => s.matches > 0).slice(0, MAX_KEPT).map((s) => s.file);
      const ids = top.length > 0 ? await index.matchIds(roots, this.query, top) : {};
      if (gen !== this.gen) return true;
      for (const file of top) {
        if (cts.token.isCancellationRequested || gen !== this.gen) break;
        const set = new Set(ids[file] ?? []);
        this.ids.set(file, set);
        await this.keepMatched(file, set, gen);
      }
      return true;
    } catch (e) {
      if (cts.token.isCancellationRequested || gen !== this.gen) return true;
      // No index for this window (another one owns it, the worker failed): scan instead.
      console.warn(`Session Loom: searching without the index: ${e instanceof Error ? e.message : String(e)}`);
      this.usedIndex = false;
      // What the index answered while it was being built goes: the scan counts every session itself.
      this.hits.clear();
      this.ranks.clear();
      this.ids.clear();
      status.matched = 0;
      status.scanned = 0;
      return false;
    } finally {
      sub.dispose();
    }
  }

  /**
   * Shows an answer of the index — the matching sessions in the view, ranked — in place of the
   * search's earlier answer (one given while the index was still being built). Returns them.
   */
  private showIndexResults(out: SearchOutcome, inView: ReadonlyMap<string, SessionMeta>, status: SearchStatus, final: boolean): SearchOutcome['results']['sessions'] {
    this.usedIndex = true;
    this.hits.clear();
    this.ranks.clear();
    const matched = out.results.sessions.filter((s) => inView.has(s.file));
    matched.forEach((s, i) => {
      this.ranks.set(s.file, i);
      this.hits.set(s.file, { entryMatches: s.matches, titleMatch: s.titleMatch });
    });
    status.matched = matched.length;
    if (final) this.host.redraw();
    else this.scheduleRedraw();
    return matched;
  }

  /** Opens a matching session and keeps it; its count becomes what its narrowed tree shows. */
  private async keepMatched(file: string, ids: ReadonlySet<string>, gen: number): Promise<void> {
    const known = this.host.models.isKnown(file);
    try {
      const { model } = await this.host.models.get(file);
      if (gen !== this.gen) {
        if (!known && !this.kept.has(file)) this.release(file);
        return;
      }
      this.keep(file, known);
      // (branchIdsOf answers these ids now: the count is that of the tree the row opens on.)
      const shown = this.ids.get(file) === ids ? await this.host.matches(model, file) : 0;
      const hit = this.hits.get(file);
      if (hit && shown > 0 && gen === this.gen) hit.entryMatches = shown;
      this.scheduleRedraw();
    } catch {
      // Unreadable right now: the index's count stays.
    }
  }

  /** Session files changed on disk: the index picks them up (reading only what was appended). */
  filesChanged(files: readonly string[]): void {
    const index = this.host.index;
    // (No worker is started for a user who never searched.)
    if (!index || !this.indexOpened || files.length === 0) return;
    index.updateFiles(this.host.roots(), files).catch(() => undefined);
  }

  /** Files changed on disk during a search: look at them again (new files too). */
  async update(metas: readonly SessionMeta[]): Promise<void> {
    if (!this.active) return;
    if (this.usedIndex && this.host.index) {
      const index = this.host.index;
      const gen = this.gen;
      try {
        const roots = this.host.roots();
        await index.updateFiles(roots, metas.map((m) => m.file));
        const out = await index.search(roots, this.query);
        if (gen !== this.gen) return;
        const byFile = new Map(out.results.sessions.map((s, i) => [s.file, { s, i }]));
        for (const meta of metas) {
          const before = isSearchMatch(this.hits.get(meta.file));
          const found = byFile.get(meta.file);
          if (found) {
            this.hits.set(meta.file, { entryMatches: found.s.matches, titleMatch: found.s.titleMatch });
            this.ranks.set(meta.file, found.i);
            if (this.ids.has(meta.file)) this.ids.set(meta.file, new Set((await index.matchIds(roots, this.query, [meta.file]))[meta.file] ?? []));
          } else this.hits.delete(meta.file);
          const now = isSearchMatch(this.hits.get(meta.file));
          if (this.status && before !== now) this.status.matched += now ? 1 : -1;
        }
      } catch {
        // the next search tries again
      }
      this.host.redraw();
      return;
    }
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

  /**
   * The entries the index matched in a session, which narrow its branch tree; undefined when the
   * tokens do (a scan), or the whole tree shows (a title match). Fetched on first need.
   */
  branchIdsOf(file: string): ReadonlySet<string> | undefined {
    if (!this.active || !this.usedIndex) return undefined;
    const hit = this.hits.get(file);
    if (!hit || hit.entryMatches === 0) return undefined;
    return this.ids.get(file) ?? EMPTY;
  }

  /** Loads the index's matches of a session the search did not open (the user expands it). */
  async ensureIds(file: string): Promise<void> {
    const index = this.host.index;
    if (!this.active || !this.usedIndex || !index || this.ids.has(file) || (this.hits.get(file)?.entryMatches ?? 0) === 0) return;
    const gen = this.gen;
    const ids = await index.matchIds(this.host.roots(), this.query, [file]).catch(() => ({}) as Record<string, string[]>);
    if (gen === this.gen) this.ids.set(file, new Set(ids[file] ?? []));
  }

  /** The rank of a matching session (lower first); undefined outside an indexed search. */
  rankOf(file: string): number | undefined {
    return this.active && this.usedIndex ? this.ranks.get(file) : undefined;
  }

  /** Looks at one session; true when it matches. */
  private async searchOne(meta: SessionMeta, gen: number): Promise<boolean> {
    const file = meta.file;
    const known = this.host.models.isKnown(file);
    if (meta.format === 'dsh') {
      // dsh logs have no branch tree in this view: they match by their title and first prompt.
      const hit = { entryMatches: 0, titleMatch: titleMatches(meta, this.tokens) };
      this.hits.set(file, hit);
      return hit.titleMatch;
    }
    try {
      const { model } = await this.host.models.get(file);
      if (gen !== this.gen) {
        if (!known && !this.kept.has(file)) this.release(file);
        return false;
      }
      // The entries the filter shows and the tokens match (the hit is not set yet: branchTokensOf gives the tokens).
      this.hits.delete(file);
      const entryMatches = await this.host.matches(model, file);
      if (gen !== this.gen) {
        if (!known && !this.kept.has(file)) this.release(file);
        return false;
      }
      const hit = { entryMatches, titleMatch: titleMatches(meta, this.tokens) };
      this.hits.set(file, hit);
      const match = isSearchMatch(hit);
      if (match && (known || this.kept.size < MAX_KEPT)) this.keep(file, known);
      else if (!known) this.release(file);
      return match;
    } catch {
      // Unreadable right now: it can still match by the title its listing read.
      if (gen !== this.gen) return false;
      const hit = { entryMatches: 0, titleMatch: titleMatches(meta, this.tokens) };
      this.hits.set(file, hit);
      return hit.titleMatch;
    }
  }

  /** Keeps a result open while the search shows it (one it opened itself is let go when the search ends). */
  private keep(file: string, known: boolean): void {
    if (known) return;
    this.kept.add(file);
    this.host.models.hold(file, 'search');
  }

  private release(file: string): void {
    this.host.models.release(file);
  }

  /** Lets go of the sessions a finished search opened: they join the view's few idle ones (an expanded row holds its own). */
  private releaseKept(): void {
    for (const file of this.kept) this.host.models.unhold(file, 'search');
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
