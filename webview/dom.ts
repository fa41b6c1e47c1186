// Tiny DOM helpers. Text always goes in through textContent: nothing from a session is ever
// parsed as HTML here (markdown has its own sanitising path in markdown.ts).
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

export function formatTime(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** The local day the session started on: short times on other days also say which day. */
let sessionDay: string | null = null;

function localDay(d: Date): string {
  return `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
}

export function setSessionDay(iso: string | null): void {
  const d = iso ? new Date(iso) : null;
  sessionDay = d && !Number.isNaN(d.getTime()) ? localDay(d) : null;
}

/**
 * The time of day; for an entry on another day than the session's first one, the date too
 * ("Jul 14, 06:45:10 AM"), so rows of a session that spans days never read out of order.
 */
export function formatShortTime(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (sessionDay === null || localDay(d) === sessionDay) return time;
  return `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`;
}
