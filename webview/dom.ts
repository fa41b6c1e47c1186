// Tiny DOM helpers. Text always goes in through textContent: nothing from a session is ever
// parsed as HTML here (markdown has its own sanitising path in markdown.ts).
import { formatDateTime, formatTimeOfDay } from '../src/protocol/dates';

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined) continue;
    if (k === 'class') el.className = v;
    else el.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

/**
 * A translated sentence with elements in it (a hash in `code`, a bold lead-in). Call it with the
 * placeholder passed through as its own argument, `sentence(l10n.t('Not found: {0}', '{0}'), [code])`:
 * the translation puts `{0}` where its language wants it, and here `parts[0]` goes there. `wrap`
 * puts the words themselves in an element; a part the translation lost is appended, never dropped.
 */
export function sentence(text: string, parts: Node[], wrap?: (words: string) => Node): (Node | string)[] {
  const out: (Node | string)[] = [];
  const used = new Set<number>();
  text.split(/(\{\d+\})/).forEach((piece, i) => {
    const n = i % 2 === 1 ? Number(piece.slice(1, -1)) : -1;
    const part = parts[n];
    if (part && !used.has(n)) {
      used.add(n);
      out.push(part);
    } else if (piece !== '') out.push(wrap ? wrap(piece) : piece);
  });
  parts.forEach((p, n) => {
    if (!used.has(n)) out.push(' ', p);
  });
  return out;
}

export function icon(name: string, title?: string): HTMLSpanElement {
  const s = h('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
  if (title) s.title = title;
  return s;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 100_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** The UI's language, as the host set it on <html>: dates are formatted as the Sessions view formats them. */
function uiLocale(): string | undefined {
  return document.documentElement.lang || undefined;
}

/** A date and time, as everywhere else (src/protocol/dates.ts). */
export function formatTime(iso: string | null): string {
  return formatDateTime(iso, uiLocale());
}

/** The local day the session started on: short times on other days also say which day. */
let sessionStart: string | null = null;

export function setSessionDay(iso: string | null): void {
  sessionStart = iso;
}

/**
 * The time of day; for an entry on another day than the session's first one, the date too
 * ("Jul 14, 06:45:10 AM"), so rows of a session that spans days never read out of order.
 */
export function formatShortTime(iso: string | null): string {
  return formatTimeOfDay(iso, uiLocale(), sessionStart);
}

/** The codicon of an entry kind (a message role or an entry type), as the branch tree shows it. */
const KIND_ICONS: Record<string, string> = {
  user: 'account',
  assistant: 'hubot',
  toolResult: 'output',
  bashExecution: 'terminal',
  pythonExecution: 'symbol-method',
  compaction: 'fold',
  branch_summary: 'git-branch',
  custom_message: 'extensions',
  custom: 'extensions',
  model_change: 'arrow-swap',
  thinking_level_change: 'lightbulb',
  label: 'tag',
  developer: 'gear',
  session_init: 'rocket',
  mode_change: 'symbol-enum',
  ttsr_injection: 'law',
  // dsh (deepseek-harness) rows: turns, steps, streamed chunks and log events
  turn: 'comment-discussion',
  step: 'debug-step-over',
  chunks: 'ellipsis',
  chunk: 'ellipsis',
  toolCall: 'tools',
  'turn/end': 'debug-stop',
  'session/title': 'edit',
  'request/header': 'settings-gear',
};

export function kindIcon(kind: string): string {
  return KIND_ICONS[kind] ?? 'circle-small';
}
