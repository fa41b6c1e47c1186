// The lazy index of a big session, kept on disk between openings (issue 11: a 1M-entry session's
// index pass takes seconds; the Sessions view must show its branch tree in a fraction of one).
//
// A cache, never a source: every answer still comes from the session file. A cached index is used
// only for the file it was made from — same path, same device and inode, the same first and last
// 4 KB of the bytes it read (FileIdentity) — and is then brought up to date by the same tail read
// a live session uses (appendLazyIndex): a grown file costs only its new bytes, a rewritten one a
// full pass. A cache file that is torn, foreign, of another format or does not fit together is
// ignored (and replaced by the next full pass). Deleting the folder loses nothing.
//
// The file: "SLIX", the format (u32), the length of a JSON head (u32), the head (the index's
// scalars, maps and diagnostics, and where each typed column lies), then the columns, each at an
// 8-byte-aligned offset, written and read straight from and into their typed arrays.
import { createHash } from 'node:crypto';
import { open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { Diagnostic } from '../../../diagnostics';
import { readFileIdentity } from '../../../formats/xcsh/load';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../../store/privateDir';
import { IdTable } from '../../../tree/treeIds';
import type { TreeState } from '../../../tree/treeState';
import { Interner, PackedStrings } from './columns';
import { appendLazyIndex, buildLazyIndex, type IndexOptions, type LazyIndexData, type Payload } from './lazyIndex';

const MAGIC = 0x58494c53; // "SLIX", little-endian
/**
 * Bump whenever what the index pass computes changes (a new column, a flag read differently): a
 * cache of another format is ignored. The test beside this file fails when LazyIndexData or
 * TreeState gains a field this file does not write.
 */
export const INDEX_CACHE_FORMAT = 4;

/** The fields of LazyIndexData and TreeState this cache writes (or rebuilds), for that test. */
export const CACHED_INDEX_FIELDS = [
  'path', 'header', 'headerLine', 'originalVersion', 'readOnlyReason', 'reshape', 'stat', 'bytes', 'identity', 'lines', 'resume', 'endsWithNewline', 'lastEntryLine', 'n',
  'starts', 'lengths', 'kinds', 'viewFlags', 'contributes', 'tokens', 'assistantModel', 'models', 'ids', 'labels', 'payloads',
  'callHash', 'callOwner', 'resultHash', 'resultOwner', 'stats', 'firstPrompt', 'loadedDiagnostics', 'diagnostics', 'tree',
] as const;
export const CACHED_TREE_FIELDS = [
  'entries', 'lines', 'idAt', 'parentIdAt', 'n', 'idx', 'shadowed', 'kinds', 'parent', 'depth', 'firstChild', 'nextSibling',
  'lastChild', 'labels', 'rootIdx', 'roots', 'size', 'dupDiags', 'missingDiags', 'cycleDiags', 'missingParents',
] as const;

type Typed = Float64Array | Int32Array | Uint32Array | Uint8Array;
const CTORS = { f64: Float64Array, i32: Int32Array, u32: Uint32Array, u8: Uint8Array } as const;
type CtorName = keyof typeof CTORS;

function ctorName(a: Typed): CtorName {
  if (a instanceof Float64Array) return 'f64';
  if (a instanceof Int32Array) return 'i32';
  if (a instanceof Uint32Array) return 'u32';
  return 'u8';
}

interface Section {
  name: string;
  type: CtorName;
  /** Byte offset from the start of the data (after the head, 8-aligned). */
  offset: number;
  length: number;
}

interface Head {
  format: number;
  path: string;
  ix: Pick<
    LazyIndexData,
    'header' | 'headerLine' | 'originalVersion' | 'readOnlyReason' | 'stat' | 'bytes' | 'identity' | 'lines' | 'resume' | 'endsWithNewline' | 'lastEntryLine' | 'n' | 'stats' | 'firstPrompt' | 'loadedDiagnostics' | 'diagnostics'
  > & { models: string[]; labels: [string, string][]; payloads: [number, Payload][] };
  tree: {
    n: number;
    size: number;
    rootIdx: number[];
    roots: string[];
    dupDiags: Diagnostic[];
    missingDiags: Diagnostic[];
    cycleDiags: Diagnostic[];
    missingParents: string[];
    idxSize: number;
    /** The tree's own labels when they are not the index's map (they always are after a pass). */
    labels: [string, string][] | null;
    kindsShared: boolean;
  };
  sections: Section[];
}

const align8 = (n: number): number => (n + 7) & ~7;

/**
 * The id blocks as one UTF-8 column and where each block ends in it: a 1M-entry index holds 8 MB
 * of ids, which as JSON strings took longer to read back than all the other columns together.
 */
function packBlocks(blocks: string[]): { bytes: Uint8Array; blockEnds: Uint32Array } {
  const parts = blocks.map((b) => Buffer.from(b, 'utf8'));
  const blockEnds = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((p, i) => (blockEnds[i] = at += p.length));
  const joined = Buffer.concat(parts, at);
  return { bytes: new Uint8Array(joined.buffer, joined.byteOffset, joined.length), blockEnds };
}

function unpackBlocks(bytes: Uint8Array, blockEnds: Uint32Array): string[] | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const blocks: string[] = [];
  let from = 0;
  for (const end of blockEnds) {
    if (end < from || end > buf.length) return null;
    blocks.push(buf.toString('utf8', from, end));
    from = end;
  }
  return from === buf.length ? blocks : null;
}

