// The compact index of an xcsh session (issue 11): one streaming pass over the file keeps, per
// entry, its byte range, line, kind, filter flags, token estimate, id and parentId (packed), and
// the few facts the context needs (runtime payloads, assistant models, compaction facts,
// tool-call pairing hashes); the parsed values are dropped as the pass goes. Bodies stay on disk
// (bodyReader.ts) and are read back by byte range when a window needs them.
//
// Every xcsh file the product accepts is indexed here (issue 23: one engine). A current file (a
// `version: 3` header, every entry with a string id) is streamed. A file whose entries the reader
// must change before they can be shown — a v1/v2 file to migrate (v1's ids and parent chain
// depend on every entry: Part C §10), entries without an id, a header-less or too-new or garbled
// one — is read by the loader (load.ts, the same rules the writers use), and indexed from what it
// gives: the index keeps how each changed entry differs from its bytes (`reshape`), and a body read
// back from disk is changed the same way (bodyReader.ts).
import { stat as fsStat } from 'node:fs/promises';
import { CancelledError } from '../../rpc';
import type { Diagnostic } from '../../../diagnostics';
import { isDshHeader } from '../../../formats/detect';
import { compactionSummaryMessage, entryToMessage, remoteCompactionOf } from '../../../formats/xcsh/context';
import { readJsonlFile, type JsonlParseResult, type ReadFrom } from '../../../formats/xcsh/jsonl';
import { loadSessionFile, readFileIdentity, type FileIdentity, type LoadedSession } from '../../../formats/xcsh/load';
import type { NumericLink } from '../../../formats/xcsh/ids';
import type { RecordEdit } from '../../../store/recordEdit';
import { planTail } from '../../../formats/xcsh/tail';
import { appendTreeNodes } from '../../../tree/treeAppend';
import { withoutReplayData } from '../../../formats/xcsh/replayData';
import type { CompactionEntry, SessionEntry, SessionHeader } from '../../../formats/xcsh/schemas';
import { computeSessionStats, extendSessionStats, type SessionStats } from '../../../formats/xcsh/stats';
import { readHeaderVersion } from '../../../formats/xcsh/version';
import { fieldDiagnostic } from '../../../formats/xcsh/fieldChecks';
import { firstMeaningfulPrompt } from '../../../discovery/prompts';
import { applyLabel, buildTreeStateOf, EntryKind, entryKind, parentIdOf, type TreeState } from '../../../tree/treeState';
import { viewFlagsOf, type ViewEntry } from '../../../tree/treeView';
import { estimateTokens } from '../messageView';
import { Column, hash32, Interner, PackedStrings } from './columns';

/** The runtime facts of the few entries the context reads beyond their message. */
export type Payload =
  | { kind: 'thinking'; thinkingLevel: unknown }
  | { kind: 'model'; model: unknown; role: unknown }
  | { kind: 'ttsr'; rules: string[] }
  | { kind: 'mode'; mode: unknown; data: unknown }
  | { kind: 'compaction'; firstKeptEntryId: string | null; remote: boolean; tokensBefore: number | null; timestamp: string | null };

export interface FileStamp {
  size: number;
  mtimeMs: number;
  dev: number;
  ino: number;
}

/**
 * How the bodies of a loaded (not streamed) file become the entries shown, by position: the
 * migration's edits, the ids made for entries without one, numeric references linked to them
 * (load.ts's LoadedSession.entryEdits, syntheticIds, numericLinks).
 */
export interface BodyReshape {
  edits: Map<number, readonly RecordEdit[]>;
  madeIds: Map<number, string>;
  links: Map<number, NumericLink>;
}

