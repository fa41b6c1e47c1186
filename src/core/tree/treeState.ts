// The tree index's data, as integer arrays, and the passes that build it (spec Part A "Tree and
// leaf semantics", Part C §5). src/core/tree/tree.ts answers queries over it; treeTour.ts adds the
// Euler tour, treeAppend.ts the incremental append.
//
// Nodes are addressed by their position in `entries` (file order); parents, children and depths
// live in Int32Arrays. Everything is iterative — a linear chain of 1M entries is 1M deep, and
// recursion would overflow the stack.
import type { Diagnostic } from '../diagnostics';
import type { SessionEntry } from '../formats/xcsh/schemas';
import { IdTable } from './treeIds';

/**
 * What buildSessionContext needs to know about an entry without touching it again. Computed in
 * the index pass: on a 1M-entry path, re-reading `type` (and `message.role`) of objects scattered
 * over the heap costs more than the rest of the context build.
 */
export const EntryKind = {
  Other: 0,
  Message: 1,
  AssistantMessage: 2,
  CustomMessage: 3,
  BranchSummary: 4,
  Compaction: 5,
  ThinkingLevel: 6,
  ModelChange: 7,
  TtsrInjection: 8,
  ModeChange: 9,
  /** service_tier_change, context_change, mcp_tool_selection (Part B §22): the context reads only these bodies for them. */
  RuntimeExtra: 10,
} as const;

export function entryKind(e: SessionEntry): number {
  switch (e.type) {
    case 'message': {
      const m = (e as { message?: { role?: unknown } }).message;
      return m && typeof m === 'object' && m.role === 'assistant' ? EntryKind.AssistantMessage : EntryKind.Message;
    }
    case 'custom_message':
      return EntryKind.CustomMessage;
    case 'branch_summary':
      return EntryKind.BranchSummary;
    case 'compaction':
      return EntryKind.Compaction;
    case 'thinking_level_change':
      return EntryKind.ThinkingLevel;
    case 'model_change':
      return EntryKind.ModelChange;
    case 'ttsr_injection':
      return EntryKind.TtsrInjection;
    case 'mode_change':
      return EntryKind.ModeChange;
    case 'service_tier_change':
    case 'context_change':
    case 'mcp_tool_selection':
      return EntryKind.RuntimeExtra;
    default:
      return EntryKind.Other;
  }
}