/** The columns of an index by section name (null: absent). */
function columnsOf(ix: LazyIndexData): Record<string, Typed | null> {
  const ids = ix.ids.parts();
  const idText = packBlocks(ids.blocks);
  const t = ix.tree;
  return {
    starts: ix.starts,
    lengths: ix.lengths,
    kinds: ix.kinds,
    viewFlags: ix.viewFlags,
    contributes: ix.contributes,
    tokens: ix.tokens,
    assistantModel: ix.assistantModel,
    callHash: ix.callHash,
    callOwner: ix.callOwner,
    resultHash: ix.resultHash,
    resultOwner: ix.resultOwner,
    'ids.ends': ids.ends,
    'ids.nulls': ids.nulls,
    'ids.text': idText.bytes,
    'ids.blockEnds': idText.blockEnds,
    'tree.shadowed': t.shadowed,
    'tree.kinds': t.kinds === ix.kinds ? null : t.kinds,
    'tree.parent': t.parent,
    'tree.depth': t.depth,
    'tree.firstChild': t.firstChild,
    'tree.nextSibling': t.nextSibling,
    'tree.lastChild': t.lastChild,
    'tree.idx': t.idx.parts().slots,
  };
}

/** Writes `ix` to `file` atomically (temp file, fsync, rename): a reader sees the old file or the new one. */
export async function writeIndexFile(file: string, ix: LazyIndexData): Promise<void> {
  const t = ix.tree;
  const columns = columnsOf(ix);
  const sections: Section[] = [];
  let at = 0;
  for (const [name, a] of Object.entries(columns)) {
    if (a === null) continue;
    sections.push({ name, type: ctorName(a), offset: at, length: a.length });
    at = align8(at + a.byteLength);
  }
  const head: Head = {
    format: INDEX_CACHE_FORMAT,
    path: ix.path,
    ix: {
      header: ix.header,
      headerLine: ix.headerLine,
      originalVersion: ix.originalVersion,
      readOnlyReason: ix.readOnlyReason,
      stat: ix.stat,
      bytes: ix.bytes,
      identity: ix.identity,
      lines: ix.lines,
      resume: ix.resume,
      endsWithNewline: ix.endsWithNewline,
      lastEntryLine: ix.lastEntryLine,
      n: ix.n,
      stats: ix.stats,
      firstPrompt: ix.firstPrompt,
      loadedDiagnostics: ix.loadedDiagnostics,
      diagnostics: ix.diagnostics,
      models: ix.models.list,
      labels: [...ix.labels],
      payloads: [...ix.payloads],
    },
    tree: {
      n: t.n,
      size: t.size,
      rootIdx: t.rootIdx,
      roots: t.roots,
      dupDiags: t.dupDiags,
      missingDiags: t.missingDiags,
      cycleDiags: t.cycleDiags,
      missingParents: [...t.missingParents],
      idxSize: t.idx.parts().size,
      labels: t.labels === ix.labels ? null : [...t.labels],
      kindsShared: t.kinds === ix.kinds,
    },
    sections,
  };
  const json = Buffer.from(JSON.stringify(head), 'utf8');
  const pre = Buffer.alloc(12);
  pre.writeUInt32LE(MAGIC, 0);
  pre.writeUInt32LE(INDEX_CACHE_FORMAT, 4);
  pre.writeUInt32LE(json.length, 8);
  const dataStart = align8(12 + json.length);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  // Private to the user whatever the umask (issue 22 §7): an index holds ids, titles, models.
  const fh = await open(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    await fh.chmod(PRIVATE_FILE_MODE);
    await fh.write(pre, 0, 12, 0);
    await fh.write(json, 0, json.length, 12);
    for (const s of sections) {
      const a = columns[s.name]!;
      if (a.byteLength > 0) await fh.write(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), 0, a.byteLength, dataStart + s.offset);
    }
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  await rename(tmp, file).catch(async (e: unknown) => {
    await rm(tmp, { force: true });
    throw e;
  });
}

