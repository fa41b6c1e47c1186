// `context`, `doctor` and `tree` over the lazy index (issue 11): a session in its scope (v3, every
// entry with an id; lazyIndex.ts) is answered from the compact index, its bodies read back by
// byte range a window at a time and written out as they are read, so a 2 GB session needs a
// window's memory, not the file's. The output is byte for byte the eager path's (read.ts), which
// still answers every file outside the scope (test/unit/cliLazyRead.test.ts compares the two).
import { join } from 'node:path';
import type { Diagnostic } from '../../core/diagnostics';
import { checkBlobRefs, resolveImageData, type BlobStore } from '../../core/formats/xcsh/blobs';
import { emptyContext, type ContextMessage } from '../../core/formats/xcsh/context';
import { BodyReader } from '../../core/engine/xcsh/lazy/bodyReader';
import { scanBodyWindows } from '../../core/engine/xcsh/lazy/bodyScan';
import { LazyContexts } from '../../core/engine/xcsh/lazy/lazyContext';
import { cachedOrBuiltIndex, IndexCache } from '../../core/engine/xcsh/lazy/indexCache';
import type { LazyIndexData } from '../../core/engine/xcsh/lazy/lazyIndex';
import { LazyTree } from '../../core/engine/xcsh/lazy/lazyTree';
import { rawContextHead, streamRawMessages } from '../../core/engine/xcsh/lazy/rawContext';
import { cliCacheDir } from '../ownWrites';
import { jsonForTerminal } from '../terminalText';
import { CliError, writeJson, type Io } from '../util';
import { orderedExtras } from '../../core/formats/xcsh/context';

/**
 * Not a user option: the tests set `eager` to read every file through the eager document, the
 * reference the lazy answers are compared with byte for byte.
 */
export const readPaths = { eager: false };

/**
 * The lazy index of a file in its scope; null when the eager document must read it. A big
 * session's index is kept in the CLI's cache folder (`index/`, as the extension keeps its own):
 * the next command on it reads only what was appended since (indexCache.ts says when a cached
 * index is used, and when the file is read in full instead).
 */
export async function lazyIndexOrNull(file: string): Promise<LazyIndexData | null> {
  if (readPaths.eager) return null;
  const cache = new IndexCache(join(cliCacheDir(), 'index'));
  const { outcome, built } = await cachedOrBuiltIndex(file, cache);
  if (outcome.kind !== 'indexed') return null;
  if (built) await cache.save(outcome.index);
  return outcome.index;
}

const byLine = (a: Diagnostic, b: Diagnostic): number => a.line - b.line;

/**
 * The document's diagnostics as the eager load gives them with `--blobs`: the blob references
 * checked over every body (a scan in windows), merged as load.ts then document.ts merge them —
 * reader and loader notes first on a line, then the blob ones, then the tree's.
 */
export async function lazyDiagnostics(ix: LazyIndexData, store: BlobStore | undefined): Promise<Diagnostic[]> {
  if (!store) return ix.diagnostics;
  const blob: Diagnostic[] = [];
  await scanBodyWindows(ix, async (w) => {
    for (const d of await checkBlobRefs(w.entries, w.lines, store)) blob.push(d);
  });
  if (blob.length === 0) return ix.diagnostics;
  const loaded = [...ix.loadedDiagnostics, ...blob].sort(byLine);
  const tree = [...ix.tree.dupDiags, ...ix.tree.missingDiags, ...ix.tree.cycleDiags];
  return tree.length === 0 ? loaded : [...loaded, ...tree].sort(byLine);
}

/**
 * Blob references in image blocks resolved back to base64 (Part A), on copies. A blob that cannot
 * be used keeps its reference; the load already reported it (the CLI's store checks content).
 */
export async function resolveImages(messages: ContextMessage[], store: BlobStore): Promise<ContextMessage[]> {
  const out: ContextMessage[] = [];
  for (const m of messages) {
    const content = m.content;
    if (!Array.isArray(content) || !content.some((b) => b && (b as { type?: unknown }).type === 'image')) {
      out.push(m);
      continue;
    }
    const blocks: unknown[] = [];
    for (const b of content) {
      const blk = b as { type?: unknown; data?: unknown };
      if (blk && blk.type === 'image' && typeof blk.data === 'string') {
        const r = await resolveImageData(blk.data, store);
        blocks.push(r.kind === 'inline' || r.kind === 'blob' ? { ...blk, data: r.base64 } : blk);
      } else blocks.push(b);
    }
    out.push({ ...m, content: blocks });
  }
  return out;
}

/**
 * `context` from the index: the same checks in the same order as the eager path (an unknown
 * `--leaf` fails before any diagnostic is printed), then the JSON written a window of messages at
 * a time.
 */
export async function lazyContextCommand(
  ix: LazyIndexData,
  file: string,
  leafOpt: string | undefined,
  store: BlobStore | undefined,
  pretty: boolean,
  io: Io,
  warn: (diagnostics: readonly Diagnostic[]) => void,
): Promise<number> {
  const tree = new LazyTree(ix);
  if (leafOpt !== undefined && leafOpt !== 'null' && !tree.has(leafOpt)) throw new CliError(`no entry with id "${leafOpt}" (use --leaf null for the empty context)`, file, 0);
  warn(await lazyDiagnostics(ix, store));
  if (leafOpt === 'null') {
    writeJson(io, emptyContext(), pretty);
    return 0;
  }
  const plan = await new LazyContexts(ix, tree, new BodyReader(ix), 1).plan(leafOpt ?? null);
  const head = rawContextHead(ix, tree, plan);
  // The skeleton in SessionContext's key order, with its messages left empty and then filled in.
  const skeleton = JSON.stringify(
    {
      leafId: head.leafId,
      messages: [],
      thinkingLevel: head.thinkingLevel,
      models: head.models,
      injectedTtsrRules: head.injectedTtsrRules,
      mode: head.mode,
      modeData: head.modeData,
      // Part B §22 state, only when the path has it, in the eager context's key order.
      ...orderedExtras(head),
      messageSources: head.messageSources,
      cutEntryIds: head.cutEntryIds,
      compaction: head.compaction,
    },
    null,
    pretty ? 2 : undefined,
  );
  // The leaf id before it is a JSON string (its quotes escaped), so the first match is the key.
  const marker = pretty ? '"messages": []' : '"messages":[]';
  const at = skeleton.indexOf(marker) + marker.length - 1;
  io.out(jsonForTerminal(skeleton.slice(0, at)));
  let first = true;
  await streamRawMessages(ix, plan, async (window) => {
    const messages = store ? await resolveImages(window, store) : window;
    let chunk = '';
    for (const m of messages) {
      // Pretty: each message at depth 2 of the document, so its own lines move in by 4 spaces.
      chunk += (first ? '' : ',') + (pretty ? '\n    ' + JSON.stringify(m, null, 2).replaceAll('\n', '\n    ') : JSON.stringify(m));
      first = false;
    }
    if (chunk) io.out(jsonForTerminal(chunk));
  });
  io.out(jsonForTerminal((pretty && !first ? '\n  ' : '') + skeleton.slice(at)) + '\n');
  return 0;
}
