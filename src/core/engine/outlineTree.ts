// The tree rows of a linear log shown as an outline (dsh: turns → steps → events; Codex: turns →
// records): a window of the rows a filter shows, the selected node's path marked, and the row of a
// node the filter hides found at its nearest shown ancestor. The formats differ in how a node is
// named and when it happened, given by `display`; nothing else here knows them.
//
// The Sessions view's branch rows of an outline (OutlineBranches) are its top-level nodes: one
// with shown nodes below it (a turn) is a run of those nodes, titled by it and paged like a run of
// the branch tree; one without (a record before the first turn) is an entry row. The rows are the
// editor's (OutlineRows), so both views name and mark a node alike.
import type { TreeRow } from '../../protocol/messages';
import type { BranchSegment, EntryFacts, RevealStep, RunEntry, TreeParams, TreeResult } from './model';
import { RUN_TITLE_MAX, shortenPreview } from './xcsh/branchQueries';

/** A node of an outline: its id, its indentation and its parent (an index into the nodes, -1 at the top). */
export interface OutlineNodeLike {
  id: string;
  depth: number;
  parent: number;
}

export interface OutlineLike<N extends OutlineNodeLike> {
  readonly nodes: readonly N[];
  readonly byId: ReadonlyMap<string, number>;
  readonly defaultLeaf: string | null;
}

/** What a row shows of a node beyond its place: kind, text, label, time. */
export type OutlineRowDisplay = Pick<TreeRow, 'kind' | 'text' | 'label' | 'timestamp'>;

/** The rows a filter shows (node indexes in order) and how many nodes it hides. */
export interface OutlineVisible {
  readonly rows: readonly number[];
  readonly hidden: number;
}

/** The rows of an outline under a filter, with `leaf` (the selected node, or the default) on its path. */
export class OutlineRows<N extends OutlineNodeLike> {
  readonly #rowOf = new Map<number, number>();
  readonly #onPath = new Set<number>();
  readonly leafIndex: number;