export interface LazyIndexData {
  path: string;
  /** After migration; null when the file has no valid header (damaged) or is empty. */
  header: SessionHeader | null;
  headerLine: number;
  /** The header's version as stored, before any migration (absent: 1). */
  originalVersion: number;
  /** Why the file must not be written (damaged, too new, a garbled version); null when writable. */
  readOnlyReason: string | null;
  /** Null when every body is shown as it is on disk (a streamed current file). */
  reshape: BodyReshape | null;
  stat: FileStamp;
  /** Bytes the pass read (the indexed prefix of the file). */
  bytes: number;
  identity: FileIdentity | null;
  // ---- what a tail read needs (as LoadedSession's, tail.ts) ----
  /** Physical lines read. */
  lines: number;
  resume: ReadFrom;
  endsWithNewline: boolean;
  /** The line of the last entry (0: none). */
  lastEntryLine: number;
  n: number;
  starts: Float64Array;
  /** Byte length of each record (a record is far below 4 GB; offsets are not). */
  lengths: Uint32Array;
  kinds: Uint8Array;
  /** ViewFlag bits (treeView.ts): what the tree filters read. */
  viewFlags: Uint8Array;
  /** 1 when the entry puts a message in the context (a message object, a custom message, a non-empty branch summary, a compaction). */
  contributes: Uint8Array;
  /** estimateTokens of the message the entry contributes (0 for none). */
  tokens: Int32Array;
  /** Interned "provider/model" of an assistant message that names both, else -1. */
  assistantModel: Int32Array;
  models: Interner;
  ids: PackedStrings;
  labels: Map<string, string>;
  payloads: Map<number, Payload>;
  /** Tool calls (assistant messages) and tool results, as (hash of the call id, position) in file order. */
  callHash: Int32Array;
  callOwner: Int32Array;
  resultHash: Int32Array;
  resultOwner: Int32Array;
  stats: SessionStats;
  firstPrompt: string | null;
  /** Reader + loader diagnostics, sorted by line (LoadedSession.diagnostics). */
  loadedDiagnostics: Diagnostic[];
  /** Those and the tree's, merged and sorted as the eager document does. */
  diagnostics: Diagnostic[];
  tree: TreeState;
}

/** The file is not a current one the stream can index as it goes: the loader reads it (see the top). */
class NotStreamable extends Error {}

/** Entries handled between two stats updates (a read chunk may hold thousands of small ones). */
const STATS_BATCH = 32;