const isInt = (x: unknown, min = 0): x is number => Number.isInteger(x) && (x as number) >= min;

/**
 * The index `file` holds for the session at `sessionPath`, or null when the file is not a whole
 * cache of it (another format, another path, torn, parts that do not fit together). It says
 * nothing about whether the session still matches: see IndexCache.load.
 */
export async function readIndexFile(file: string, sessionPath: string, accept?: (ix: Head['ix']) => Promise<boolean>): Promise<LazyIndexData | null> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = (await fh.stat()).size;
    const pre = Buffer.alloc(12);
    if ((await fh.read(pre, 0, 12, 0)).bytesRead !== 12) return null;
    if (pre.readUInt32LE(0) !== MAGIC || pre.readUInt32LE(4) !== INDEX_CACHE_FORMAT) return null;
    const jsonLen = pre.readUInt32LE(8);
    if (12 + jsonLen > size) return null;
    const json = Buffer.alloc(jsonLen);
    if ((await fh.read(json, 0, jsonLen, 12)).bytesRead !== jsonLen) return null;
    let head: Head;
    try {
      head = JSON.parse(json.toString('utf8')) as Head;
    } catch {
      return null;
    }
    if (head?.format !== INDEX_CACHE_FORMAT || head.path !== sessionPath || !Array.isArray(head.sections) || !head.ix || !head.tree) return null;
    // Asked before the columns are read: a cache of a file since replaced costs its head only.
    if (accept && !(await accept(head.ix))) return null;
    const dataStart = align8(12 + jsonLen);
    const cols = new Map<string, Typed>();
    for (const s of head.sections) {
      const Ctor = CTORS[s?.type];
      if (!Ctor || !isInt(s.offset) || !isInt(s.length) || s.offset % 8 !== 0) return null;
      const a = new Ctor(s.length);
      if (dataStart + s.offset + a.byteLength > size) return null;
      if (a.byteLength > 0 && (await fh.read(new Uint8Array(a.buffer), 0, a.byteLength, dataStart + s.offset)).bytesRead !== a.byteLength) return null;
      cols.set(s.name, a);
    }
    return assemble(head, cols);
  } finally {
    await fh.close();
  }
}

