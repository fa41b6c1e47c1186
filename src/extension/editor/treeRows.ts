// The editor's branch tree as flat rows: the Sessions view's filters and search (core/treeView)
// applied to the core's tree index, then flattened depth-first so the webview can window it.
// A linear run stays at one indentation; only side branches indent, so a 100k-entry
// chain is a flat list instead of a 100k-deep staircase.
//
// It walks the index by position (typed arrays, no string-keyed maps): it runs on open and on
// every live refresh, over the whole session. The visible tree is the one the Sessions view
// builds with computeVisibleTree (a hidden entry passes its place to its children; the active
// branch comes first, then file order) — test/unit/editorWindows.test.ts checks they agree.
import type { TreeIndex } from '../../core/tree';
import { entryPreview, matchesSearch, passesFilter, roleOf, searchHaystack, tokenizeSearch, type ViewEntry } from '../../core/treeView';
import type { TreeFilter, TreeRow } from '../../protocol/messages';

export interface FlatTree {
  /** Entry id of each row. */
  ids: string[];
  /** rowAt[position in index.entries] = its row, or -1 when the filter or search hides it. */
  rowAt: Int32Array;
  depths: Int32Array;
  forks: Uint8Array;
  /** onPath[position] = 1 for the entries on the selected leaf's path. */
  onPath: Uint8Array;
  hidden: number;
  selectedIndex: number | null;
}

export function flattenTree(index: TreeIndex, filter: TreeFilter, search: string, selectedLeaf: string | null): FlatTree {
  const entries = index.entries as readonly ViewEntry[];
  const n = entries.length;
  const tokens = tokenizeSearch(search);
  const leafPos = selectedLeaf === null ? -1 : index.indexOf(selectedLeaf);
  const onPath = new Uint8Array(n);
  for (let i = leafPos; i !== -1; i = index.parentAt(i)) onPath[i] = 1;
  const hasId = (i: number): boolean => typeof entries[i]!.id === 'string';

  // 1. The visible tree, as linked lists of positions: visFirst[a] → visNext[c] → … (a = -1 is
  // the top, kept in topFirst/topLast). Depth-first from the roots with the nearest visible
  // ancestor as anchor; at every node the child on the active path is visited first, so each
  // anchor's list comes out active branch first, then in file order.
  const visFirst = new Int32Array(n).fill(-1);
  const visLast = new Int32Array(n).fill(-1);
  const visNext = new Int32Array(n).fill(-1);
  let topFirst = -1;
  let topLast = -1;
  let hidden = 0;
  const stackPos: number[] = [];
  const stackAnchor: number[] = [];
  const pushOrdered = (first: number, anchor: number): void => {
    // children of one node, pushed so they pop active first, then in file order
    const from = stackPos.length;
    let active = -1;
    for (let c = first; c !== -1; c = index.nextSiblingAt(c)) {
      if (!hasId(c)) continue;
      if (active === -1 && onPath[c] === 1) active = c;
      else stackPos.push(c);
    }
    // reverse what was pushed (file order) so the first child pops first
    for (let a = from, b = stackPos.length - 1; a < b; a++, b--) {
      const t = stackPos[a]!;
      stackPos[a] = stackPos[b]!;
      stackPos[b] = t;
    }
    for (let k = from; k < stackPos.length; k++) stackAnchor.push(anchor);
    if (active !== -1) {
      stackPos.push(active);
      stackAnchor.push(anchor);
    }
  };
  const roots = index.rootPositions;
  for (let k = roots.length - 1; k >= 0; k--) {
    // roots, like children: active first, then file order
    const r = roots[k]!;
    if (!hasId(r) || onPath[r] === 1) continue;
    stackPos.push(r);
    stackAnchor.push(-1);
  }
  for (const r of roots) {
    if (hasId(r) && onPath[r] === 1) {
      stackPos.push(r);
      stackAnchor.push(-1);
      break;
    }
  }
  while (stackPos.length > 0) {
    const i = stackPos.pop()!;
    const anchor = stackAnchor.pop()!;
    const e = entries[i]!;
    const label = index.labels.get(e.id);
    const visible = passesFilter(e, filter, label, i === leafPos) && (tokens.length === 0 || matchesSearch(searchHaystack(e, label), tokens));
    let next = anchor;
    if (visible) {
      if (anchor === -1) {
        if (topLast === -1) topFirst = i;
        else visNext[topLast] = i;
        topLast = i;
      } else {
        if (visLast[anchor] === -1) visFirst[anchor] = i;
        else visNext[visLast[anchor]!] = i;
        visLast[anchor] = i;
      }
      next = i;
    } else {
      hidden++;
    }
    pushOrdered(index.firstChildAt(i), next);
  }

  // 2. Rows. At a fork the first child (the active path when it runs through here, else the
  // oldest branch) continues at the same indentation; the other branches are listed right after
  // the fork point, one level deeper, and then the main line resumes. A 100k-entry session with
  // hundreds of side branches thus stays readable: its main line never drifts to the right.
  const ids: string[] = [];
  const depthList: number[] = [];
  const forkList: number[] = [];
  const rowAt = new Int32Array(n).fill(-1);
  const rowPos: number[] = [];
  const rowDepth: number[] = [];
  const rowFork: number[] = [];
  const pushChildren = (first: number, depth: number): void => {
    if (first === -1) return;
    rowPos.push(first);
    rowDepth.push(depth);
    rowFork.push(0);
    const from = rowPos.length;
    for (let c = visNext[first]!; c !== -1; c = visNext[c]!) {
      rowPos.push(c);
      rowDepth.push(depth + 1);
      rowFork.push(1);
    }
    // the side branches pop in file order: reverse the ones just pushed
    for (let a = from, b = rowPos.length - 1; a < b; a++, b--) {
      const t = rowPos[a]!;
      rowPos[a] = rowPos[b]!;
      rowPos[b] = t;
    }
  };
  pushChildren(topFirst, 0);
  while (rowPos.length > 0) {
    const i = rowPos.pop()!;
    const depth = rowDepth.pop()!;
    rowAt[i] = ids.length;
    ids.push(entries[i]!.id);
    depthList.push(depth);
    forkList.push(rowFork.pop()!);
    pushChildren(visFirst[i]!, depth);
  }

  // The selection: the selected leaf's row, or its nearest ancestor the filter shows.
  let selectedIndex: number | null = null;
  for (let i = leafPos; i !== -1; i = index.parentAt(i)) {
    if (rowAt[i] !== -1) {
      selectedIndex = rowAt[i]!;
      break;
    }
  }
  return { ids, rowAt, depths: Int32Array.from(depthList), forks: Uint8Array.from(forkList), onPath, hidden, selectedIndex };
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
      onPath: flat.onPath[index.indexOf(id)] === 1,
      forks: flat.forks[i] === 1,
    });
  }
  return rows;
}

/** The row of an entry, or of its nearest ancestor the filter shows. */
export function rowOfEntry(index: TreeIndex, flat: FlatTree, entryId: string): number | null {
  for (let i = index.indexOf(entryId); i !== -1; i = index.parentAt(i)) {
    if (flat.rowAt[i] !== -1) return flat.rowAt[i]!;
  }
  return null;
}