  constructor(
    readonly outline: OutlineLike<N>,
    readonly visible: OutlineVisible,
    leaf: N | undefined,
    private readonly display: (n: N) => OutlineRowDisplay,
  ) {
    visible.rows.forEach((nodeIndex, row) => this.#rowOf.set(nodeIndex, row));
    this.leafIndex = leaf ? outline.byId.get(leaf.id)! : -1;
    for (let k = this.leafIndex; k !== -1; k = outline.nodes[k]!.parent) this.#onPath.add(k);
  }

  /** The row of a node (-1 when hidden). */
  rowOf(nodeIndex: number): number {
    return this.#rowOf.get(nodeIndex) ?? -1;
  }

  /** The row of a node, or of its nearest shown ancestor. */
  rowNear(nodeIndex: number): number | null {
    for (let k = nodeIndex; k !== -1; k = this.outline.nodes[k]!.parent) if (this.#rowOf.has(k)) return this.#rowOf.get(k)!;
    return null;
  }

  /** Whether a node is the leaf or one of its ancestors. */
  onPath(nodeIndex: number): boolean {
    return this.#onPath.has(nodeIndex);
  }

  row(r: number): TreeRow {
    const i = this.visible.rows[r]!;
    const n = this.outline.nodes[i]!;
    return {
      entryId: n.id,
      depth: n.depth,
      ...this.display(n),
      // one line of events: no branch tips to mark (the last one is "latest")
      isLeaf: false,
      isDefaultLeaf: n.id === this.outline.defaultLeaf,
      onPath: this.#onPath.has(i),
      forks: false,
    };
  }

  /** The window [p.start, p.start + p.count) of the rows (the editor's tree). */
  window(p: TreeParams): TreeResult {
    const { rows, hidden } = this.visible;
    const out: TreeRow[] = [];
    for (let r = p.start; r < Math.min(rows.length, p.start + p.count); r++) out.push(this.row(r));
    const focus = p.focusEntryId !== null ? this.outline.byId.get(p.focusEntryId) : undefined;
    const leafIndex = this.leafIndex;
    return {
      total: rows.length,
      hidden,
      selectedIndex: leafIndex === -1 ? null : this.rowNear(leafIndex),
      leafHidden: leafIndex !== -1 && !this.#rowOf.has(leafIndex),
      focusIndex: focus === undefined ? null : this.rowNear(focus),
      rows: out,
    };
  }
}

/**
 * The window [p.start, p.start + p.count) of the rows `visible` lists (node indexes in order, and
 * how many the filter hides), with `leaf` (the selected node, or the default) on its path.
 */
export function outlineTreeWindow<N extends OutlineNodeLike>(p: TreeParams, outline: OutlineLike<N>, visible: OutlineVisible, leaf: N | undefined, display: (n: N) => OutlineRowDisplay): TreeResult {
  return new OutlineRows(outline, visible, leaf, display).window(p);
}

/** A top-level node and the rows shown below it: [from, to) (empty for a node with none). */
interface Group {
  head: number;
  from: number;
  to: number;
}

/**
 * The Sessions view's branch rows of an outline laid out with the default leaf (see the file
 * comment): `facts` gives a node's icon facts (its role, whether it calls tools).
 */
export class OutlineBranches<N extends OutlineNodeLike> {
  readonly #groups: Group[] = [];
  /** Group of each row. */
  readonly #groupOf: Int32Array;
  /** A run's group by its first row's node id. */
  readonly #runs = new Map<string, number>();

  constructor(
    private readonly rows: OutlineRows<N>,
    private readonly facts: (n: N) => Pick<EntryFacts, 'role' | 'callsTools'>,
  ) {
    const { outline, visible } = rows;
    const list = visible.rows;
    this.#groupOf = new Int32Array(list.length).fill(-1);
    for (let r = 0; r < list.length; ) {
      const head = r++;
      // (The first shown row is at the top: an ancestor hidden above it would be shown.)
      while (r < list.length && outline.nodes[list[r]!]!.parent !== -1) r++;
      const g = this.#groups.length;
      this.#groups.push({ head, from: head + 1, to: r });
      for (let k = head; k < r; k++) this.#groupOf[k] = g;
      if (r > head + 1) this.#runs.set(outline.nodes[list[head + 1]!]!.id, g);
    }
  }

  #entry(r: number): RunEntry {
    const row = { ...this.rows.row(r), depth: 0 };
    const n = this.rows.outline.nodes[this.rows.visible.rows[r]!]!;
    return { id: n.id, hasBranches: false, row, branches: 0, ...this.facts(n) };
  }

  /** The top-level rows (nothing is below an entry row: a run's entries are its pages). */
  segments(under: string | null): BranchSegment[] {
    if (under !== null) return [];
    const { outline, visible } = this.rows;
    return this.#groups.map((g): BranchSegment => {
      if (g.to === g.from) return { kind: 'entry', ...this.#entry(g.head) };
      const id = (r: number): string => outline.nodes[visible.rows[r]!]!.id;
      return { kind: 'run', firstId: id(g.from), lastId: id(g.to - 1), count: g.to - g.from, title: shortenPreview(this.rows.row(g.head).text, RUN_TITLE_MAX), onActivePath: this.rows.onPath(visible.rows[g.head]!) };
    });
  }

  /** Entries [start, start + count) of the run that starts at `firstId`. */
  runEntries(firstId: string, start: number, count: number): RunEntry[] {
    const g = this.#runs.get(firstId);
    if (g === undefined || count <= 0) return [];
    const { from, to } = this.#groups[g]!;
    const out: RunEntry[] = [];
    for (let r = from + Math.max(0, start); r < Math.min(to, from + Math.max(0, start) + count); r++) out.push(this.#entry(r));
    return out;
  }

  /**
   * The entry row that shows `entryId` and the segment holding it. A node shown at the top of a
   * run (a turn) is shown by its last entry, whose context is the turn's; a hidden node by the
   * nearest entry shown before it in its run, else by the run's first.
   */
  revealPath(entryId: string): { target: string; chain: RevealStep[] } | null {
    const { outline, visible } = this.rows;
    const i = outline.byId.get(entryId);
    const near = i === undefined ? null : this.rows.rowNear(i);
    if (i === undefined || near === null) return null;
    const g = this.#groups[this.#groupOf[near]!]!;
    const id = (r: number): string => outline.nodes[visible.rows[r]!]!.id;
    if (g.to === g.from) return { target: id(g.head), chain: [{ under: null, kind: 'entry', firstId: id(g.head), at: 0 }] };
    let r = near;
    if (near === g.head) {
      r = g.from;
      if (i === visible.rows[g.head]) r = g.to - 1;
      else for (let k = g.from; k < g.to && visible.rows[k]! <= i; k++) r = k;
    }
    return { target: id(r), chain: [{ under: null, kind: 'run', firstId: id(g.from), at: r - g.from }] };
  }

  /** The entry rows the view can show (a run's head is no entry row). */
  searchHit(): { entryMatches: number } {
    let n = 0;
    for (const g of this.#groups) n += g.to === g.from ? 1 : g.to - g.from;
    return { entryMatches: n };
  }
}
