// The command-line documents of an xcsh session (documents.ts), answered from the engine's index
// (issues 11 and 23): bodies are read back by byte range a window at a time and handed on as they
// are read, so a 2 GB session needs a window's memory, not the file's. test/cli/golden.test.ts
// holds what the CLI prints of them byte for byte.
import { severityOf, type Diagnostic } from '../../../diagnostics';
import { BlobStore, checkBlobRefs, resolveImageData } from '../../../formats/xcsh/blobs';
import { auditSessionBytes } from '../../../formats/xcsh/byteAudit';
import { emptyContext, orderedExtras, type ContextMessage } from '../../../formats/xcsh/context';
import { tempFileDiagnostics } from '../../../store/tempFiles';
import { TargetError, type DoctorReport, type JsonAnswer, type OptionValues, type SessionDocuments, type TreeLine, type TreeTextAnswer } from '../../documents';
import { entryPreview, type TreeRowJson } from '../entryPreview';
import { BodyReader } from './bodyReader';
import { entryLines, scanBodyWindows } from './bodyScan';
import { LazyContexts } from './lazyContext';
import type { LazyIndexData } from './lazyIndex';
import { LazyTree } from './lazyTree';
import { rawContextHead, streamRawMessages } from './rawContext';

/**
 * The store named by `--blobs <dir>`. Naming a store asks for its blobs to be checked, so each one
 * is read and hashed: a corrupted blob is reported with its line, like a missing one.
 */
export function checkedBlobStore(dir: string | boolean | undefined): BlobStore | undefined {
  return typeof dir === 'string' && dir.length > 0 ? new BlobStore(dir, { verifyOnCheck: true }) : undefined;
}

const byLine = (a: Diagnostic, b: Diagnostic): number => a.line - b.line;

/**
 * The session's diagnostics as the whole-file load gives them with `--blobs`: the blob references
 * checked over every body (a scan in windows), merged as load.ts then document.ts merge them —
 * reader and loader notes first on a line, then the blob ones, then the tree's.
 */