export interface IndexOptions {
  signal?: AbortSignal;
  /** After each read chunk: bytes read so far of the file's size when the pass began. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

/** Indexes a file: streamed when it is a current one, else from what the loader reads (see the top). */
export async function buildLazyIndex(path: string, opts: IndexOptions = {}): Promise<LazyIndexData> {
  for (let attempt = 0; ; attempt++) {
    const st = await fsStat(path);
    let built: LazyIndexData;
    try {
      built = await indexOnce(path, { size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino }, opts);
    } catch (e) {
      if (e instanceof NotStreamable) return indexByLoader(path, opts);
      throw e;
    }
    // A file replaced or rewritten while it was read is read again: an index over two
    // different files would put bodies at the wrong offsets.
    const after = await fsStat(path).catch(() => null);
    // Grown is fine (the agent appended: what was read is a prefix, as the eager loader reads it);
    // touched without growing is a rewrite.
    const grew = after !== null && after.size > st.size;
    const same = after !== null && after.ino === st.ino && after.dev === st.dev && after.size >= built.bytes && (grew || after.mtimeMs === st.mtimeMs);
    if (same && built.identity !== null) return built;
    // A file that keeps changing is read once, as it is at that moment (the loader's one read).
    if (attempt >= 3) return indexByLoader(path, opts);
  }
}

/** The index of what the loader reads of a file (migrated, ids made, damage judged: load.ts). */
async function indexByLoader(path: string, opts: IndexOptions): Promise<LazyIndexData> {
  const st = await fsStat(path);
  const stat = { size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino };
  const loaded = await loadSessionFile(path, {
    read: {
      onChunk: (bytesRead) => opts.onProgress?.(Math.min(bytesRead, st.size), st.size),
      ...(opts.signal ? { signal: opts.signal, abortError: () => new CancelledError() } : {}),
    },
  });
  const b = new IndexBuilder();
  b.header = loaded.header;
  b.headerLine = loaded.headerLine;
  b.records = 1;
  b.stats = computeSessionStats([], loaded.header);
  const { entries, entryLines, entryStarts, entryEnds } = loaded;
  for (let i = 0; i < entries.length; i++) b.entry(entries[i]!, entryLines[i]!, entryStarts[i]!, entryEnds[i]!);
  const madeIds = new Map<number, string>();
  if (loaded.syntheticIds) entries.forEach((e, i) => loaded.syntheticIds!.has(e.id) && madeIds.set(i, e.id));
  const edits = loaded.entryEdits ?? new Map<number, readonly RecordEdit[]>();
  const links = loaded.numericLinks ?? new Map<number, NumericLink>();
  const reshape = edits.size + madeIds.size + links.size > 0 ? { edits, madeIds, links } : null;
  const parse = { bytes: loaded.bytes, lines: loaded.lines ?? 0, resume: loaded.resume ?? { from: loaded.bytes, startLine: loaded.lines ?? 0 }, endsWithNewline: loaded.endsWithNewline };
  return b.finish(path, stat, parse, loaded.identity ?? null, { originalVersion: loaded.originalVersion, readOnlyReason: loaded.readOnlyReason, reshape, loadedDiagnostics: loaded.diagnostics });
}

async function indexOnce(path: string, stat: FileStamp, opts: IndexOptions): Promise<LazyIndexData> {
  const b = new IndexBuilder();
  const parse = await readJsonlFile(path, undefined, {
    onRecord: (v, line, start, end) => b.record(v, line, start, end),
    onChunk: (bytesRead) => {
      b.flushBatch();
      b.planCapacity(bytesRead, stat.size);
      opts.onProgress?.(Math.min(bytesRead, stat.size), stat.size);
    },
    ...(opts.signal ? { signal: opts.signal, abortError: () => new CancelledError() } : {}),
  });
  const identity = await readFileIdentity(path, parse.bytes, stat).catch(() => null);
  // As the loader orders them: reader notes, then loader notes, stably by line.
  const loadedDiagnostics = [...parse.diagnostics, ...b.loaderDiags].sort((a, b) => a.line - b.line);
  return b.finish(path, stat, parse, identity, { originalVersion: 3, readOnlyReason: null, reshape: null, loadedDiagnostics });
}

/** What the index records of how the file was read (streamed: a current file as it is). */
interface ReadFacts {
  originalVersion: number;
  readOnlyReason: string | null;
  reshape: BodyReshape | null;
  /** Reader + loader diagnostics, sorted by line (LoadedSession.diagnostics). */
  loadedDiagnostics: Diagnostic[];
}

type ParseFacts = Pick<JsonlParseResult, 'bytes' | 'lines' | 'resume' | 'endsWithNewline'>;

class IndexBuilder {
  header: SessionHeader | null = null;
  headerLine = 0;
  records = 0;
  facts: Omit<ReadFacts, 'loadedDiagnostics'> = { originalVersion: 3, readOnlyReason: null, reshape: null };
  starts: Column<Float64Array> = new Column(Float64Array);
  lengths: Column<Uint32Array> = new Column(Uint32Array);
  /** Lines of the entries read by this builder (a tail builder: of the tail only). */
  readonly lines = new Column(Uint32Array);
  kinds: Column<Uint8Array> = new Column(Uint8Array);
  viewFlags: Column<Uint8Array> = new Column(Uint8Array);
  contributes: Column<Uint8Array> = new Column(Uint8Array);
  tokens: Column<Int32Array> = new Column(Int32Array);
  assistantModel: Column<Int32Array> = new Column(Int32Array);
  models = new Interner();
  ids = new PackedStrings();
  /** parentIds of the entries read by this builder. */
  readonly parentIds = new PackedStrings();
  labels = new Map<string, string>();
  payloads = new Map<number, Payload>();
  callHash: Column<Int32Array> = new Column(Int32Array);
  callOwner: Column<Int32Array> = new Column(Int32Array);
  resultHash: Column<Int32Array> = new Column(Int32Array);
  resultOwner: Column<Int32Array> = new Column(Int32Array);
  readonly loaderDiags: Diagnostic[] = [];
  stats: SessionStats | null = null;
  firstPrompt: string | null = null;
  lastEntryLine = 0;
  readonly batch: SessionEntry[] = [];

