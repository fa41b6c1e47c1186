// The tree rows of a linear log shown as an outline (dsh: turns → steps → events; Codex: turns →
// records): a window of the rows a filter shows, the selected node's path marked, and the row of a
// node the filter hides found at its nearest shown ancestor. The formats differ in how a node is
// named and when it happened, given by `display`; nothing else here knows them.
import type { TreeRow } from '../../protocol/messages';
import type { TreeParams, TreeResult } from './model';

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

/**
 * The window [p.start, p.start + p.count) of the rows `visible` lists (node indexes in order, and
 * how many the filter hides), with `leaf` (the selected node, or the default) on its path.
 */
export function outlineTreeWindow<N extends OutlineNodeLike>(p: TreeParams, outline: OutlineLike<N>, visible: { rows: readonly number[]; hidden: number }, leaf: N | undefined, display: (n: N) => OutlineRowDisplay): TreeResult {
  const { rows, hidden } = visible;
  const nodes = outline.nodes;
  const rowOf = new Map<number, number>();
  rows.forEach((nodeIndex, row) => rowOf.set(nodeIndex, row));
  const leafIndex = leaf ? outline.byId.get(leaf.id)! : -1;
  const onPath = new Set<number>();
  for (let k = leafIndex; k !== -1; k = nodes[k]!.parent) onPath.add(k);
  /** The row of a node, or of its nearest shown ancestor. */
  const rowNear = (i: number): number | null => {
    for (let k = i; k !== -1; k = nodes[k]!.parent) if (rowOf.has(k)) return rowOf.get(k)!;
    return null;
  };
  const focus = p.focusEntryId !== null ? outline.byId.get(p.focusEntryId) : undefined;
  const out: TreeRow[] = [];
  for (let r = p.start; r < Math.min(rows.length, p.start + p.count); r++) {
    const n = nodes[rows[r]!]!;
    out.push({
      entryId: n.id,
      depth: n.depth,
      ...display(n),
      // one line of events: no branch tips to mark (the last one is "latest")
      isLeaf: false,
      isDefaultLeaf: n.id === outline.defaultLeaf,
      onPath: onPath.has(rows[r]!),
      forks: false,
    });
  }
  return {
    total: rows.length,
    hidden,
    selectedIndex: leafIndex === -1 ? null : rowNear(leafIndex),
    leafHidden: leafIndex !== -1 && !rowOf.has(leafIndex),
    focusIndex: focus === undefined ? null : rowNear(focus),
    rows: out,
  };
}
