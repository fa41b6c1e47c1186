// Pure logic behind the Sessions view's branch tree (no `vscode`): which entries a filter shows,
// the search tokens, the one-line preview of an entry, and the collapsing of linear runs into
// one node. The filters follow the agent's own `/tree` selector (pi's TreeSelectorComponent):
// "settings" entries (label, custom, model/thinking changes, session_info) are hidden by default,
// and assistant messages without text are hidden unless they are the leaf or ended in an error.
// One divergence: an assistant message that only calls tools stays visible by default (as
// "→ tool args"), because a VS Code tree has room for it; "no tools" hides it.
import { english, type Translate } from '../l10n';
import type { TreeIndex } from './tree';

export type TreeFilterMode = 'default' | 'no-tools' | 'user-only' | 'labelled-only' | 'all';

export const TREE_FILTER_MODES: readonly TreeFilterMode[] = ['default', 'no-tools', 'user-only', 'labelled-only', 'all'];

/** The title of a branch-tree filter (quick pick, view description, "No entries match (…)"). */
export function treeFilterTitle(mode: TreeFilterMode, l10nT: Translate = english): string {
  switch (mode) {
    case 'default':
      return l10nT('Default');
    case 'no-tools':
      return l10nT('No Tools');
    case 'user-only':
      return l10nT('User Messages Only');
    case 'labelled-only':
      return l10nT('Labelled Only');
    case 'all':
      return l10nT('All Entries');
  }
}

/** The fields of an entry this module reads; everything else passes through unseen. */
export interface ViewEntry {
  type: string;
  id: string;
  parentId?: string | null;
  [key: string]: unknown;
}

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

const SETTINGS_TYPES = new Set(['label', 'custom', 'model_change', 'thinking_level_change', 'session_info', 'context_edit']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function messageOf(e: ViewEntry): Obj | undefined {
  return e.type === 'message' && isObj(e.message) ? e.message : undefined;
}

/** The message role of a `message` entry, else undefined. */
export function roleOf(e: ViewEntry): string | undefined {
  return str(messageOf(e)?.role);
}

/** Concatenated `text` blocks (or the string) of a message content. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) if (isObj(b) && b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
  return parts.join(' ');
}

function toolCalls(content: unknown): { name: string; args: unknown }[] {
  if (!Array.isArray(content)) return [];
  return content.filter((b): b is Obj => isObj(b) && b.type === 'toolCall').map((b) => ({ name: str(b.name) ?? '?', args: b.arguments }));
}

/** Collapses whitespace (newlines included) to single spaces: tree rows are one line. */
export function oneLine(text: string, max = 120): string {
  // A long text (a tool input, a hook's output, a file's content) is cut before it is flattened:
  // the flattened head of a prefix is a prefix of the whole text's, so once it is longer than
  // `max` the row is the same as from the whole text (which it falls back to otherwise).
  const head = 2 * max + 32;
  if (text.length > head) {
    const flat = flatten(text.slice(0, head));
    if (flat.length > max) return `${flat.slice(0, max - 1)}…`;
  }
  const flat = flatten(text);
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const flatten = (text: string): string => text.replace(/\s+/g, ' ').trim();

function argsPreview(args: unknown): string {
  if (!isObj(args)) return '';
  for (const key of ['command', 'path', 'file_path', 'pattern', 'query', 'url']) {
    const v = str(args[key]);
    if (v) return v;
  }
  try {
    return JSON.stringify(args);
  } catch {
    return '';
  }
}

/** The searchable and displayable text of an entry (pi's `searchText`, minus the label). */
export function entryText(e: ViewEntry): string {
  const m = messageOf(e);
  if (m) {
    const role = str(m.role);
    if (role === 'bashExecution') return `$ ${str(m.command) ?? ''}`;
    if (role === 'pythonExecution') return `>>> ${str(m.code) ?? ''}`;
    if (role === 'branchSummary' || role === 'compactionSummary') return str(m.summary) ?? '';
    const text = contentText(m.content);
    if (role === 'assistant') {
      const calls = toolCalls(m.content).map((c) => `→ ${c.name} ${oneLine(argsPreview(c.args), 60)}`.trim());
      return [text, ...calls].filter((s) => s.trim() !== '').join(' ');
    }
    if (role === 'toolResult') return `${str(m.toolName) ?? 'tool'}: ${text}`;
    return text;
  }
  switch (e.type) {
    case 'compaction':
      return `compaction${typeof e.tokensBefore === 'number' ? ` (${formatCount(e.tokensBefore)} tokens before)` : ''}: ${str(e.shortSummary) ?? str(e.summary) ?? ''}`;
    case 'branch_summary':
      return `branch summary: ${str(e.summary) ?? ''}`;
    case 'model_change':
      return `model: ${str(e.model) ?? [str(e.provider), str(e.modelId)].filter(Boolean).join('/')}`;
    case 'thinking_level_change':
      return `thinking: ${str(e.thinkingLevel) ?? ''}`;
    case 'label':
      return e.label === undefined ? `label cleared on ${str(e.targetId) ?? '?'}` : `label ${str(e.targetId) ?? '?'}: ${str(e.label) ?? ''}`;
    case 'custom':
      return `custom: ${str(e.customType) ?? ''}`;
    case 'custom_message':
      return `${str(e.customType) ?? 'custom'}: ${contentText(e.content)}`;
    case 'session_init':
      return `session init: ${str(e.task) ?? ''}`;
    case 'mode_change':
      return `mode: ${str(e.mode) ?? ''}`;
    case 'ttsr_injection':
      return `rules injected: ${Array.isArray(e.injectedRules) ? e.injectedRules.length : 0}`;
    case 'session_info':
      return `title: ${str(e.name) ?? ''}`;
    default:
      return e.type;
  }
}

/** The one-line preview a tree row shows. */
export function entryPreview(e: ViewEntry, max = 120): string {
  const text = oneLine(entryText(e), max);
  return text === '' ? `(empty ${roleOf(e) ?? e.type})` : text;
}

/** What the search matches: label, role (or type) and text, lower-cased. */
export function searchHaystack(e: ViewEntry, label: string | undefined): string {
  return [label ?? '', roleOf(e) ?? '', e.type, entryText(e)].join(' ').toLowerCase();
}

/** Whitespace-separated, lower-cased, de-duplicated tokens; an empty query has none. */
export function tokenizeSearch(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/\s+/).filter((t) => t !== ''))];
}

