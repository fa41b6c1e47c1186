// The data of an HTML export (issue 13): everything the session editor's webview asks its host
// for, answered in advance from the session model, so the exported page runs the editor's own
// code (webview/ bundled as is) against a static host (webview/exportHost.ts) with no network.
//
// Contexts share most of their messages (the context at an entry is, message for message, the
// start of the context at any entry below it, until a compaction), so message views are pooled:
// a view is stored once and each context lists positions in the pool. A view depends on its entry,
// its place in the context and its pairings, which make its key.
//
// The data is JSON in a data block: text from the session is never markup here; the webview
// renders it exactly as in VS Code (textContent, or markdown through DOMPurify).
import type { SessionModel } from '../engine/model';
import type { MessageView, TreeFilter, TreeRow } from '../../protocol/messages';
import type { ExportData, ExportedContext } from '../../protocol/exportData';

export type { ExportData, ExportedContext };
import { allMessages } from './contextMarkdown';

export const TREE_FILTERS: readonly TreeFilter[] = ['default', 'no-tools', 'user-only', 'labelled-only', 'all'];

/** Above this many entries only the leaves (and the chosen leaf) get a context of their own. */
export const EVERY_ENTRY_LIMIT = 2_000;

export interface ExportOptions {
  /** The leaf to open at (default: the session's default leaf). */
  leafId?: string | null;
  scope?: 'session' | 'branch';
  now?: Date;
  /** The most picture data one page embeds, in characters of data URLs (default EXPORT_IMAGE_BUDGET_CHARS). */
  imageBudgetChars?: number;
}

/**
 * A page holds at most this much picture data (256 MiB of data URLs): past it, a picture is named,
 * not embedded — a browser has to parse the whole page before it shows anything.
 */
export const EXPORT_IMAGE_BUDGET_CHARS = 256 * 2 ** 20;

async function allRows(model: SessionModel, filter: TreeFilter, leafId: string | null): Promise<TreeRow[]> {
  const rows: TreeRow[] = [];
  for (let start = 0; ; ) {
    const r = await model.tree({ filter, search: '', leafId, focusEntryId: null, start, count: 1000 });
    rows.push(...r.rows);
    start += r.rows.length;
    if (r.rows.length === 0 || start >= r.total) return rows;
  }
}

/**
 * Parents from the flattened rows of the 'all' filter (treeRows.ts): a linear run keeps its
 * indentation and a side branch starts one level deeper right after its fork point, so a row's
 * parent is the nearest row above it at its own depth, or one level up when it starts a branch.
 */
export function parentsFromRows(rows: readonly TreeRow[]): Record<string, string | null> {
  // Keyed by entry ids from the file: no prototype, so an id `__proto__` is an entry like any other.
  const parents = Object.create(null) as Record<string, string | null>;
  const lastAtDepth: string[] = [];
  for (const r of rows) {
    const d = r.forks ? r.depth - 1 : r.depth;
    parents[r.entryId] = d >= 0 && d < lastAtDepth.length ? (lastAtDepth[d] ?? null) : null;
    lastAtDepth.length = r.depth + 1;
    lastAtDepth[r.depth] = r.entryId;
  }
  return parents;
}

function pathOf(parents: Record<string, string | null>, leaf: string): Set<string> {
  const out = new Set<string>();
  for (let id: string | null | undefined = leaf; id && !out.has(id); id = Object.prototype.hasOwnProperty.call(parents, id) ? parents[id] : undefined) out.add(id);
  return out;
}

/** What makes two views of one entry the same: its place in the context and its pairings. */
function viewKey(v: MessageView, kind: 'm' | 'c'): string {
  let pairs = '';
  for (const b of v.blocks) if (b.kind === 'toolCall') pairs += `${b.resultIndex ?? '-'}${b.resultIsError ? '!' : ''},`;
  return `${kind}|${v.entryId}|${v.index}|${v.segment}|${v.cumulativeTokensEst}|${v.toolResult?.callIndex ?? '-'}|${pairs}`;
}

