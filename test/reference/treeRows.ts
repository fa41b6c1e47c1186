// The reference (test-only, issue 23): the whole-file model's tree rows over its TreeIndex.
import type { TreeIndex } from '../../src/core/tree/tree';
import { entryPreview, roleOf, tokenizeSearch, type ViewEntry } from '../../src/core/tree/treeView';
import { forestSourceOfIndex } from './treeView';
import type { TreeFilter, TreeRow } from '../../src/protocol/messages';
import { layoutForest, selectLeafIn, type ForestLayout, type LeafSelection } from './forestLayout';

/** The eager layout also names each row's entry id. */
export interface TreeLayout extends ForestLayout {
  /** Entry id of each row. */
  ids: string[];
}

export type FlatTree = TreeLayout & LeafSelection;

export function flattenTree(index: TreeIndex, filter: TreeFilter, search: string, selectedLeaf: string | null): FlatTree {
  return selectLeafIn(index, layoutTree(index, filter, search), selectedLeaf);
}

export function layoutTree(index: TreeIndex, filter: TreeFilter, search: string): TreeLayout {
  const entries = index.entries as readonly ViewEntry[];
  const layout = layoutForest(forestSourceOfIndex(index), filter, tokenizeSearch(search), index.defaultLeafId);
  const ids = new Array<string>(layout.pos.length);
  for (let r = 0; r < ids.length; r++) ids[r] = entries[layout.pos[r]!]!.id;
  return { ...layout, ids };
}

/** How the tree names an entry: its kind (role or type), its one-line text and its label. */
export function rowDisplay(index: TreeIndex, id: string): { kind: string; text: string; label: string | null } {
  const e = index.get(id) as ViewEntry | undefined;
  return { kind: e ? (roleOf(e) ?? e.type) : '?', text: e ? entryPreview(e, 140) : id, label: index.labels.get(id) ?? null };
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
      ...rowDisplay(index, id),
      timestamp: ts,
      isLeaf: index.children(id).length === 0,
      isDefaultLeaf: id === index.defaultLeafId,
      onPath: flat.onPath[index.indexOf(id)] === 1,
      forks: flat.forks[i] === 1,
    });
  }
  return rows;
}