  /** A builder that goes on from an index (a tail read): its columns are copied to grow, its maps shared. */
  static continuing(ix: LazyIndexData): IndexBuilder {
    const b = new IndexBuilder();
    b.header = ix.header;
    b.headerLine = ix.headerLine;
    b.facts = { originalVersion: ix.originalVersion, readOnlyReason: ix.readOnlyReason, reshape: ix.reshape };
    b.records = 1; // the header is read
    b.starts = Column.of(Float64Array, ix.starts);
    b.lengths = Column.of(Uint32Array, ix.lengths);
    b.kinds = Column.of(Uint8Array, ix.kinds);
    b.viewFlags = Column.of(Uint8Array, ix.viewFlags);
    b.contributes = Column.of(Uint8Array, ix.contributes);
    b.tokens = Column.of(Int32Array, ix.tokens);
    b.assistantModel = Column.of(Int32Array, ix.assistantModel);
    b.models = ix.models;
    b.ids = ix.ids;
    b.labels = ix.labels;
    b.payloads = ix.payloads;
    b.callHash = Column.of(Int32Array, ix.callHash);
    b.callOwner = Column.of(Int32Array, ix.callOwner);
    b.resultHash = Column.of(Int32Array, ix.resultHash);
    b.resultOwner = Column.of(Int32Array, ix.resultOwner);
    b.stats = ix.stats;
    b.firstPrompt = ix.firstPrompt;
    b.lastEntryLine = ix.lastEntryLine;
    return b;
  }

  record(v: Record<string, unknown>, line: number, start: number, end: number): void {
    if (this.records++ === 0) return this.#header(v, line);
    if (typeof v.type !== 'string') {
      this.loaderDiags.push({ line, kind: 'invalid-entry', message: 'record has no string "type"; skipped, kept verbatim' });
      return;
    }
    if (typeof v.id !== 'string') throw new NotStreamable(`an entry without a string id (line ${line})`);
    const bad = fieldDiagnostic(v, line);
    if (bad !== null) this.loaderDiags.push(bad);
    // As the loader holds it (Part B §15); v3 needs no migration.
    this.entry(withoutReplayData(v as unknown as SessionEntry), line, start, end);
  }

  /** An entry as the loader holds it (migrated, with an id). */
  entry(e: SessionEntry, line: number, start: number, end: number): void {
    const i = this.starts.length;
    this.starts.push(start);
    this.lengths.push(end - start);
    this.lines.push(line);
    this.lastEntryLine = line;
    const kind = entryKind(e);
    this.kinds.push(kind);
    this.viewFlags.push(viewFlagsOf(e as unknown as ViewEntry));
    this.ids.push(e.id);
    this.parentIds.push(parentIdOf(e));
    applyLabel(this.labels, e);
    this.#contextFacts(e, kind, i);
    if (this.firstPrompt === null) this.firstPrompt = firstMeaningfulPrompt([e]);
    this.batch.push(e);
    if (this.batch.length >= STATS_BATCH) this.flushBatch();
  }

  #header(v: Record<string, unknown>, line: number): void {
    if (v.type !== 'session' || typeof v.id !== 'string') throw new NotStreamable('no valid session header');
    if (isDshHeader(v)) throw new NotStreamable('a dsh header');
    const hv = readHeaderVersion(v);
    if (hv.note !== null || !hv.writable || hv.version !== 3) throw new NotStreamable(`header version ${String(hv.version)} (only v3 is streamed)`);
    this.header = v as unknown as SessionHeader;
    this.headerLine = line;
    this.stats = computeSessionStats([], this.header);
  }

