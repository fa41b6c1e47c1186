// The reference (test-only, issue 23): the editor's branch tree laid out whole, as the engine
// did before it laid rows out in windows (src/core/engine/xcsh/treeRows.ts). Every visible entry
// gets its row in one walk over the visible forest (visibleForest), and a selection marks its whole
// path in an entry-sized array: O(n) per filter and per selection, kept because it is simple
// enough to be obviously right. The engine's windowed rows are checked against it
// (test/unit/treeRowsWindows.test.ts), and the reference model (xcshModel.ts) answers with it.
//
// The layout never depends on the selection (issue 14): which branch continues a line is decided
// by the session's default leaf, as in the Sessions view, so selecting an entry on another branch
// only highlights its path.
import { visibleForest, type ForestSource } from './treeView';
import type { TreeFilter } from '../../src/protocol/messages';

/** The rows of a filter and search: independent of the selected leaf. */
export interface ForestLayout {
  /** Position (in file order) of the entry of each row. */
  pos: Int32Array;
  /** rowAt[position in index.entries] = its row, or -1 when the filter or search hides it. */
  rowAt: Int32Array;
  depths: Int32Array;
  forks: Uint8Array;
  hidden: number;
}

export interface LeafSelection {
  /** onPath[position] = 1 for the entries on the selected leaf's path. */
  onPath: Uint8Array;
  selectedIndex: number | null;
}

/** The rows of a filter and search over a forest source. */
export function layoutForest(src: ForestSource, filter: TreeFilter, tokens: readonly string[], defaultLeafId: string | null): ForestLayout {
  // Ordered (and the empty-assistant exemption of the filters applied) by the default leaf, never
  // by the selection: see the file comment.
  const { top, first: visFirst, next: visNext, hidden } = visibleForest(src, { filter, tokens }, defaultLeafId);

  // At a fork the first child (the default leaf's line when it runs through here, else the
  // oldest branch) continues at the same indentation; the other branches are listed right after
  // the fork point, one level deeper, and then the main line resumes. A 100k-entry session with
  // hundreds of side branches thus stays readable: its main line never drifts to the right.
  // Typed arrays sized by the entry count (each entry is pushed and laid out at most once): JS
  // number arrays grown by push made this walk 4 s for a 1M-entry session.
  const n = src.n;
  const rowAt = new Int32Array(n).fill(-1);
  const pos = new Int32Array(n);
  const depths = new Int32Array(n);
  const forks = new Uint8Array(n);
  const stackPos = new Int32Array(n);
  const stackDepth = new Int32Array(n);
  const stackFork = new Uint8Array(n);
  let sp = 0;
  let rows = 0;
  const pushChildren = (first: number, depth: number): void => {
    if (first === -1) return;
    stackPos[sp] = first;
    stackDepth[sp] = depth;
    stackFork[sp++] = 0;
    const from = sp;
    for (let c = visNext[first]!; c !== -1; c = visNext[c]!) {
      stackPos[sp] = c;
      stackDepth[sp] = depth + 1;
      stackFork[sp++] = 1;
    }
    // the side branches pop in file order: reverse the ones just pushed
    for (let a = from, b = sp - 1; a < b; a++, b--) {
      const t = stackPos[a]!;
      stackPos[a] = stackPos[b]!;
      stackPos[b] = t;
    }
  };
  pushChildren(top, 0);
  while (sp > 0) {
    sp--;
    const i = stackPos[sp]!;
    const depth = stackDepth[sp]!;
    rowAt[i] = rows;
    pos[rows] = i;
    depths[rows] = depth;
    forks[rows++] = stackFork[sp]!;
    pushChildren(visFirst[i]!, depth);
  }
  return { pos: pos.slice(0, rows), rowAt, depths: depths.slice(0, rows), forks: forks.slice(0, rows), hidden };
}

export type TreeWalk = Pick<ForestSource, 'indexOf' | 'parentAt'>;

/** A layout with a selected leaf: its path highlighted, its row (or its nearest visible ancestor's) selected. */
export function selectLeafIn<L extends ForestLayout>(index: TreeWalk, layout: L, selectedLeaf: string | null): L & LeafSelection {
  const onPath = new Uint8Array(layout.rowAt.length);
  const leafPos = selectedLeaf === null ? -1 : index.indexOf(selectedLeaf);
  let selectedIndex: number | null = null;
  for (let i = leafPos; i !== -1; i = index.parentAt(i)) {
    onPath[i] = 1;
    if (selectedIndex === null && layout.rowAt[i] !== -1) selectedIndex = layout.rowAt[i]!;
  }
  return { ...layout, onPath, selectedIndex };
}

/** The row of an entry, or of its nearest ancestor the filter shows. */
export function rowOfEntry(index: TreeWalk, flat: ForestLayout, entryId: string): number | null {
  for (let i = index.indexOf(entryId); i !== -1; i = index.parentAt(i)) {
    if (flat.rowAt[i] !== -1) return flat.rowAt[i]!;
  }
  return null;
}
