// The editor's branch tree as flat rows: the Sessions view's filters and search (core/treeView)
// applied to the core's tree index, then flattened depth-first so the webview can window it.
// A linear run stays at one indentation; only side branches indent, so a 100k-entry
// chain is a flat list instead of a 100k-deep staircase.
import type { TreeIndex } from '../../core/tree';
import { computeVisibleTree, entryPreview, nearestVisible, roleOf, tokenizeSearch, treeSourceFromIndex, type TreeSource, type ViewEntry } from '../../core/treeView';
import type { TreeFilter, TreeRow } from '../../protocol/messages';

export interface FlatTree {
  ids: string[];
  /** id → row, for entries the filter shows. */
  rowOf: Map<string, number>;
  depths: Int32Array;
  forks: Uint8Array;
  onPath: Set<string>;
  hidden: number;
  selectedIndex: number | null;
}

/** The core's tree source, with the active path following the editor's selection instead of the default leaf. */
export function treeSource(index: TreeIndex, leafId: string | null): TreeSource {
  return { ...treeSourceFromIndex(index), leafId };
}

export function flattenTree(index: TreeIndex, filter: TreeFilter, search: string, selectedLeaf: string | null): FlatTree {
  const src = treeSource(index, selectedLeaf);
  const tree = computeVisibleTree(src, { filter, tokens: tokenizeSearch(search) });
  const ids: string[] = [];
  const depthList: number[] = [];
  const forkList: number[] = [];
  // At a fork the first child (the active path when it runs through here, else the oldest
  // branch) continues at the same indentation; the other branches are listed right after the
  // fork point, one level deeper, and then the main line resumes. A 100k-entry session with
  // hundreds of side branches thus stays readable: its main line never drifts to the right.
  const top = tree.children.get(null) ?? [];
  // Three parallel stacks (id, depth, forks) rather than a tuple per row: 100k rows per refresh.
  const stackIds: string[] = [];
  const stackDepths: number[] = [];
  const stackForks: number[] = [];
  const pushChildren = (kids: readonly string[], depth: number): void => {
    if (kids.length === 0) return;
    stackIds.push(kids[0]!);
    stackDepths.push(depth);
    stackForks.push(0);
    for (let i = kids.length - 1; i >= 1; i--) {
      stackIds.push(kids[i]!);
      stackDepths.push(depth + 1);
      stackForks.push(1);
    }
  };
  pushChildren(top, 0);
  const rowOf = new Map<string, number>();
  while (stackIds.length > 0) {
    const id = stackIds.pop()!;
    const depth = stackDepths.pop()!;
    rowOf.set(id, ids.length);
    ids.push(id);
    depthList.push(depth);
    forkList.push(stackForks.pop()!);
    const kids = tree.children.get(id);
    if (kids) pushChildren(kids, depth);
  }
  let selectedIndex: number | null = null;
  if (selectedLeaf !== null) {
    const target = nearestVisible(tree, src, selectedLeaf);
    if (target !== undefined) selectedIndex = rowOf.get(target) ?? null;
  }
  return { ids, rowOf, depths: Int32Array.from(depthList), forks: Uint8Array.from(forkList), onPath: tree.activePath, hidden: tree.hidden, selectedIndex };
}

export function treeRows(index: TreeIndex, flat: FlatTree, start: number, count: number): TreeRow[] {
  const rows: TreeRow[] = [];
  const end = Math.min(flat.ids.length, start + count);
  for (let i = start; i < end; i++) {
    const id = flat.ids[i]!;
    const e = index.get(id) as ViewEntry | undefined;
    const ts = e && typeof e.timestamp === 'string' ? e.timestamp : null;
    rows.push({
      entryId: id,
      depth: flat.depths[i]!,
      kind: e ? (roleOf(e) ?? e.type) : '?',
      text: e ? entryPreview(e, 140) : id,
      label: index.labels.get(id) ?? null,
      timestamp: ts,
      isLeaf: index.children(id).length === 0,
      isDefaultLeaf: id === index.defaultLeafId,
      onPath: flat.onPath.has(id),
      forks: flat.forks[i] === 1,
    });
  }
  return rows;
}

/** The row of an entry, or of its nearest ancestor the filter shows. */
export function rowOfEntry(index: TreeIndex, flat: FlatTree, entryId: string): number | null {
  const path = index.pathIndices(entryId);
  for (let k = path.length - 1; k >= 0; k--) {
    const row = flat.rowOf.get(index.entries[path[k]!]!.id);
    if (row !== undefined) return row;
  }
  return null;
}