  /** What buildSessionContext and the context windows read of an entry, so a context needs no body. */
  #contextFacts(e: SessionEntry, kind: number, i: number): void {
    let m: Record<string, unknown> | null = null;
    let model = -1;
    if (kind === EntryKind.Message || kind === EntryKind.AssistantMessage) {
      const raw = (e as { message?: unknown }).message;
      m = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : null;
      if (m !== null && kind === EntryKind.AssistantMessage) {
        if (typeof m.provider === 'string' && typeof m.model === 'string') model = this.models.code(`${m.provider}/${m.model}`);
        if (Array.isArray(m.content)) {
          for (const b of m.content as Record<string, unknown>[]) {
            if (b && b.type === 'toolCall' && typeof b.id === 'string') {
              this.callHash.push(hash32(b.id));
              this.callOwner.push(i);
            }
          }
        }
      } else if (m !== null && m.role === 'toolResult' && typeof m.toolCallId === 'string') {
        this.resultHash.push(hash32(m.toolCallId));
        this.resultOwner.push(i);
      }
    } else if (kind === EntryKind.CustomMessage || kind === EntryKind.BranchSummary) {
      m = entryToMessage(e);
    } else if (kind === EntryKind.Compaction) {
      const c = e as CompactionEntry;
      m = compactionSummaryMessage(c);
      const ts = (c as { timestamp?: unknown }).timestamp;
      const tb = (c as { tokensBefore?: unknown }).tokensBefore;
      this.payloads.set(i, {
        kind: 'compaction',
        firstKeptEntryId: typeof c.firstKeptEntryId === 'string' ? c.firstKeptEntryId : null,
        remote: remoteCompactionOf(c) !== null,
        tokensBefore: typeof tb === 'number' ? tb : null,
        timestamp: typeof ts === 'string' ? ts : null,
      });
    } else if (kind === EntryKind.ThinkingLevel) {
      this.payloads.set(i, { kind: 'thinking', thinkingLevel: (e as { thinkingLevel?: unknown }).thinkingLevel });
    } else if (kind === EntryKind.ModelChange) {
      this.payloads.set(i, { kind: 'model', model: (e as { model?: unknown }).model, role: (e as { role?: unknown }).role });
    } else if (kind === EntryKind.TtsrInjection) {
      const r = (e as { injectedRules?: unknown }).injectedRules;
      this.payloads.set(i, { kind: 'ttsr', rules: Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [] });
    } else if (kind === EntryKind.ModeChange) {
      this.payloads.set(i, { kind: 'mode', mode: (e as { mode?: unknown }).mode, data: (e as { data?: unknown }).data });
    }
    this.contributes.push(m === null ? 0 : 1);
    this.tokens.push(m === null ? 0 : estimateTokens(m));
    this.assistantModel.push(model);
  }

  /**
   * Sizes the per-entry columns for the whole file, projected from the entries per byte read so
   * far. Growing them by doubling instead copies each one about as many bytes as it ends up
   * holding, and the freed blocks stay resident (glibc keeps freed large blocks in its heap once
   * its mmap threshold has risen): at 1M entries ~60 MB more RSS held after the index is built.
   */
  planCapacity(bytesRead: number, fileSize: number): void {
    const n = this.starts.length;
    if (n < 256 || bytesRead <= 0 || bytesRead >= fileSize) return;
    const projected = Math.ceil((n * fileSize) / bytesRead) + 1024;
    // Re-planned only when the projection outgrows the room by a sixteenth: a few copies at most.
    if (projected <= this.starts.capacity + (this.starts.capacity >> 4)) return;
    const want = projected + (projected >> 4);
    for (const c of [this.starts, this.lengths, this.lines, this.kinds, this.viewFlags, this.contributes, this.tokens, this.assistantModel]) c.reserve(want);
    this.ids.reserve(want);
    this.parentIds.reserve(want);
  }

  flushBatch(): void {
    if (this.batch.length === 0 || this.stats === null) return;
    this.stats = extendSessionStats(this.stats, this.batch, 0);
    this.batch.length = 0;
  }

  finish(path: string, stat: FileStamp, parse: ParseFacts, identity: FileIdentity | null, facts: ReadFacts): LazyIndexData {
    this.flushBatch();
    if (this.stats === null) throw new NotStreamable(parse.bytes > 0 ? 'no valid session header' : 'an empty file');
    const { loadedDiagnostics, ...read } = facts;
    this.facts = read;
    const n = this.starts.length;
    const ids = this.ids;
    const parentIds = this.parentIds;
    const kinds = this.kinds.trimmed();
    const lines = this.lines.trimmed();
    const tree = buildTreeStateOf({
      n,
      idAt: (i) => ids.at(i) ?? undefined,
      parentIdAt: (i) => parentIds.at(i),
      kinds,
      labels: this.labels,
      lines,
    });
    return this.#data(path, stat, parse, identity, tree, kinds, loadedDiagnostics);
  }

  #data(path: string, stat: FileStamp, parse: ParseFacts, identity: FileIdentity | null, tree: TreeState, kinds: Uint8Array, loadedDiagnostics: Diagnostic[]): LazyIndexData {
    const treeDiags = [...tree.dupDiags, ...tree.missingDiags, ...tree.cycleDiags];
    const diagnostics = treeDiags.length === 0 ? loadedDiagnostics.slice() : [...loadedDiagnostics, ...treeDiags].sort((a, b) => a.line - b.line);
    // Lines and parentIds only served the build (its diagnostics, its links): the index keeps
    // parent positions, and a tail read brings its own.
    tree.lines = undefined;
    tree.parentIdAt = () => null;
    // (The tree's diagnostics merged by line after the loader's, as the loader's document does.)
    return {
      path,
      header: this.header,
      headerLine: this.headerLine,
      ...this.facts,
      stat,
      bytes: parse.bytes,
      identity,
      lines: parse.lines,
      resume: parse.resume,
      endsWithNewline: parse.endsWithNewline,
      lastEntryLine: this.lastEntryLine,
      n: this.starts.length,
      starts: this.starts.trimmed(),
      lengths: this.lengths.trimmed(),
      kinds,
      viewFlags: this.viewFlags.trimmed(),
      contributes: this.contributes.trimmed(),
      tokens: this.tokens.trimmed(),
      assistantModel: this.assistantModel.trimmed(),
      models: this.models,
      ids: this.ids,
      labels: this.labels,
      payloads: this.payloads,
      callHash: this.callHash.trimmed(),
      callOwner: this.callOwner.trimmed(),
      resultHash: this.resultHash.trimmed(),
      resultOwner: this.resultOwner.trimmed(),
      stats: this.stats!,
      firstPrompt: this.firstPrompt,
      loadedDiagnostics,
      diagnostics,
      tree,
    };
  }

  /**
   * The index grown by a tail read (tail.ts's rules): the tree extended in place, diagnostics of
   * the re-read open end replaced. Null when the tail needs a full index (an entry without an id,
   * or a tree change an append cannot make: a duplicate id, a late parent, a forward link).
   */
  finishTail(ix: LazyIndexData, stat: FileStamp, tail: JsonlParseResult, plan: { at: ReadFrom; dropFrom: number }, identity: FileIdentity): LazyIndexData | null {
    this.flushBatch();
    const from = ix.n;
    const n = this.starts.length;
    const kinds = this.kinds.trimmed();
    const tree = ix.tree;
    const parentIds = this.parentIds;
    this.facts = { originalVersion: ix.originalVersion, readOnlyReason: ix.readOnlyReason, reshape: ix.reshape };
    const lines = this.lines;
    const tailLines: number[] = [];
    for (let i = from; i < n; i++) tailLines[i] = lines.get(i - from);
    tree.idAt = (i) => this.ids.at(i) ?? undefined;
    tree.parentIdAt = (i) => parentIds.at(i - from);
    tree.lines = tailLines;
    if (!appendTreeNodes(tree, n, kinds)) return null;
    const diags = [...tail.diagnostics, ...this.loaderDiags].sort((a, b) => a.line - b.line);
    const loaded = ix.loadedDiagnostics.slice();
    if (plan.dropFrom > 0) {
      let keep = loaded.length;
      while (keep > 0 && loaded[keep - 1]!.line >= plan.dropFrom) keep--;
      loaded.length = keep;
    }
    for (const d of diags) loaded.push(d);
    const readAny = tail.lines > plan.at.startLine;
    const grown = {
      bytes: Math.max(ix.bytes, tail.bytes),
      lines: readAny ? tail.lines : ix.lines,
      resume: tail.resume,
      endsWithNewline: readAny ? tail.endsWithNewline : plan.at.from > ix.bytes ? true : ix.endsWithNewline,
    };
    return this.#data(ix.path, stat, grown, identity, tree, kinds, loaded);
  }
}