/** The index from a cache file's parts, or null when they do not fit together. */
function assemble(head: Head, cols: Map<string, Typed>): LazyIndexData | null {
  const h = head.ix;
  const n = h.n;
  if (!isInt(n) || head.tree.n !== n) return null;
  const col = <T extends Typed>(name: string, ctor: new (k: number) => T, length = n): T | null => {
    const a = cols.get(name);
    return a instanceof ctor && a.length === length ? a : null;
  };
  const starts = col('starts', Float64Array);
  const lengths = col('lengths', Uint32Array);
  const kinds = col('kinds', Uint8Array);
  const viewFlags = col('viewFlags', Uint8Array);
  const contributes = col('contributes', Uint8Array);
  const tokens = col('tokens', Int32Array);
  const assistantModel = col('assistantModel', Int32Array);
  const calls = cols.get('callHash')?.length ?? -1;
  const results = cols.get('resultHash')?.length ?? -1;
  const callHash = col('callHash', Int32Array, calls);
  const callOwner = col('callOwner', Int32Array, calls);
  const resultHash = col('resultHash', Int32Array, results);
  const resultOwner = col('resultOwner', Int32Array, results);
  const ends = col('ids.ends', Uint32Array);
  const nulls = col('ids.nulls', Uint8Array);
  const shadowed = col('tree.shadowed', Uint8Array);
  const treeKinds = head.tree.kindsShared ? kinds : col('tree.kinds', Uint8Array);
  const parent = col('tree.parent', Int32Array);
  const depth = col('tree.depth', Int32Array);
  const firstChild = col('tree.firstChild', Int32Array);
  const nextSibling = col('tree.nextSibling', Int32Array);
  const lastChild = cols.has('tree.lastChild') ? col('tree.lastChild', Int32Array) : null;
  const slots = cols.get('tree.idx');
  if (
    !starts || !lengths || !kinds || !viewFlags || !contributes || !tokens || !assistantModel || !callHash || !callOwner || !resultHash || !resultOwner ||
    !ends || !nulls || !shadowed || !treeKinds || !parent || !depth || !firstChild || !nextSibling || (cols.has('tree.lastChild') && !lastChild) || !(slots instanceof Int32Array)
  ) {
    return null;
  }
  const text = cols.get('ids.text');
  const blockEnds = cols.get('ids.blockEnds');
  const blocks = text instanceof Uint8Array && blockEnds instanceof Uint32Array ? unpackBlocks(text, blockEnds) : null;
  const ids = blocks && PackedStrings.fromParts({ blocks, ends, nulls });
  if (!ids || !Array.isArray(h.models) || new Set(h.models).size !== h.models.length) return null;
  const labels = new Map(h.labels);
  const tree: TreeState = {
    entries: [],
    lines: undefined,
    idAt: (i) => ids.at(i) ?? undefined,
    parentIdAt: () => null,
    n,
    idx: null as unknown as IdTable,
    shadowed,
    kinds: treeKinds,
    parent,
    depth,
    firstChild,
    nextSibling,
    lastChild,
    labels: head.tree.labels === null ? labels : new Map(head.tree.labels),
    rootIdx: head.tree.rootIdx,
    roots: head.tree.roots,
    size: head.tree.size,
    dupDiags: head.tree.dupDiags,
    missingDiags: head.tree.missingDiags,
    cycleDiags: head.tree.cycleDiags,
    missingParents: new Set(head.tree.missingParents),
  };
  const idx = IdTable.fromParts((i) => tree.idAt(i), slots, head.tree.idxSize);
  if (!idx) return null;
  tree.idx = idx;
  return {
    path: head.path,
    header: h.header,
    headerLine: h.headerLine,
    originalVersion: h.originalVersion,
    readOnlyReason: h.readOnlyReason,
    // (only indexes of files shown as they are on disk are kept: see save)
    reshape: null,
    stat: h.stat,
    bytes: h.bytes,
    identity: h.identity,
    lines: h.lines,
    resume: h.resume,
    endsWithNewline: h.endsWithNewline,
    lastEntryLine: h.lastEntryLine,
    n,
    starts,
    lengths,
    kinds,
    viewFlags,
    contributes,
    tokens,
    assistantModel,
    models: Interner.of(h.models),
    ids,
    labels,
    payloads: new Map(h.payloads),
    callHash,
    callOwner,
    resultHash,
    resultOwner,
    stats: h.stats,
    firstPrompt: h.firstPrompt,
    loadedDiagnostics: h.loadedDiagnostics,
    diagnostics: h.diagnostics,
    tree,
  };
}

export interface IndexCacheOptions {
  /** Sessions smaller than this are not cached: their index pass is quick (default 16 MB). */
  minBytes?: number;
  /** Cache files kept, the most recently used first (default 32). */
  maxFiles?: number;
  /** Bytes of cache files kept (default 1 GiB; the most recently used file is always kept). */
  maxBytes?: number;
}

/** A folder of cached indexes, one file per session path. */
export class IndexCache {
  readonly minBytes: number;
  readonly maxFiles: number;
  readonly maxBytes: number;

