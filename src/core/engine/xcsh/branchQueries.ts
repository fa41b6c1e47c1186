// The Sessions view's branch tree as model queries (issue 11): what segmentsUnder(computeVisibleTree
// (…)), runTitle and nearestVisible + the view's visibleEntryNode give today, answered over the
// one forest walk (visibleForest) both xcsh models share — positions and typed arrays, and no
// full id list: a run of a million entries is sent as its first and last id and a count, and its
// entries are paged.
import type { TreeRow } from '../../../protocol/messages';
import { entryPreview, roleOf, tokenizeSearch, visibleForest, type ForestSource, type TreeFilterMode, type ViewEntry, type VisibleForest } from '../../tree/treeView';

export interface BranchQuery {
  filter: TreeFilterMode;
  search: string;
  /**
   * The entries a search index matched: they are what the search shows instead of the entries
   * matching `search` (whose tokens are then not used, so the lazy model need not scan bodies).
   */
  ids?: string[];
}

/** What the Sessions view's entry row shows beyond the TreeRow: its branch count and tool-call icon. */
export interface EntryFacts {
  /** How many visible children the entry has (a fork shows "N branches"). */
  branches: number;
  /** An assistant message that calls tools (the row's icon says so). */
  callsTools: boolean;
  /** The message's role (null for an entry that is no message: its `row.kind` is then its type). */
  role: string | null;
}

export type BranchSegment =
  | ({ kind: 'entry'; id: string; hasBranches: boolean; row: TreeRow } & EntryFacts)
  | { kind: 'run'; firstId: string; lastId: string; count: number; title: string; onActivePath: boolean };

export interface RunEntry extends EntryFacts {
  id: string;
  /** The run's last entry when the branch forks there (its children are the next segments). */
  hasBranches: boolean;
  row: TreeRow;
}

/** A step of the way down to an entry: the segment that starts at `firstId` under `under` (null: the top). */
export interface RevealStep {
  under: string | null;
  kind: 'entry' | 'run';
  firstId: string;
  /** Where in the segment the way goes on (0 for an entry): the view pages a run up to there. */
  at: number;
}

/** The rows' preview length (entryPreview(e, ROW_PREVIEW_MAX)); a view wanting fewer characters cuts it with `shortenPreview`. */
export const ROW_PREVIEW_MAX = 140;

/**
 * A row's preview cut to `max` (≤ ROW_PREVIEW_MAX) characters: exactly entryPreview(e, max), since
 * both cut the same one-line text (the Sessions view shows 100, the editor's tree 140).
 */
export function shortenPreview(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

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