/**
 * Brings an index up to date with its grown file by reading only the tail, as tail.ts does for
 * the eager document: 'unchanged', the grown index, or 'full' when the file must be indexed again
 * (replaced, rewritten, shrunk, or a tail an append cannot take).
 */
export async function appendLazyIndex(ix: LazyIndexData, opts: IndexOptions = {}): Promise<{ kind: 'unchanged' } | { kind: 'appended'; index: LazyIndexData; added: number } | { kind: 'full'; reason: string }> {
  let st;
  try {
    st = await fsStat(ix.path);
  } catch {
    return { kind: 'full', reason: 'the file is gone' };
  }
  // planTail reads these of a LoadedSession (a v3, writable, file-backed one).
  const asLoaded = {
    path: ix.path,
    stat: { size: ix.stat.size, mtimeMs: ix.stat.mtimeMs },
    identity: ix.identity ?? undefined,
    lines: ix.lines,
    resume: ix.resume,
    header: ix.header,
    readOnlyReason: ix.readOnlyReason,
    originalVersion: ix.originalVersion,
    bytes: ix.bytes,
    entryLines: ix.lastEntryLine > 0 ? [ix.lastEntryLine] : [],
    headerLine: ix.headerLine,
    endsWithNewline: ix.endsWithNewline,
    diagnostics: ix.loadedDiagnostics,
  } as unknown as LoadedSession;
  if (st.ino !== ix.stat.ino || st.dev !== ix.stat.dev) return { kind: 'full', reason: 'the file was replaced' };
  const plan = await planTail(asLoaded, st);
  // A loaded file's made ids and links depend on every entry (tail.ts reads such a file whole too).
  if (plan.kind === 'tail' && ix.reshape !== null) return { kind: 'full', reason: 'ids made for entries without one depend on the whole file' };
  if (plan.kind === 'unchanged') return { kind: 'unchanged' };
  if (plan.kind === 'full') return plan;
  const b = IndexBuilder.continuing(ix);
  let tail: JsonlParseResult;
  try {
    tail = await readJsonlFile(ix.path, plan.at, {
      onRecord: (v, line, start, end) => b.record(v, line, start, end),
      onChunk: () => b.flushBatch(),
      ...(opts.signal ? { signal: opts.signal, abortError: () => new CancelledError() } : {}),
    });
  } catch (e) {
    if (e instanceof NotStreamable) return { kind: 'full', reason: e.message };
    throw e;
  }
  const identity = await readFileIdentity(ix.path, tail.bytes, st).catch(() => null);
  if (!identity) return { kind: 'full', reason: 'the file changed while its tail was read' };
  const stamp = { size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino };
  const grown = b.finishTail(ix, stamp, tail, plan, identity);
  return grown === null ? { kind: 'full', reason: 'the tail changes the tree already indexed' } : { kind: 'appended', index: grown, added: grown.n - ix.n };
}