  constructor(
    readonly dir: string,
    opts: IndexCacheOptions = {},
  ) {
    this.minBytes = opts.minBytes ?? 16 * 1024 * 1024;
    this.maxFiles = opts.maxFiles ?? 32;
    this.maxBytes = opts.maxBytes ?? 1024 * 1024 * 1024;
  }

  fileFor(sessionPath: string): string {
    return nodePath.join(this.dir, `${createHash('sha1').update(sessionPath).digest('hex')}.slix`);
  }

  /**
   * The cached index of `sessionPath` when it was made from this very file: the same device and
   * inode, and the same bytes at both ends of what it read. It may be behind a grown file (the
   * caller reads the tail); anything else is null.
   */
  async load(sessionPath: string): Promise<LazyIndexData | null> {
    let st;
    try {
      st = await stat(sessionPath);
    } catch {
      return null;
    }
    if (st.size < this.minBytes) return null;
    const file = this.fileFor(sessionPath);
    const sameFile = async (h: Head['ix']): Promise<boolean> => {
      const id = h.identity;
      if (!id || !h.stat || st.dev !== h.stat.dev || st.ino !== h.stat.ino || !isInt(h.bytes) || st.size < h.bytes) return false;
      const now = await readFileIdentity(sessionPath, h.bytes, st).catch(() => null);
      return now !== null && now.head === id.head && now.seam === id.seam;
    };
    const ix = await readIndexFile(file, sessionPath, sameFile).catch(() => null);
    if (!ix) return null;
    // Recently used: the last to be evicted.
    const t = new Date();
    await utimes(file, t, t).catch(() => undefined);
    return ix;
  }

  /** Keeps `ix` for the next opening (big sessions only); evicts the least recently used beyond maxFiles. Never throws. */
  async save(ix: LazyIndexData): Promise<boolean> {
    // A file the loader reshapes (a migration, made ids) is indexed again at each opening: its
    // reshape is not kept, and such files are old or damaged ones, seldom big.
    if (ix.stat.size < this.minBytes || !ix.identity || ix.reshape !== null) return false;
    try {
      // 0700, made level by level (privateDir.ts)
      await makePrivateDir(this.dir);
      await writeIndexFile(this.fileFor(ix.path), ix);
      await this.#evict();
      return true;
    } catch {
      return false;
    }
  }

  async #evict(): Promise<void> {
    const all = await readdir(this.dir);
    // Temp files of a writer that died (an hour is far longer than any write takes).
    for (const f of all.filter((x) => x.endsWith('.tmp'))) {
      const p = nodePath.join(this.dir, f);
      const st = await stat(p).catch(() => null);
      if (st && Date.now() - st.mtimeMs > 3_600_000) await rm(p, { force: true });
    }
    const names = all.filter((f) => f.endsWith('.slix'));
    const aged = await Promise.all(
      names.map(async (f) => {
        const st = await stat(nodePath.join(this.dir, f)).catch(() => null);
        return { f, t: st?.mtimeMs ?? 0, size: st?.size ?? 0 };
      }),
    );
    aged.sort((a, b) => b.t - a.t);
    let bytes = 0;
    for (const [k, { f, size }] of aged.entries()) {
      bytes += size;
      if (k > 0 && (k >= this.maxFiles || bytes > this.maxBytes)) await rm(nodePath.join(this.dir, f), { force: true });
    }
  }
}

/**
 * A file's lazy index: from `cache` when it holds this file's, brought up to date by a tail read,
 * else from a full pass. `built`: a full pass made it (the caller keeps it in the cache, when and
 * how suits it: the model worker in the background, the CLI before it exits).
 */
export async function cachedOrBuiltIndex(path: string, cache: IndexCache | undefined, opts: IndexOptions = {}): Promise<{ index: LazyIndexData; built: boolean }> {
  if (cache) {
    const cached = await cache.load(path);
    if (cached) {
      const up = await appendLazyIndex(cached, opts.signal ? { signal: opts.signal } : {});
      if (up.kind !== 'full') return { index: up.kind === 'appended' ? up.index : cached, built: false };
    }
  }
  return { index: await buildLazyIndex(path, opts), built: true };
}
