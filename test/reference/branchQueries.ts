// The reference (test-only, issue 23): the Sessions view's branch-tree queries as the engine
// answered them before they were laid over the editor's rows (src/core/engine/xcsh/branchQueries.ts):
// over the whole visible forest of each query (visibleForest), a run counted, paged and climbed
// entry by entry. The reference model (xcshModel.ts) answers with it, so the engine's
// segments, runEntries, revealPath and searchHit are checked against it (test/unit/lazyModel.test.ts),
// and it against the Sessions view's own computeVisibleTree/segmentsUnder (test/unit/branchQueries.test.ts).
import type { TreeRow } from '../../src/protocol/messages';
import { entryPreview, roleOf, tokenizeSearch, type ViewEntry } from '../../src/core/tree/treeView';
import { visibleForest, type ForestSource, type VisibleForest } from './treeView';
import { ROW_PREVIEW_MAX, type BranchQuery, type BranchSegment, type EntryFacts, type RevealStep, type RunEntry } from '../../src/core/engine/xcsh/branchQueries';

function callsTools(e: ViewEntry): boolean {
  if (roleOf(e) !== 'assistant') return false;
  const content = (e.message as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) && content.some((b) => (b as { type?: unknown } | null)?.type === 'toolCall');
}

/** What the queries read besides the forest: ids, the user flag, bodies of the few entries shown. */
export interface BranchSource extends ForestSource {
  readonly defaultLeafId: string | null;
  idAt(i: number): string;
  /** roleOf(entry) === 'user' (a run is titled by its first user prompt). */
  isUserAt(i: number): boolean;
  labelOf(id: string): string | undefined;
  entriesAt(positions: readonly number[]): Promise<ViewEntry[]>;
}

export class BranchQueries {
  #cache: { key: string; forest: VisibleForest } | undefined;

  constructor(private readonly src: BranchSource) {}

  /** The visible forest of a query, ordered by the default leaf (as computeVisibleTree). Memoised per query. */
  forest(q: BranchQuery, prepare?: () => void): VisibleForest {
    // With the index's ids the tokens select nothing (visibleForest), so they are not part of the key.
    const tokens = q.ids ? [] : tokenizeSearch(q.search);
    const key = `${q.filter}\0${tokens.join(' ')}\0${q.ids ? q.ids.join('\n') : '-'}`;
    if (this.#cache?.key !== key) {
      prepare?.();
      const opts = { filter: q.filter, tokens, ...(q.ids ? { matchIds: new Set(q.ids) } : {}) };
      this.#cache = { key, forest: visibleForest(this.src, opts, this.src.defaultLeafId) };
    }
    return this.#cache.forest;
  }

  #childCount(f: VisibleForest, a: number, upTo = 2): number {
    let c = 0;
    for (let k = a === -1 ? f.top : f.first[a]!; k !== -1 && c < upTo; k = f.next[k]!) c++;
    return c;
  }

  async #rows(f: VisibleForest, positions: readonly number[]): Promise<(TreeRow & EntryFacts)[]> {
    const src = this.src;
    const entries = await src.entriesAt(positions);
    const defaultLeaf = src.defaultLeafId;
    return positions.map((p, k) => {
      const e = entries[k]!;
      return {
        branches: this.#childCount(f, p, Infinity),
        callsTools: callsTools(e),
        role: roleOf(e) ?? null,
        entryId: e.id,
        depth: 0,
        kind: roleOf(e) ?? e.type,
        text: entryPreview(e, ROW_PREVIEW_MAX),
        label: src.labelOf(e.id) ?? null,
        timestamp: typeof e.timestamp === 'string' ? e.timestamp : null,
        isLeaf: src.firstChildAt(p) === -1,
        isDefaultLeaf: e.id === defaultLeaf,
        onPath: f.onPath[p] === 1,
        forks: this.#childCount(f, p) > 1,
      };
    });
  }

  /** The segments under a visible entry (null: the top), as segmentsUnder gives them. */
  async segments(q: BranchQuery, under: string | null, forest?: VisibleForest): Promise<BranchSegment[]> {
    const f = forest ?? this.forest(q);
    const src = this.src;
    const a = under === null ? -1 : src.indexOf(under);
    if (a !== -1 && f.anchor[a] === -2) return [];
    const out: (BranchSegment | number)[] = [];
    const singles: number[] = [];
    for (let start = a === -1 ? f.top : f.first[a]!; start !== -1; start = f.next[start]!) {
      let last = start;
      let count = 1;
      let firstUser = src.isUserAt(start) ? start : -1;
      while (this.#childCount(f, last) === 1) {
        last = f.first[last]!;
        count++;
        if (firstUser === -1 && src.isUserAt(last)) firstUser = last;
      }
      if (count === 1) {
        out.push(start);
        singles.push(start);
      } else {
        const [titled] = await src.entriesAt([firstUser !== -1 ? firstUser : start]);
        out.push({ kind: 'run', firstId: src.idAt(start), lastId: src.idAt(last), count, title: titled ? entryPreview(titled, 80) : '', onActivePath: f.onPath[start] === 1 });
      }
    }
    const rows = await this.#rows(f, singles);
    let r = 0;
    return out.map((s) => {
      if (typeof s !== 'number') return s;
      const { branches, callsTools, role, ...row } = rows[r++]!;
      return { kind: 'entry', id: row.entryId, hasBranches: this.#childCount(f, s) > 0, row, branches, callsTools, role };
    });
  }

  /** Entries [start, start + count) of the run that starts at `firstId`, paged (a run may hold a million). */
  async runEntries(q: BranchQuery, firstId: string, start: number, count: number): Promise<RunEntry[]> {
    const f = this.forest(q);
    let p = this.src.indexOf(firstId);
    if (p === -1 || f.anchor[p] === -2) return [];
    const positions: number[] = [];
    for (let k = 0; p !== -1 && positions.length < count; k++) {
      if (k >= start) positions.push(p);
      if (this.#childCount(f, p) !== 1) break;
      p = f.first[p]!;
    }
    const rows = await this.#rows(f, positions);
    // Only a run's last entry can have children besides the next one: the fork that ends it.
    return positions.map((pos, k) => {
      const { branches, callsTools, role, ...row } = rows[k]!;
      return { id: row.entryId, hasBranches: this.#childCount(f, pos) > 1, row, branches, callsTools, role };
    });
  }

  /**
   * Where an entry shows: `target` is the entry or its nearest visible ancestor, `chain` the
   * segments from the top down to the one holding it (what the view's reveal walks). Null when
   * nothing on its path is visible.
   */
  async revealPath(q: BranchQuery, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null> {
    const f = this.forest(q);
    const src = this.src;
    let t = src.indexOf(entryId);
    while (t !== -1 && f.anchor[t] === -2) t = src.parentAt(t);
    if (t === -1) return null;
    const chain: RevealStep[] = [];
    for (let id = t; id !== -1; ) {
      let start = id;
      let at = 0;
      let above = f.anchor[start]!;
      while (above !== -1 && this.#childCount(f, above) === 1) {
        start = above;
        above = f.anchor[start]!;
        at++;
      }
      chain.push({ under: above === -1 ? null : src.idAt(above), kind: this.#childCount(f, start) === 1 ? 'run' : 'entry', firstId: src.idAt(start), at });
      id = above;
    }
    return { target: src.idAt(t), chain: chain.reverse() };
  }

  /** How many entries the filter shows and the search matches (the Sessions search's count). */
  searchHit(q: BranchQuery, forest?: VisibleForest): { entryMatches: number } {
    return { entryMatches: (forest ?? this.forest(q)).order.length };
  }
}
