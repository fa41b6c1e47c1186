// The reference (test-only, issue 23): the branch tree computed whole over a loaded tree index, as
// the Sessions view and its search did before the session engine laid the same tree out as rows in
// windows (src/core/engine/xcsh/rowWalk.ts, treeRows.ts, branchQueries.ts), which are checked
// against it (test/unit/treeRowsWindows.test.ts, test/unit/branchQueries.test.ts, through the
// reference model test/unit/lazyModel.test.ts). passesFilter is the filter rule on the entry
// itself; the engine reads it from the bits it kept (src/core/tree/treeView.ts passesFilterFlags).
import type { TreeIndex } from '../../src/core/tree/tree';
import { entryPreview, hasText, hasToolCall, matchesSearch, messageOf, roleOf, searchHaystack, SETTINGS_TYPES, type TreeFilterMode, type ViewEntry } from '../../src/core/tree/treeView';
import { titleMatches, type SessionSearchHit, type SessionTitleFields } from '../../src/core/discovery/sessionSearch';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A read-only view of a session's entry tree: what the branch tree needs from the core's index. */
export interface TreeSource {
  /** The effective parent in the tree (null for roots, orphans and cut cycles). */
  parentOf(id: string): string | null;
  entry(id: string): ViewEntry | undefined;
  /** The current label of an entry (the newest `label` entry that targets it), if any. */
  labelOf(id: string): string | undefined;
  /** The default leaf (the last entry in file order, Part B §7), or null for an empty session. */
  readonly leafId: string | null;
  /** The index all of this reads (computeVisibleTree walks it by position: roots, children). */
  readonly index: TreeIndex;
}

/** Whether `filter` shows entry `e` (pi's applyFilter, before search). */
export function passesFilter(e: ViewEntry, mode: TreeFilterMode, label: string | undefined, isLeaf: boolean): boolean {
  const m = messageOf(e);
  const role = str(m?.role);
  if (mode !== 'all' && role === 'assistant' && !isLeaf) {
    const stop = str(m?.stopReason);
    const errorOrAborted = stop !== undefined && stop !== 'stop' && stop !== 'toolUse' && stop !== 'end_turn';
    if (!hasText(m?.content) && !hasToolCall(m?.content) && !errorOrAborted) return false;
  }
  const settings = SETTINGS_TYPES.has(e.type);
  switch (mode) {
    case 'all':
      return true;
    case 'user-only':
      return role === 'user';
    case 'no-tools':
      return !settings && role !== 'toolResult' && !(role === 'assistant' && !hasText(m?.content) && !isLeaf);
    case 'labelled-only':
      return label !== undefined && label !== '';
    case 'default':
      return !settings;
  }
}

/** A node of the visible branch tree: one entry, or a collapsed linear run of entries. */
export type BranchNode =
  | { kind: 'entry'; id: string }
  | { kind: 'run'; ids: string[] };

export interface VisibleTree {
  /** Visible entry id → nearest visible ancestor (null for visible roots). */
  parent: Map<string, string | null>;
  /**
   * Visible entry id (or null for the top) → visible children, active branch first, then file
   * order. A visible entry without visible children has no key (read it as `?? []`).
   */
  children: Map<string | null, string[]>;
  /** Ids on the path from the leaf to its root. */
  activePath: Set<string>;
  /** How many entries the filter and search hide. */
  hidden: number;
}

export interface VisibleOptions {
  filter: TreeFilterMode;
  tokens: readonly string[];
  /**
   * The entries a search matched, as the search index found them (its query language is more than
   * AND-ed substrings): when given, these decide what the search shows and `tokens` only highlight.
   */
  matchIds?: ReadonlySet<string>;
}

/**
 * The visible tree by position in `index.entries`, as linked lists: `first[a]` is the first
 * visible child of visible entry `a`, `next[c]` the sibling after `c`, `top` the first visible
 * root (-1 for none). An entry hidden by the filter or search passes its place to its children,
 * which hang under the nearest visible ancestor (as in pi's recalculateVisualStructure). At
 * every level the child on the active path (root → `leafId`) comes first, then file order.
 *
 * One walk over typed arrays, no string-keyed maps, over a whole loaded tree index (the session
 * search's computeVisibleTree; the test reference). The session engine lays the same tree out as
 * rows instead, in a walk that follows these rules (engine/xcsh/rowWalk.ts, checked against this
 * one) and answers both tree views in windows. The index has already cut cycles and set
 * duplicates aside, so each entry is visited once; entries without an id cannot be rows and are
 * skipped.
 */
