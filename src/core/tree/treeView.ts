// Pure logic behind the branch trees (no `vscode`): which entries a filter shows (passesFilterFlags
// over the bits viewFlagsOf keeps), the search tokens, the one-line preview of an entry. The
// whole-tree walk over these (visibleForest, computeVisibleTree) is the test reference
// (test/reference/treeView.ts) the session engine's rows are checked against. The filters follow the agent's own `/tree` selector (pi's TreeSelectorComponent):
// "settings" entries (label, custom, model/thinking changes, session_info) are hidden by default,
// and assistant messages without text are hidden unless they are the leaf or ended in an error.
// One divergence: an assistant message that only calls tools stays visible by default (as
// "→ tool args"), because a VS Code tree has room for it; "no tools" hides it.
import { english, type Translate } from '../l10n';

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

export const SETTINGS_TYPES = new Set(['label', 'custom', 'model_change', 'thinking_level_change', 'session_info', 'context_edit']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function messageOf(e: ViewEntry): Obj | undefined {
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

/**
 * Every whitespace run one space, trimmed. Only the runs that are not already one space are
 * replaced (two or more whitespace characters, or one that is not a space): `/\s+/g` replaced every
 * single space of a row's text too, a new string built from dozens of matches per row — ~4× slower
 * on a transcript's previews, ~30 ms of opening a 50 MB one. Same result (oneLine.test.ts).
 */
export const flatten = (text: string): string => text.replace(/\s{2,}|[^\S ]/g, ' ').trim();

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
export function hasText(content: unknown): boolean {
  if (typeof content === 'string') return NON_SPACE.test(content);
  if (!Array.isArray(content)) return false;
  for (const b of content) if (isObj(b) && b.type === 'text' && typeof b.text === 'string' && NON_SPACE.test(b.text)) return true;
  return false;
}

export function hasToolCall(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => isObj(b) && b.type === 'toolCall');
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

/** The ViewFlag bits of an entry: exactly the facts the filters read (test/reference/treeView.ts passesFilter). */
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

/** Whether `filter` shows the entry with ViewFlag bits `f` (pi's applyFilter, before search). */
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