async function indexDiagnostics(ix: LazyIndexData, store: BlobStore | undefined): Promise<Diagnostic[]> {
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
 * be used keeps its reference; the diagnostics already report it (the checked store reads content).
 */
export async function resolveImages(messages: readonly ContextMessage[], store: BlobStore): Promise<ContextMessage[]> {
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

/** What doctor reports of an xcsh file, from its index (or, in the tests' reference, its whole-file load). */
export interface XcshDoctorFacts {
  /** The file was there to read (a missing one reads as empty, with nothing to audit). */
  onDisk: boolean;
  empty: boolean;
  readOnlyReason: string | null;
  /** The header's version (the loader's, before any migration); null without a header. */
  version: number | null;
  entries: number;
  diagnostics: Diagnostic[];
}

/** Doctor's report of an xcsh file's facts, with the byte audit and the writers' temp files beside them. */
export async function xcshDoctorReport(file: string, facts: XcshDoctorFacts): Promise<DoctorReport> {
  // invalid UTF-8 and unsafe integers: what a JSON reader cannot give back (a byte scan, doctor only)
  const all = facts.onDisk ? [...facts.diagnostics, ...(await auditSessionBytes(file))].sort(byLine) : facts.diagnostics;
  const diagnostics = [...all, ...(await tempFileDiagnostics(file))].map((d) => ({ ...d, severity: severityOf(d.kind) }));
  // info-level notes (a BOM, the oh-my-pi title line, blank lines) are reported, not findings
  const findings = diagnostics.filter((d) => d.severity !== 'info').length;
  // Without a header there is no version to report: the loader's 1 ("absent = 1") is what it
  // migrates from, not something the file says (issue 14 §7).
  const header = facts.version !== null ? 'present' : 'missing';
  const found = `${findings} finding${findings === 1 ? '' : 's'}`;
  let verdict: string;
  if (facts.empty) verdict = `empty file (0 bytes): no session in it yet${findings === 0 ? '' : `; ${found}`}`;
  else if (header === 'missing') verdict = `no header (damaged, read-only; ${facts.entries} entries); ${found}`;
  else verdict = findings === 0 ? `clean (${facts.entries} entries)` : found;
  return {
    json: { file, readOnlyReason: facts.readOnlyReason, header, version: facts.version, entries: facts.entries, findings, diagnostics },
    diagnostics,
    verdict,
    exitCode: findings === 0 ? 0 : 1,
  };
}

/** Rows whose bodies are read together before they are handed on. */
const ROW_BATCH = 2048;
/** Characters of JSON text held before they are written. */
const OUT_CHUNK = 1 << 20;

/** Output pieces in order: T as it is, or the row of an entry (made once its body is read). */
type Piece<T> = T | { pos: number; render: (row: TreeRowJson) => T };

/** Tree rows made a batch of bodies at a time: memory is one batch, not the session. */
class RowBatcher<T> {
  readonly #pieces: Piece<T>[] = [];
  #rows = 0;
  /** Characters of the text pieces held (the --json --pretty indentation of a deeply branched tree is long). */
  #chars = 0;

  constructor(
    private readonly ix: LazyIndexData,
    private readonly tree: LazyTree,
    private readonly lines: Uint32Array,
    private readonly out: (items: T[]) => void,
  ) {}

  text(t: T & string): void {
    this.#pieces.push(t);
    this.#chars += t.length;
  }

  async row(pos: number, render: (row: TreeRowJson) => T): Promise<void> {
    this.#pieces.push({ pos, render });
    if (++this.#rows >= ROW_BATCH || this.#chars > OUT_CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    const isRow = (p: Piece<T>): p is { pos: number; render: (row: TreeRowJson) => T } => typeof p === 'object' && p !== null && 'render' in p;
    const positions: number[] = [];
    for (const p of this.#pieces) if (isRow(p)) positions.push(p.pos);
    // A reader per batch: its cache goes with it.
    const bodies = positions.length > 0 ? await new BodyReader(this.ix).read(positions) : [];
    const defaultLeafId = this.tree.defaultLeafId;
    let k = 0;
    let items: T[] = [];
    let chars = 0;
    for (const p of this.#pieces) {
      if (!isRow(p)) {
        items.push(p);
        continue;
      }
      const e = bodies[k++]!;
      const id = this.tree.idAt(p.pos);
      const row: TreeRowJson = { id, type: e.type, line: this.lines[p.pos]!, preview: entryPreview(e) };
      const label = this.ix.labels.get(id);
      if (label !== undefined) row.label = label;
      if (id === defaultLeafId) row.leaf = true;
      const item = p.render(row);
      items.push(item);
      // Rows of a deeply nested tree can carry long prefixes (--json --pretty indents by branch
      // points): handed on as the text grows, not per batch.
      if (typeof item === 'string' && (chars += item.length) > OUT_CHUNK) {
        this.out(items);
        items = [];
        chars = 0;
      }
    }
    this.#pieces.length = 0;
    this.#rows = 0;
    this.#chars = 0;
    this.out(items);
  }
}

/** Before a side branch's first row, and before the rest of its rows (added to the fork point's prefix). */
export const BRANCH_FIRST = '├─ ';
export const BRANCH_REST = '│  ';

/** onPath[i] = 1 for the positions on the path from a root to `leafPos` (none for -1). */
export function pathMarks(n: number, leafPos: number, parentAt: (i: number) => number): Uint8Array {
  const onPath = new Uint8Array(n);
  // Bounded by n: the index has cut cycles, but a bound costs nothing.
  for (let i = leafPos, k = 0; i >= 0 && i < n && k < n; i = parentAt(i), k++) onPath[i] = 1;
  return onPath;
}

/** Which of a fork's children (in file order, by position) is the trunk: the one on the leaf's path, else the last. */
export function trunkIndex(kids: readonly number[], onPath: Uint8Array): number {
  for (let k = 0; k < kids.length; k++) if (onPath[kids[k]!] === 1) return k;
  return kids.length - 1;
}

/** The only child of position p, or -1 (none, or a branch point). */
function onlyChild(tree: LazyTree, p: number): number {
  const c = tree.firstChildAt(p);
  return c !== -1 && tree.nextSiblingAt(c) === -1 ? c : -1;
}

function childrenOf(tree: LazyTree, p: number): number[] {
  const out: number[] = [];
  for (let c = tree.firstChildAt(p); c !== -1; c = tree.nextSiblingAt(c)) out.push(c);
  return out;
}

const lineOf = (lead: string, r: TreeRowJson): TreeLine => ({ lead, id: r.id, preview: r.preview, ...(r.label !== undefined ? { label: r.label } : {}), ...(r.leaf ? { leaf: true as const } : {}) });

/**
 * The text tree, as the agents' own `/tree`: a linear run on one prefix; at a fork, the side
 * branches one level under the fork point (`├─ ` before a branch's first row, `│  ` before the
 * rest), then the trunk — the child on the path to the default leaf, else the last in file order —
 * on the fork point's own prefix. Nesting grows with side branches only, never with the forks
 * along the main line.
 */
async function writeTextRows(tree: LazyTree, w: RowBatcher<TreeLine>): Promise<void> {
  const leafId = tree.defaultLeafId;
  const onPath = pathMarks(tree.n, leafId === null ? -1 : tree.indexOf(leafId), (i) => tree.parentAt(i));
  const stack: { pos: number; first: string; rest: string }[] = [];
  const roots = tree.rootPositions;
  const firstRoot = roots[0];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ pos: roots[i]!, first: '', rest: '' });
  while (stack.length > 0) {
    const { pos, first, rest } = stack.pop()!;
    let p = pos;
    // A root after the first is a tree of its own, not the next row of the one before.
    const newTree = tree.parentAt(pos) === -1 && pos !== firstRoot;
    for (let i = 0; ; i++) {
      const lead = i === 0 ? first : rest;
      const starts = newTree && i === 0;
      await w.row(p, (r) => (starts ? { ...lineOf(lead, r), newTree: true as const } : lineOf(lead, r)));
      const next = onlyChild(tree, p);
      if (next === -1) break;
      p = next;
    }
    const kids = childrenOf(tree, p);
    if (kids.length === 0) continue;
    const trunk = trunkIndex(kids, onPath);
    // Popped in file order: the side branches, then the trunk.
    stack.push({ pos: kids[trunk]!, first: rest, rest });
    for (let i = kids.length - 1; i >= 0; i--) if (i !== trunk) stack.push({ pos: kids[i]!, first: rest + BRANCH_FIRST, rest: rest + BRANCH_REST });
  }
}

/**
 * `{defaultLeafId, roots: Segment[]}` as JSON.stringify writes it (indent 2 when pretty), a piece
 * at a time. A segment is a linear run, branches nest: nesting grows with branch points only, so a
 * 1M-entry chain is one segment.
 */
async function writeJsonTree(tree: LazyTree, w: RowBatcher<string>, pretty: boolean): Promise<void> {
  const nl = (depth: number): string => (pretty ? '\n' + '  '.repeat(depth) : '');
  const key = (k: string): string => (pretty ? `"${k}": ` : `"${k}":`);
  const rowJson = (depth: number) => (r: TreeRowJson): string => (pretty ? JSON.stringify(r, null, 2).replaceAll('\n', nl(depth)) : JSON.stringify(r));
  type Item = { seg: number; depth: number; first: boolean } | { close: string };
  const stack: Item[] = [];
  const roots = tree.rootPositions;
  w.text(`{${nl(1)}${key('defaultLeafId')}${JSON.stringify(tree.defaultLeafId)},${nl(1)}${key('roots')}[`);
  if (roots.length === 0) w.text(']');
  else stack.push({ close: `${nl(1)}]` });
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ seg: roots[i]!, depth: 2, first: i === 0 });
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('close' in item) {
      w.text(item.close);
      continue;
    }
    const d = item.depth;
    w.text(`${item.first ? '' : ','}${nl(d)}{${nl(d + 1)}${key('entries')}[`);
    let p = item.seg;
    for (let i = 0; ; i++) {
      w.text(`${i === 0 ? '' : ','}${nl(d + 2)}`);
      await w.row(p, rowJson(d + 2));
      const next = onlyChild(tree, p);
      if (next === -1) break;
      p = next;
    }
    w.text(`${nl(d + 1)}],${nl(d + 1)}${key('children')}[`);
    const kids = childrenOf(tree, p);
    if (kids.length === 0) {
      w.text(`]${nl(d)}}`);
      continue;
    }
    stack.push({ close: `${nl(d + 1)}]${nl(d)}}` });
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ seg: kids[i]!, depth: d + 2, first: i === 0 });
  }
  w.text(`${nl(0)}}\n`);
}

