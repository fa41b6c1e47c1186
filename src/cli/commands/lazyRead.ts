// `context`, `entries`, `doctor` and `tree` over the session engine's index (issues 11 and 23):
// every xcsh file is answered from the compact index, its bodies read back by byte range a window
// at a time and written out as they are read, so a 2 GB session needs a window's memory, not the
// file's. test/cli/golden.test.ts holds the outputs byte for byte.
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
import { writeJsonObject } from '../jsonStream';
import { CliError, writeJson, type Io } from '../util';
import { orderedExtras } from '../../core/formats/xcsh/context';

/**
 * The index of an xcsh file. A big session's index is kept in the CLI's cache folder (`index/`,
 * as the extension keeps its own): the next command on it reads only what was appended since
 * (indexCache.ts says when a cached index is used, and when the file is read in full instead).
 */
export async function sessionIndex(file: string): Promise<LazyIndexData> {
  const cache = new IndexCache(join(cliCacheDir(), 'index'));
  const { index, built } = await cachedOrBuiltIndex(file, cache);
  if (built) await cache.save(index);
  return index;
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
 * `context` from the index: an unknown `--leaf` fails before any diagnostic is printed, then the
 * JSON is written a window of messages at a time.
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
  const messages = { stream: (emit: (items: readonly unknown[]) => Promise<void>) => streamRawMessages(ix, plan, async (window) => emit(store ? await resolveImages(window, store) : window)) };
  // SessionContext's key order; Part B §22 state only when the path has it.
  const extras = Object.entries(orderedExtras(head));
  await writeJsonObject(
    io,
    [
      ['leafId', head.leafId],
      ['messages', messages],
      ['thinkingLevel', head.thinkingLevel],
      ['models', head.models],
      ['injectedTtsrRules', head.injectedTtsrRules],
      ['mode', head.mode],
      ['modeData', head.modeData],
      ...extras,
      ['messageSources', head.messageSources],
      ['cutEntryIds', head.cutEntryIds],
      ['compaction', head.compaction],
    ],
    pretty,
  );
  return 0;
}

/** `entries`: the header, every entry as the session shows it (migrated, ids made), in file order, read in windows. */
export async function entriesJson(ix: LazyIndexData, store: BlobStore | undefined, pretty: boolean, io: Io): Promise<void> {
  const entries = { stream: (emit: (items: readonly unknown[]) => Promise<void> | void) => scanBodyWindows(ix, (w) => emit(w.entries)) };
  await writeJsonObject(
    io,
    [
      ['header', ix.header],
      ['entries', entries],
      ['diagnostics', await lazyDiagnostics(ix, store)],
      ['leafId', new LazyTree(ix).defaultLeafId],
    ],
    pretty,
  );
}