/** Every token must occur (AND), case-insensitively. */
export function matchesSearch(haystack: string, tokens: readonly string[]): boolean {
  return tokens.every((t) => haystack.includes(t));
}

const NON_SPACE = /\S/;

/** Whether contentText(content) has anything but whitespace (without joining the texts). */
function hasText(content: unknown): boolean {
  if (typeof content === 'string') return NON_SPACE.test(content);
  if (!Array.isArray(content)) return false;
  for (const b of content) if (isObj(b) && b.type === 'text' && typeof b.text === 'string' && NON_SPACE.test(b.text)) return true;
  return false;
}

function hasToolCall(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => isObj(b) && b.type === 'toolCall');
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

/** What the filters read of an entry, as bits (a lazy index keeps these instead of the entry). */
export const ViewFlag = {
  Settings: 1,
  User: 2,
  Assistant: 4,
  ToolResult: 8,
  HasText: 16,
  HasToolCall: 32,
  ErrorOrAborted: 64,
} as const;

/** The ViewFlag bits of an entry: exactly the facts passesFilter reads. */
export function viewFlagsOf(e: ViewEntry): number {
  let f = SETTINGS_TYPES.has(e.type) ? ViewFlag.Settings : 0;
  const m = messageOf(e);
  if (!m) return f;
  const role = str(m.role);
  if (role === 'user') f |= ViewFlag.User;
  else if (role === 'toolResult') f |= ViewFlag.ToolResult;
  else if (role === 'assistant') {
    f |= ViewFlag.Assistant;
    const stop = str(m.stopReason);
    if (stop !== undefined && stop !== 'stop' && stop !== 'toolUse' && stop !== 'end_turn') f |= ViewFlag.ErrorOrAborted;
    if (hasText(m.content)) f |= ViewFlag.HasText;
    if (hasToolCall(m.content)) f |= ViewFlag.HasToolCall;
  }
  return f;
}

/** passesFilter over viewFlagsOf(e): the same rules, read from the bits. */
export function passesFilterFlags(f: number, mode: TreeFilterMode, label: string | undefined, isLeaf: boolean): boolean {
  const assistant = (f & ViewFlag.Assistant) !== 0;
  const text = (f & ViewFlag.HasText) !== 0;
  if (mode !== 'all' && assistant && !isLeaf) {
    if (!text && (f & ViewFlag.HasToolCall) === 0 && (f & ViewFlag.ErrorOrAborted) === 0) return false;
  }
  const settings = (f & ViewFlag.Settings) !== 0;
  switch (mode) {
    case 'all':
      return true;
    case 'user-only':
      return (f & ViewFlag.User) !== 0;
    case 'no-tools':
      return !settings && (f & ViewFlag.ToolResult) === 0 && !(assistant && !text && !isLeaf);
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

// ---------- formatting ----------

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", else the date. */
export function formatRelativeTime(thenMs: number, nowMs: number, l10nT: Translate = english): string {
  const s = Math.round((nowMs - thenMs) / 1000);
  if (!Number.isFinite(s)) return '';
  if (s < 45) return l10nT('just now');
  const min = Math.round(s / 60);
  if (min < 60) return l10nT('{0} min ago', min);
  const h = Math.round(min / 60);
  if (h < 24) return l10nT('{0} h ago', h);
  const d = Math.round(h / 24);
  if (d === 1) return l10nT('yesterday');
  if (d < 30) return l10nT('{0} days ago', d);
  return new Date(thenMs).toISOString().slice(0, 10);
}

/** 999 B, 1.2 KB, 12 KB, 3.4 MB (powers of 1024). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** 950, 1.2k, 35k, 1.4M. */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A session is "live" when it was modified within this window (the issue: the last minute). */
export const LIVE_WINDOW_MS = 60_000;

export function isLive(mtimeMs: number, nowMs: number): boolean {
  return nowMs - mtimeMs < LIVE_WINDOW_MS;
}