export function idOf(e: SessionEntry): string | undefined {
  const id = (e as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

export function parentIdOf(e: SessionEntry): string | null {
  const p = (e as { parentId?: unknown }).parentId;
  return typeof p === 'string' ? p : null;
}

export function applyLabel(labels: Map<string, string>, e: SessionEntry): void {
  if (e.type !== 'label') return;
  const target = (e as { targetId?: unknown }).targetId;
  const label = (e as { label?: unknown }).label;
  if (typeof target === 'string') {
    if (typeof label === 'string') labels.set(target, label);
    else labels.delete(target);
  }
}

/**
 * Everything the index knows. Arrays may be longer than `n` (spare capacity, only once appended
 * to); positions from `n` on mean nothing.
 */
export interface TreeState {
  /** The entries (eager index); empty for a lazy index, which reads ids through idAt/parentIdAt. */
  entries: readonly SessionEntry[];
  lines: ArrayLike<number> | undefined;
  /** The id and the raw parentId of the node at a position: every pass reads them only through these. */
  idAt: (i: number) => string | undefined;
  parentIdAt: (i: number) => string | null;
  /** Entries indexed (tree nodes plus shadowed duplicates). */
  n: number;
  /** id → position of the winning entry (last in file order). */
  idx: IdTable;
  shadowed: Uint8Array;
  kinds: Uint8Array;
  /** Effective parent position, -1 for roots (including orphans and cut cycles). */
  parent: Int32Array;
  /** Depth from the root (roots 0), -1 for shadowed entries. */
  depth: Int32Array;
  /** Children in file order as linked lists: firstChild[p] → nextSibling[c] → … → -1. */
  firstChild: Int32Array;
  nextSibling: Int32Array;
  /** Last child of each node: only the append needs it, so it exists only once appended to. */
  lastChild: Int32Array | null;
  labels: Map<string, string>;
  rootIdx: number[];
  roots: string[];
  /** Tree nodes (entries minus shadowed duplicates). */
  size: number;
  /** Diagnostics in the order a full build emits them: duplicates, missing parents, cycles. */
  dupDiags: Diagnostic[];
  missingDiags: Diagnostic[];
  cycleDiags: Diagnostic[];
  /** parentIds that named no entry: an entry appended with one of these ids would adopt orphans. */
  missingParents: Set<string>;
}

export function lineAt(s: TreeState, i: number): number {
  const l = s.lines;
  return l && l[i] !== undefined ? l[i]! : 0;
}

function duplicateDiag(s: TreeState, id: string, i: number, prev: number): Diagnostic {
  const firstLine = lineAt(s, prev);
  return {
    line: lineAt(s, i),
    kind: 'duplicate-id',
    entryId: id,
    message: `entry id "${id}" is used again${firstLine ? ` (first at line ${firstLine})` : ''}; the later entry wins and the earlier one is left out of the tree`,
  };
}

export function missingParent(s: TreeState, i: number, pid: string): void {
  s.missingParents.add(pid);
  s.missingDiags.push({
    line: lineAt(s, i),
    kind: 'missing-parent',
    entryId: s.idAt(i),
    message: `parentId "${pid}" names no entry; the entry is shown as a root (orphan)`,
  });
}

/** Builds the whole state in a fixed number of linear passes. Never throws on bad data. */
export function buildTreeState(entries: readonly SessionEntry[], entryLines?: readonly number[]): TreeState {
  const s = emptyState(entries.length, entryLines);
  s.entries = entries;
  // Read through `s.entries`: an append replaces the list with the grown one.
  s.idAt = (i) => idOf(s.entries[i]!);
  s.parentIdAt = (i) => parentIdOf(s.entries[i]!);
  indexIds(s);
  resolveParents(s);
  cutCyclesAndMeasureDepths(s);
  linkChildren(s);
  return s;
}

/**
 * What a lazy index (src/core/engine/xcsh/lazy) gives the builder instead of entries: ids and
 * parentIds by position, the kinds and the labels it classified while streaming the file.
 */
export interface TreeNodes {
  n: number;
  idAt(i: number): string | undefined;
  parentIdAt(i: number): string | null;
  kinds: Uint8Array;
  labels: Map<string, string>;
  lines?: ArrayLike<number>;
}

/** The same passes as buildTreeState over nodes given by accessors: one builder, one set of rules. */
export function buildTreeStateOf(nodes: TreeNodes): TreeState {
  const s = emptyState(nodes.n, nodes.lines);
  s.idAt = (i) => nodes.idAt(i);
  s.parentIdAt = (i) => nodes.parentIdAt(i);
  s.kinds = nodes.kinds;
  s.labels = nodes.labels;
  indexIdsOnly(s);
  resolveParents(s);
  cutCyclesAndMeasureDepths(s);
  linkChildren(s);
  return s;
}

function emptyState(n: number, lines: ArrayLike<number> | undefined): TreeState {
  const s: TreeState = {
    entries: [],
    lines,
    idAt: () => undefined,
    parentIdAt: () => null,
    n,
    idx: new IdTable((i) => s.idAt(i), n),
    shadowed: new Uint8Array(n),
    kinds: new Uint8Array(n),
    parent: new Int32Array(n).fill(-1),
    depth: new Int32Array(n).fill(-1),
    firstChild: new Int32Array(n).fill(-1),
    nextSibling: new Int32Array(n).fill(-1),
    lastChild: null,
    labels: new Map(),
    rootIdx: [],
    roots: [],
    size: 0,
    dupDiags: [],
    missingDiags: [],
    cycleDiags: [],
    missingParents: new Set(),
  };
  return s;
}

/** Pass 1: id → position (last wins), kinds, labels, shadowed duplicates. */
function indexIds(s: TreeState): void {
  const { entries, kinds, labels, n } = s;
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    kinds[i] = entryKind(e);
    setId(s, i);
    applyLabel(labels, e);
  }
}

/** Pass 1 when kinds and labels are given. */
function indexIdsOnly(s: TreeState): void {
  for (let i = 0; i < s.n; i++) setId(s, i);
}

function setId(s: TreeState, i: number): void {
  const id = s.idAt(i);
  if (id === undefined) return;
  const prev = s.idx.set(id, i);
  if (prev !== -1) {
    s.shadowed[prev] = 1;
    s.dupDiags.push(duplicateDiag(s, id, i, prev));
  }
}

/** Pass 2: resolve parents. -1 = root. */
function resolveParents(s: TreeState): void {
  const { idx, shadowed, parent, n } = s;
  for (let i = 0; i < n; i++) {
    if (shadowed[i]) continue;
    const pid = s.parentIdAt(i);
    if (pid === null) continue;
    const p = idx.get(pid);
    if (p === -1) {
      missingParent(s, i, pid);
      continue;
    }
    parent[i] = p;
  }
}

/**
 * Pass 3: break cycles, and give every node its depth. Walk up from each unvisited node; meeting
 * a node already on the current walk means a loop: the last node walked (whose parent is the
 * repeat) becomes a root, i.e. the walk stops at the first repeated id (Part C §5). The walk then
 * ends at a root or at a node whose depth is known, and the depths along it follow.
 */
function cutCyclesAndMeasureDepths(s: TreeState): void {
  const { shadowed, parent, depth, n } = s;
  // depth doubles as the walk state: -1 not reached yet, -2 on the current walk, ≥ 0 done.
  const stack = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (shadowed[i] || depth[i] !== -1) continue;
    let top = 0;
    let j = i;
    while (j !== -1 && depth[j] === -1) {
      depth[j] = -2;
      stack[top++] = j;
      j = parent[j]!;
    }
    if (j !== -1 && depth[j] === -2) {
      const last = stack[top - 1]!;
      const lastId = s.idAt(last);
      parent[last] = -1;
      s.cycleDiags.push({
        line: lineAt(s, last),
        kind: 'cycle',
        entryId: lastId,
        message:
          last === j
            ? `entry "${lastId}" is its own parent; the walk stops there and it is shown as a root`
            : `parentId chain loops back to "${s.idAt(j)}"; the walk stops at the repeated id and "${lastId}" is shown as a root`,
      });
      j = -1; // `last` is a root now
    }
    // stack[k + 1] is the parent of stack[k]; stack[top - 1] is a root or the child of j.
    let d = j === -1 ? 0 : depth[j]! + 1;
    for (let k = top - 1; k >= 0; k--) depth[stack[k]!] = d++;
  }
}