export interface VisibleForest {
  top: number;
  first: Int32Array;
  next: Int32Array;
  /** Nearest visible ancestor of each visible entry (-1 for the top); -2 for the rest. */
  anchor: Int32Array;
  /** The visible entries in the order the walk met them (parents before children). */
  order: Int32Array;
  /** onPath[i] = 1 for the entries on the path from the root to the leaf. */
  onPath: Uint8Array;
  /** Position of `leafId`, or -1. */
  leafPos: number;
  /** How many entries the filter and search hide. */
  hidden: number;
}

/**
 * What visibleForest walks: the tree by position, and the filter and search by position. The
 * eager index answers from its entries (forestSourceOfIndex). (The session engine's lazy index
 * answers the same filters from flags it kept while streaming: LazyTree.shownBits.)
 */
export interface ForestSource {
  /** Positions 0…n-1. */
  readonly n: number;
  readonly rootPositions: readonly number[];
  indexOf(id: string): number;
  parentAt(i: number): number;
  firstChildAt(i: number): number;
  nextSiblingAt(i: number): number;
  /** Entries without an id cannot be rows. */
  hasIdAt(i: number): boolean;
  /** passesFilter of the entry at i (`isLeaf`: it is the leaf the filters exempt). */
  passesAt(i: number, mode: TreeFilterMode, isLeaf: boolean): boolean;
  /** Whether the entry at i matches every search token (only asked with tokens). */
  matchesAt(i: number, tokens: readonly string[]): boolean;
}

/** The forest source of the eager tree index: filters and search read the entries themselves. */
export function forestSourceOfIndex(index: TreeIndex): ForestSource {
  const entries = index.entries as readonly ViewEntry[];
  const labels = index.labels;
  return {
    n: entries.length,
    rootPositions: index.rootPositions,
    indexOf: (id) => index.indexOf(id),
    parentAt: (i) => index.parentAt(i),
    firstChildAt: (i) => index.firstChildAt(i),
    nextSiblingAt: (i) => index.nextSiblingAt(i),
    hasIdAt: (i) => typeof entries[i]!.id === 'string',
    passesAt: (i, mode, isLeaf) => passesFilter(entries[i]!, mode, labels.get(entries[i]!.id), isLeaf),
    matchesAt: (i, tokens) => matchesSearch(searchHaystack(entries[i]!, labels.get(entries[i]!.id)), tokens),
  };
}

export function visibleForest(src: ForestSource, opts: VisibleOptions, leafId: string | null): VisibleForest {
  const n = src.n;
  const leafPos = leafId === null ? -1 : src.indexOf(leafId);
  const onPath = new Uint8Array(n);
  for (let i = leafPos; i !== -1; i = src.parentAt(i)) onPath[i] = 1;

  const first = new Int32Array(n).fill(-1);
  const last = new Int32Array(n).fill(-1);
  const next = new Int32Array(n).fill(-1);
  const anchorOf = new Int32Array(n).fill(-2);
  const order = new Int32Array(n);
  let visibleCount = 0;
  let top = -1;
  let topLast = -1;
  let hidden = 0;
  // Depth-first over two parallel stacks (position, nearest visible ancestor).
  const stackPos: number[] = [];
  const stackAnchor: number[] = [];
  /** Pushes `kids` (file order) so that the one on the active path pops first, then the rest in file order. */
  const pushOrdered = (kids: readonly number[], anchor: number): void => {
    let active = -1;
    for (let k = kids.length - 1; k >= 0; k--) {
      const c = kids[k]!;
      if (!src.hasIdAt(c)) continue;
      if (onPath[c] === 1 && active === -1) active = c;
      else {
        stackPos.push(c);
        stackAnchor.push(anchor);
      }
    }
    if (active !== -1) {
      stackPos.push(active);
      stackAnchor.push(anchor);
    }
  };
  // The search index's matches, by position (they decide what a search shows when given).
  const matchPos = opts.matchIds ? new Set([...opts.matchIds].map((id) => src.indexOf(id)).filter((p) => p >= 0)) : null;
  const kids: number[] = [];
  pushOrdered(src.rootPositions, -1);
  const searching = opts.tokens.length > 0;
  while (stackPos.length > 0) {
    let i = stackPos.pop()!;
    let anchor = stackAnchor.pop()!;
    // Down a chain of only children without the stack (a linear session is one such chain: a
    // 1M-entry one walked in a third less time); a fork pushes its children as before.
    for (;;) {
      const visible = src.passesAt(i, opts.filter, i === leafPos) && (matchPos ? matchPos.has(i) : !searching || src.matchesAt(i, opts.tokens));
      let below = anchor;
      if (visible) {
        if (anchor === -1) {
          if (topLast === -1) top = i;
          else next[topLast] = i;
          topLast = i;
        } else {
          if (last[anchor] === -1) first[anchor] = i;
          else next[last[anchor]!] = i;
          last[anchor] = i;
        }
        anchorOf[i] = anchor;
        order[visibleCount++] = i;
        below = i;
      } else {
        hidden++;
      }
      const only = src.firstChildAt(i);
      if (only !== -1 && src.nextSiblingAt(only) === -1) {
        if (!src.hasIdAt(only)) break;
        i = only;
        anchor = below;
        continue;
      }
      kids.length = 0;
      for (let c = only; c !== -1; c = src.nextSiblingAt(c)) kids.push(c);
      pushOrdered(kids, below);
      break;
    }
  }
  return { top, first, next, anchor: anchorOf, order: order.subarray(0, visibleCount), onPath, leafPos, hidden };
}