export async function buildExportData(model: SessionModel, opts: ExportOptions = {}): Promise<ExportData> {
  const scope = opts.scope ?? 'session';
  const summary = await model.summary();
  const selectLeafId = opts.leafId === undefined || opts.leafId === null ? await model.defaultLeaf() : opts.leafId;
  const all = await allRows(model, 'all', selectLeafId);
  const parents = parentsFromRows(all);
  const keep = scope === 'branch' && selectLeafId ? pathOf(parents, selectLeafId) : null;
  const trees = {} as Record<TreeFilter, TreeRow[]>;
  for (const f of TREE_FILTERS) {
    const rows = f === 'all' ? all : await allRows(model, f, selectLeafId);
    trees[f] = keep ? rows.filter((r) => keep.has(r.entryId)).map((r) => ({ ...r, depth: 0, forks: false })) : rows;
  }
  const ids = keep ? all.filter((r) => keep.has(r.entryId)).map((r) => r.entryId) : all.map((r) => r.entryId);
  const leavesOnly = ids.length > EVERY_ENTRY_LIMIT;
  const leaves = new Set(all.filter((r) => r.isLeaf).map((r) => r.entryId));
  const targets = leavesOnly ? ids.filter((id) => leaves.has(id) || id === selectLeafId) : ids;

  const pool: MessageView[] = [];
  const poolAt = new Map<string, number>();
  const put = (v: MessageView, kind: 'm' | 'c'): number => {
    const key = viewKey(v, kind);
    let at = poolAt.get(key);
    if (at === undefined) {
      at = pool.push(v) - 1;
      poolAt.set(key, at);
    }
    return at;
  };
  const contexts = Object.create(null) as Record<string, ExportedContext>;
  for (const id of targets) {
    const info = await model.context(id);
    const messages = (await allMessages(model, info.leafId, info.messageCount)).map((v) => put(v, 'm'));
    const cutCount = info.compaction?.cutCount ?? 0;
    const cut: number[] = [];
    for (let start = 0; start < cutCount; start += 500) for (const v of await model.cutEntries(info.leafId, start, Math.min(500, cutCount - start))) cut.push(put(v, 'c'));
    contexts[id] = { info, messages, cut };
  }

  const images = Object.create(null) as ExportData['images'];
  const blobs = Object.create(null) as ExportData['blobs'];
  const inline = new Map<string, string>();
  const overBudget = new Map<string, ExportData['images'][string]>();
  let embedded = 0;
  const budget = opts.imageBudgetChars ?? EXPORT_IMAGE_BUDGET_CHARS;
  for (const v of pool) {
    for (const b of v.blocks) {
      if (b.kind !== 'image') continue;
      const key = `${b.entryId}:${b.blockIndex}`;
      if (Object.prototype.hasOwnProperty.call(images, key)) continue;
      // A blob shown by many entries is read and embedded once.
      if (b.blobHash !== null && Object.prototype.hasOwnProperty.call(blobs, b.blobHash)) {
        images[key] = { kind: 'ref', blob: b.blobHash };
        continue;
      }
      const refused = b.blobHash !== null ? overBudget.get(b.blobHash) : undefined;
      if (refused) {
        images[key] = refused;
        continue;
      }
      const got = await model.image(b.entryId, b.blockIndex);
      if (got.kind !== 'data') {
        images[key] = got;
        continue;
      }
      let blob = b.blobHash ?? inline.get(got.dataUrl);
      if (blob === undefined || !Object.prototype.hasOwnProperty.call(blobs, blob)) {
        if (embedded + got.dataUrl.length > budget) {
          images[key] = { kind: 'error', message: `Not embedded: the page's pictures would pass ${Math.round(budget / 2 ** 20)} MB.` };
          if (b.blobHash !== null) overBudget.set(b.blobHash, images[key]);
          continue;
        }
        blob ??= `inline:${inline.size}`;
        if (b.blobHash === null) inline.set(got.dataUrl, blob);
        blobs[blob] = got.dataUrl;
        embedded += got.dataUrl.length;
      }
      images[key] = { kind: 'ref', blob };
    }
  }
  return { version: 1, summary, selectLeafId, scope, trees, parents, contexts, pool, images, blobs, leavesOnly, exportedAt: (opts.now ?? new Date()).toISOString() };
}