/** Pass 4: children lists in file order (linked back to front, so no lastChild is needed), roots. */
function linkChildren(s: TreeState): void {
  const { shadowed, parent, firstChild, nextSibling, n } = s;
  let size = 0;
  for (let i = n - 1; i >= 0; i--) {
    if (shadowed[i]) continue;
    size++;
    const p = parent[i]!;
    if (p === -1) continue;
    nextSibling[i] = firstChild[p]!;
    firstChild[p] = i;
  }
  s.size = size;
  for (let i = 0; i < n; i++) {
    if (shadowed[i] || parent[i] !== -1) continue;
    s.rootIdx.push(i);
    const id = s.idAt(i);
    if (id !== undefined) s.roots.push(id);
  }
}

/** Adds node i (parent already resolved, lastChild present) as the last child of its parent, or as a root. */
export function linkNode(s: TreeState, i: number): void {
  if (s.shadowed[i]) return;
  s.size++;
  const p = s.parent[i]!;
  if (p === -1) {
    s.rootIdx.push(i);
    const id = s.idAt(i);
    if (id !== undefined) s.roots.push(id);
    return;
  }
  const lastChild = s.lastChild!;
  if (s.firstChild[p] === -1) s.firstChild[p] = i;
  else s.nextSibling[lastChild[p]!] = i;
  lastChild[p] = i;
}

/** Root → position i (inclusive), as positions, by the parent links. */
export function pathPositions(s: Pick<TreeState, 'depth' | 'parent'>, i: number): Int32Array {
  const out = new Int32Array(s.depth[i]! + 1);
  let j = i;
  for (let k = out.length - 1; k >= 0; k--) {
    out[k] = j;
    j = s.parent[j]!;
  }
  return out;
}
