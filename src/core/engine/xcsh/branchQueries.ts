// The Sessions view's branch tree as model queries (issue 11): what segmentsUnder(computeVisibleTree
// (…)), runTitle and nearestVisible (test/reference/treeView.ts) + the view's visibleEntryNode give, answered over the editor's
// rows of the same filter and search (treeRows.ts, issue 23): one walk lays out both views. No
// full id list: a run of a million entries is sent as its first and last id and a count, its
// entries are paged, and a reveal climbs run by run — each a few binary searches among the
// side branches (ForestRows' Sessions-view queries), never an entry-by-entry walk of a run.
import type { TreeRow } from '../../../protocol/messages';
import { entryPreview, roleOf, type TreeFilterMode, type ViewEntry } from '../../tree/treeView';
import type { ForestRows } from './treeRows';

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
/** A run row's title: its first prompt's preview cut to this length. */
export const RUN_TITLE_MAX = 80;

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

/**
 * What a row shows of an entry whatever the layout (the rest — depth, default leaf, path, fork —
 * the queries add), with its EntryFacts' role and tool-call icon: each format's model says it of
 * its own entries, in the words of the editor's tree rows.
 */
export type BranchRow = Pick<TreeRow, 'entryId' | 'kind' | 'text' | 'label' | 'timestamp' | 'isLeaf'> & Pick<EntryFacts, 'callsTools' | 'role'>;

/** An xcsh entry's row (the preview ROW_PREVIEW_MAX long); `isLeaf`: no child in the tree, whatever the filter shows. */
export function viewEntryRow(e: ViewEntry, label: string | undefined, isLeaf: boolean): BranchRow {
  return {
    entryId: e.id,
    kind: roleOf(e) ?? e.type,
    text: entryPreview(e, ROW_PREVIEW_MAX),
    label: label ?? null,
    timestamp: typeof e.timestamp === 'string' ? e.timestamp : null,
    isLeaf,
    callsTools: callsTools(e),
    role: roleOf(e) ?? null,
  };
}

/** What the queries read besides the rows: ids, the user flag, the rows of the few entries shown. */
export interface BranchSource {
  readonly defaultLeafPos: number;
  indexOf(id: string): number;
  idAt(i: number): string;
  /** A person's prompt (a run is titled by its first one). */
  isUserAt(i: number): boolean;
  /** The rows of the entries at these positions, in order. */
  rowsAt(positions: readonly number[]): Promise<BranchRow[]>;
}

/**
 * The queries over the rows of a query (its filter, and its search or the search index's ids),
 * laid out by the model as for the editor (ForestRows, ordered by the default leaf).
 */
export class BranchQueries {
  constructor(private readonly src: BranchSource) {}

  /** The default leaf's path over the rows (the Sessions view marks the active branch). */
  #activePath(rows: ForestRows): (row: number) => boolean {
    const sel = rows.select(this.src.defaultLeafPos);
    return (row) => sel.onPath(row);
  }

  async #facts(rows: ForestRows, at: readonly number[]): Promise<(TreeRow & EntryFacts)[]> {
    const src = this.src;
    const positions = at.map((r) => rows.posAt(r));
    const shown = await src.rowsAt(positions);
    const active = this.#activePath(rows);
    return positions.map((p, k) => {
      const { callsTools, role, ...row } = shown[k]!;
      const branches = rows.childCount(at[k]!);
      return { branches, callsTools, role, ...row, depth: 0, isDefaultLeaf: p === src.defaultLeafPos, onPath: active(at[k]!), forks: branches > 1 };
    });
  }

  /** The segments under a visible entry (null: the top), as segmentsUnder gives them. */
  async segments(rows: ForestRows, under: string | null): Promise<BranchSegment[]> {
    const src = this.src;
    const a = under === null ? -1 : src.indexOf(under);
    const parent = a === -1 ? -1 : rows.rowAt(a);
    if (a !== -1 && parent === -1) return [];
    const active = this.#activePath(rows);
    const out: (BranchSegment | number)[] = [];
    const singles: number[] = [];
    for (const start of rows.childRows(parent)) {
      const last = rows.runEnd(start);
      if (last === start) {
        out.push(start);
        singles.push(start);
        continue;
      }
      // Titled by its first user prompt: read up to it, not the whole run.
      let titled = start;
      for (let r = start; r <= last; r++) {
        if (src.isUserAt(rows.posAt(r))) {
          titled = r;
          break;
        }
      }
      const [title] = await src.rowsAt([rows.posAt(titled)]);
      out.push({ kind: 'run', firstId: src.idAt(rows.posAt(start)), lastId: src.idAt(rows.posAt(last)), count: last - start + 1, title: title ? shortenPreview(title.text, RUN_TITLE_MAX) : '', onActivePath: active(start) });
    }
    const facts = await this.#facts(rows, singles);
    let k = 0;
    return out.map((s) => {
      if (typeof s !== 'number') return s;
      const { branches, callsTools, role, ...row } = facts[k++]!;
      return { kind: 'entry', id: row.entryId, hasBranches: branches > 0, row, branches, callsTools, role };
    });
  }

  /** Entries [start, start + count) of the run that starts at `firstId`, paged (a run may hold a million). */
  async runEntries(rows: ForestRows, firstId: string, start: number, count: number): Promise<RunEntry[]> {
    const p = this.src.indexOf(firstId);
    const first = p === -1 ? -1 : rows.rowAt(p);
    if (first === -1 || count <= 0) return [];
    const from = first + Math.max(0, start);
    const end = Math.min(rows.runEnd(first), from + count - 1);
    const at: number[] = [];
    for (let r = from; r <= end; r++) at.push(r);
    const facts = await this.#facts(rows, at);
    // Only a run's last entry can have children besides the next one: the fork that ends it.
    return facts.map(({ branches, callsTools, role, ...row }) => ({ id: row.entryId, hasBranches: branches > 1, row, branches, callsTools, role }));
  }

  /**
   * Where an entry shows: `target` is the entry or its nearest visible ancestor, `chain` the
   * segments from the top down to the one holding it (what the view's reveal walks). Null when
   * nothing on its path is visible.
   */
  async revealPath(rows: ForestRows, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null> {
    const src = this.src;
    const p = src.indexOf(entryId);
    const t = p === -1 ? null : rows.nearestRow(p);
    if (t === null) return null;
    const chain: RevealStep[] = [];
    for (let r = t; r !== -1; ) {
      const { start, parent } = rows.runStart(r);
      chain.push({ under: parent === -1 ? null : src.idAt(rows.posAt(parent)), kind: rows.runEnd(start) > start ? 'run' : 'entry', firstId: src.idAt(rows.posAt(start)), at: r - start });
      r = parent;
    }
    return { target: src.idAt(rows.posAt(t)), chain: chain.reverse() };
  }

  /** How many entries the filter shows and the search matches (the Sessions search's count). */
  searchHit(rows: ForestRows): { entryMatches: number } {
    return { entryMatches: rows.rows };
  }
}