/** The documents of an xcsh session, from its index. Options: `--leaf <id>|null`, `--blobs <dir>`. */
export class XcshDocuments implements SessionDocuments {
  constructor(
    /** The file as the caller named it (the report names it so). */
    private readonly path: string,
    private readonly ix: LazyIndexData,
  ) {}

  /** An unknown `--leaf` fails before any diagnostic is reported; the messages come a window at a time. */
  async context(options: OptionValues): Promise<JsonAnswer> {
    const ix = this.ix;
    const store = checkedBlobStore(options.blobs);
    const leafOpt = typeof options.leaf === 'string' ? options.leaf : undefined;
    const tree = new LazyTree(ix);
    if (leafOpt !== undefined && leafOpt !== 'null' && !tree.has(leafOpt)) throw new TargetError(`no entry with id "${leafOpt}" (use --leaf null for the empty context)`);
    const warnings = await indexDiagnostics(ix, store);
    if (leafOpt === 'null') return { warnings, members: Object.entries(emptyContext()) };
    const plan = await new LazyContexts(ix, tree, new BodyReader(ix), 1).plan(leafOpt ?? null);
    const head = rawContextHead(ix, tree, plan);
    const messages = { stream: (emit: (items: readonly unknown[]) => void | Promise<void>) => streamRawMessages(ix, plan, async (window) => emit(store ? await resolveImages(window, store) : window)) };
    // SessionContext's key order; Part B §22 state only when the path has it.
    const extras = Object.entries(orderedExtras(head));
    return {
      warnings,
      members: [
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
    };
  }

  /** The header, every entry as the session shows it (migrated, ids made), in file order, read in windows. */
  async records(options: OptionValues): Promise<JsonAnswer> {
    const ix = this.ix;
    const entries = { stream: (emit: (items: readonly unknown[]) => Promise<void> | void) => scanBodyWindows(ix, (w) => emit(w.entries)) };
    // (--blobs adds the blob references' diagnostics; the entries are shown as stored.)
    return {
      warnings: [],
      members: [
        ['header', ix.header],
        ['entries', entries],
        ['diagnostics', await indexDiagnostics(ix, checkedBlobStore(options.blobs))],
        ['leafId', new LazyTree(ix).defaultLeafId],
      ],
    };
  }

  async treeJson(pretty: boolean, write: (json: string) => void): Promise<void> {
    const tree = new LazyTree(this.ix);
    const w = new RowBatcher<string>(this.ix, tree, await entryLines(this.ix), (items) => write(items.join('')));
    await writeJsonTree(tree, w, pretty);
    await w.flush();
  }

  async treeText(): Promise<TreeTextAnswer> {
    const ix = this.ix;
    const lines = await entryLines(ix);
    return {
      warnings: ix.diagnostics,
      notes: ix.stat.size === 0 ? ['empty file (0 bytes): no session in it yet'] : [],
      lines: async (emit) => {
        const tree = new LazyTree(ix);
        const w = new RowBatcher<TreeLine>(ix, tree, lines, (items) => emit(items));
        await writeTextRows(tree, w);
        await w.flush();
      },
    };
  }

  async doctor(options: OptionValues): Promise<DoctorReport> {
    const ix = this.ix;
    return xcshDoctorReport(this.path, {
      onDisk: true,
      empty: ix.stat.size === 0,
      readOnlyReason: ix.readOnlyReason,
      version: ix.header ? ix.originalVersion : null,
      entries: ix.n,
      diagnostics: await indexDiagnostics(ix, checkedBlobStore(options.blobs)),
    });
  }
}