/** The visible tree with ids as keys (the Sessions view's rows and the search), built from visibleForest. */
export function computeVisibleTree(src: TreeSource, opts: VisibleOptions): VisibleTree {
  const { index } = src;
  const f = visibleForest(forestSourceOfIndex(index), opts, src.leafId);
  const idAt = (i: number): string => (index.entries[i] as ViewEntry).id;
  const parent = new Map<string, string | null>();
  const children = new Map<string | null, string[]>();
  const list = (firstChild: number): string[] => {
    const out: string[] = [];
    for (let c = firstChild; c !== -1; c = f.next[c]!) out.push(idAt(c));
    return out;
  };
  children.set(null, list(f.top));
  for (const i of f.order) {
    const a = f.anchor[i]!;
    parent.set(idAt(i), a === -1 ? null : idAt(a));
    if (f.first[i] !== -1) children.set(idAt(i), list(f.first[i]!));
  }
  const activePath = new Set<string>();
  for (let i = f.leafPos; i !== -1; i = index.parentAt(i)) activePath.add(idAt(i));
  return { parent, children, activePath, hidden: f.hidden };
}

/**
 * The branch nodes under a visible entry (or the top, `null`): each child starts a segment that
 * follows single-child links; a segment of two or more entries is a run, of one an entry.
 * A run's last entry is where the branch forks (or ends); its children are the next segments.
 */
export function segmentsUnder(tree: VisibleTree, id: string | null): BranchNode[] {
  return (tree.children.get(id) ?? []).map((start) => {
    const ids = [start];
    for (let cur = start; ; ) {
      const kids = tree.children.get(cur) ?? [];
      if (kids.length !== 1) break;
      cur = kids[0]!;
      ids.push(cur);
    }
    return ids.length === 1 ? { kind: 'entry', id: start } : { kind: 'run', ids };
  });
}

/**
 * Where an entry sits in the collapsed tree: the chain of run starts / fork entries from the top,
 * so a view can reveal it. Returns the visible entry to select (the entry itself, or its nearest
 * visible ancestor when the filter hides it) or undefined when nothing on its path is visible.
 */
export function nearestVisible(tree: VisibleTree, src: TreeSource, id: string): string | undefined {
  const seen = new Set<string>();
  for (let cur: string | null | undefined = id; cur && !seen.has(cur); ) {
    if (tree.parent.has(cur)) return cur;
    seen.add(cur);
    cur = src.parentOf(cur);
  }
  return undefined;
}

/** The label of a run node: its first user text (else its first entry's); the view says how many entries it holds beside it. */
export function runTitle(src: TreeSource, ids: readonly string[], max = 80): string {
  let first: ViewEntry | undefined;
  for (const id of ids) {
    const e = src.entry(id);
    if (e && roleOf(e) === 'user') {
      first = e;
      break;
    }
  }
  first ??= src.entry(ids[0]!);
  return first ? entryPreview(first, max) : '';
}

/** The view of the core's tree index (src/core/tree/tree.ts) that the branch tree reads. */
export function treeSourceFromIndex(index: TreeIndex): TreeSource {
  return {
    parentOf: (id) => index.parentOf(id),
    entry: (id) => index.get(id) as ViewEntry | undefined,
    labelOf: (id) => index.labels.get(id),
    leafId: index.defaultLeafId,
    index,
  };
}

/**
 * Searches one loaded session: the hit, and the visible tree it came from (the tree the view
 * shows for this session while the search is active, so callers can keep it).
 */
export function searchSession(src: TreeSource, title: SessionTitleFields, filter: TreeFilterMode, tokens: readonly string[]): { hit: SessionSearchHit; tree: VisibleTree } {
  const tree = computeVisibleTree(src, { filter, tokens });
  return { hit: { entryMatches: tree.parent.size, titleMatch: titleMatches(title, tokens) }, tree };
}
