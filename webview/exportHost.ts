// The host of an exported page (issue 13, "Export Branch as HTML…"): the session editor's webview
// code runs unchanged in any browser, and this script plays VS Code's part. It defines the
// `acquireVsCodeApi` the webview calls (rpc.ts) and answers every request from the export's data
// (src/core/export/exportData.ts), read from a JSON data block: no network, no host.
//
// Loaded as a classic script before the webview's module script (modules run after classic
// scripts), so `acquireVsCodeApi` exists when rpc.ts asks for it.
import { CHART_MAX_MESSAGES, chartLeftOut, chartOf } from '../src/protocol/chartData';
import type { ExportData, ExportedContext } from '../src/protocol/exportData';
import type { HostToWebview, TreeRow, WebviewState, WebviewToHost } from '../src/protocol/messages';

const block = document.getElementById('session-loom-export');
const data = JSON.parse(block?.textContent ?? 'null') as ExportData;

const allIds = data.trees.all.map((r) => r.entryId);

/**
 * A table of the page's data keyed by an entry id: its own value only. Entry ids come from the session
 * file, and one named `__proto__`, `constructor` or `toString` must not reach Object.prototype.
 */
function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

function leafFromHash(): string | null {
  const m = /(?:^#|&)leaf=([^&]+)/.exec(location.hash);
  const id = m ? decodeURIComponent(m[1]!) : null;
  return id !== null && own(data.parents, id) !== undefined ? id : null;
}

/** The exported context for a selection: its own, else the opening leaf's. */
function contextOf(leafId: string | null): ExportedContext {
  const id = leafId ?? data.selectLeafId;
  return (id !== null ? own(data.contexts, id) : undefined) ?? own(data.contexts, data.selectLeafId ?? '') ?? Object.values(data.contexts)[0]!;
}

function pathOf(leaf: string | null): Set<string> {
  const out = new Set<string>();
  for (let id: string | null | undefined = leaf; id && !out.has(id); id = own(data.parents, id)) out.add(id);
  return out;
}

/** The row of an entry, or of its nearest ancestor that has one. */
function rowIndexOf(rows: readonly TreeRow[], id: string | null): number | null {
  const at = new Map(rows.map((r, i) => [r.entryId, i]));
  const seen = new Set<string>();
  for (let cur: string | null | undefined = id; cur && !seen.has(cur); cur = own(data.parents, cur)) {
    seen.add(cur);
    const i = at.get(cur);
    if (i !== undefined) return i;
  }
  return null;
}

/** Search as in the editor: every word, case-insensitive, over the row's text, kind and label. */
function searchRows(rows: readonly TreeRow[], search: string): TreeRow[] {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return rows.slice();
  return rows.filter((r) => {
    const hay = `${r.text} ${r.kind} ${r.label ?? ''} ${r.entryId}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

type Req = Extract<WebviewToHost, { type: 'request' }>;

function answer(req: Req): unknown {
  const revision = data.summary.revision;
  switch (req.method) {
    case 'getContext':
      return contextOf(req.params.leafId).info;
    case 'getMessages': {
      const c = contextOf(req.params.leafId);
      return { revision, items: c.messages.slice(req.params.start, req.params.start + req.params.count).map((i) => data.pool[i]!) };
    }
    case 'getCutEntries': {
      const c = contextOf(req.params.leafId);
      return { revision, items: c.cut.slice(req.params.start, req.params.start + req.params.count).map((i) => data.pool[i]!) };
    }
    case 'getChart': {
      const c = contextOf(req.params.leafId);
      return (
        chartLeftOut(c.info) ??
        chartOf(
          c.info,
          c.messages.map((i) => data.pool[i]!),
          c.cut.slice(0, CHART_MAX_MESSAGES).map((i) => data.pool[i]!),
        )
      );
    }
    case 'getTree': {
      const p = req.params;
      const leaf = contextOf(p.leafId).info.leafId;
      const rows = searchRows(data.trees[p.filter], p.search);
      const onPath = pathOf(leaf);
      const selectedIndex = rowIndexOf(rows, leaf);
      return {
        total: rows.length,
        hidden: allIds.length - rows.length,
        selectedIndex,
        leafHidden: leaf !== null && (selectedIndex === null || rows[selectedIndex]!.entryId !== leaf),
        focusIndex: p.focusEntryId ? rowIndexOf(rows, p.focusEntryId) : null,
        rows: rows.slice(p.start, p.start + p.count).map((r) => ({ ...r, onPath: onPath.has(r.entryId) })),
      };
    }
    case 'locate': {
      const c = contextOf(req.params.leafId);
      const m = c.messages.findIndex((i) => data.pool[i]!.entryId === req.params.entryId);
      const cut = c.cut.findIndex((i) => data.pool[i]!.entryId === req.params.entryId);
      return { messageIndex: m === -1 ? null : m, cutIndex: cut === -1 ? null : cut };
    }
    case 'getImage': {
      // Each picture is embedded once (data.blobs) and referenced by every entry that shows it.
      const image = own(data.images, `${req.params.entryId}:${req.params.blockIndex}`);
      if (image === undefined) return { kind: 'error', message: 'This image is not in the exported page.' };
      if (image.kind !== 'ref') return image;
      const dataUrl = own(data.blobs, image.blob);
      return dataUrl !== undefined ? { kind: 'data', dataUrl } : { kind: 'error', message: 'This image is not in the exported page.' };
    }
    case 'openRaw':
    case 'revealInSessions':
    case 'openLinkedSession':
    case 'migrate':
      throw new Error('Not available in an exported page: open the session in VS Code for this.');
  }
}

function deliver(message: HostToWebview): void {
  // as VS Code delivers a host message: a `message` event on the window, asynchronously
  setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data: message })), 0);
}

let state: unknown = null;

function handle(msg: WebviewToHost): void {
  switch (msg.type) {
    case 'ready': {
      // A `#leaf=` link is a jump: the page opens at that entry's message, flashed (issue 25).
      const linked = leafFromHash();
      deliver({ type: 'init', summary: data.summary, selectLeafId: linked ?? data.selectLeafId, followDefault: false, ...(linked ? { jump: { entryId: linked } } : {}) });
      return;
    }
    case 'request':
      try {
        deliver({ type: 'response', id: msg.id, ok: true, result: answer(msg) });
      } catch (err) {
        deliver({ type: 'response', id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) });
      }
      return;
    case 'selectionChanged':
      // deep links: the address names the entry shown, without a history entry per click
      if (msg.leafId) history.replaceState(null, '', `#leaf=${encodeURIComponent(msg.leafId)}`);
      return;
    case 'painted':
      document.documentElement.dataset.painted = 'true';
      return;
  }
}

window.addEventListener('hashchange', () => {
  const leaf = leafFromHash();
  if (leaf) deliver({ type: 'selectLeaf', leafId: leaf, revealEntryId: leaf });
});

(window as unknown as { acquireVsCodeApi: () => unknown }).acquireVsCodeApi = () => ({
  postMessage: (m: WebviewToHost) => handle(m),
  getState: () => state as WebviewState | null,
  setState: (s: unknown) => {
    state = s;
  },
});
