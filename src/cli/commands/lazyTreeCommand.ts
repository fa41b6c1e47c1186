// `tree` (text and --json) over the session engine's index (issues 11, 21, 23): a segment is a
// linear run, branches nest, so nesting grows with branch points only (in the text, with side
// branches only: treeText.ts); rows are written as the walk goes, their bodies (for their
// previews) read a batch at a time, so memory is one batch, not the session. Entry lines come
// from one counting pass (the index keeps none).
import type { Diagnostic } from '../../core/diagnostics';
import { BodyReader } from '../../core/engine/xcsh/lazy/bodyReader';
import { entryLines } from '../../core/engine/xcsh/lazy/bodyScan';
import type { LazyIndexData } from '../../core/engine/xcsh/lazy/lazyIndex';
import { LazyTree } from '../../core/engine/xcsh/lazy/lazyTree';
import { escapeForTerminal, jsonForTerminal } from '../terminalText';
import type { Io } from '../util';
import { entryPreview, type TreeRowJson } from './entryPreview';
import { BRANCH_FIRST, BRANCH_REST, pathMarks, treeRowText, trunkIndex } from './treeText';

/** Rows whose bodies are read together before their text is written. */
const ROW_BATCH = 2048;
/** Characters of output held before they are written. */
const OUT_CHUNK = 1 << 20;

/** Output pieces in order: text as it is, or the row of an entry (written once its body is read). */
type Piece = string | { pos: number; render: (row: TreeRowJson) => string };

class BatchedWriter {
  readonly #pieces: Piece[] = [];
  #rows = 0;
  /** Characters of the text pieces held (the --json --pretty indentation of a deeply branched tree is long). */
  #chars = 0;

  constructor(
    private readonly ix: LazyIndexData,
    private readonly tree: LazyTree,
    private readonly lines: Uint32Array,
    private readonly out: (text: string) => void,
  ) {}

  text(s: string): void {
    this.#pieces.push(s);
    this.#chars += s.length;
  }

  async row(pos: number, render: (row: TreeRowJson) => string): Promise<void> {
    this.#pieces.push({ pos, render });
    if (++this.#rows >= ROW_BATCH || this.#chars > OUT_CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    const positions: number[] = [];
    for (const p of this.#pieces) if (typeof p !== 'string') positions.push(p.pos);
    // A reader per batch: its cache goes with it.
    const bodies = positions.length > 0 ? await new BodyReader(this.ix).read(positions) : [];
    const defaultLeafId = this.tree.defaultLeafId;
    let k = 0;
    let buf = '';
    for (const p of this.#pieces) {
      if (typeof p === 'string') {
        buf += p;
        continue;
      }
      const e = bodies[k++]!;
      const id = this.tree.idAt(p.pos);
      const row: TreeRowJson = { id, type: e.type, line: this.lines[p.pos]!, preview: entryPreview(e) };
      const label = this.ix.labels.get(id);
      if (label !== undefined) row.label = label;
      if (id === defaultLeafId) row.leaf = true;
      buf += p.render(row);
      // Rows of a deeply nested tree can carry long prefixes (--json --pretty indents by branch
      // points): written as the text grows, not per batch.
      if (buf.length > OUT_CHUNK) {
        this.out(buf);
        buf = '';
      }
    }
    this.#pieces.length = 0;
    this.#rows = 0;
    this.#chars = 0;
    this.out(buf);
  }
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

/**
 * As printSegments (treeText.ts): a linear run on one prefix; at a fork, the side branches one
 * level under the fork point (`├─ ` before a branch's first row, `│  ` before the rest), then the
 * trunk on the fork point's own prefix.
 */
async function writeText(tree: LazyTree, w: BatchedWriter): Promise<void> {
  const leafId = tree.defaultLeafId;
  const onPath = pathMarks(tree.n, leafId === null ? -1 : tree.indexOf(leafId), (i) => tree.parentAt(i));
  const stack: { pos: number; first: string; rest: string }[] = [];
  const roots = tree.rootPositions;
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ pos: roots[i]!, first: '', rest: '' });
  while (stack.length > 0) {
    const { pos, first, rest } = stack.pop()!;
    let p = pos;
    for (let i = 0; ; i++) {
      const lead = i === 0 ? first : rest;
      await w.row(p, (r) => treeRowText(lead, r));
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

/** `{defaultLeafId, roots: Segment[]}` as JSON.stringify writes it (indent 2 when pretty), written a piece at a time. */
async function writeJsonTree(tree: LazyTree, w: BatchedWriter, pretty: boolean): Promise<void> {
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

export async function lazyTreeCommand(ix: LazyIndexData, json: boolean, pretty: boolean, io: Io, warn: (diagnostics: readonly Diagnostic[]) => void): Promise<number> {
  const tree = new LazyTree(ix);
  const lines = await entryLines(ix);
  if (json) {
    const w = new BatchedWriter(ix, tree, lines, (t) => io.out(jsonForTerminal(t)));
    await writeJsonTree(tree, w, pretty);
    await w.flush();
  } else {
    warn(ix.diagnostics);
    if (ix.stat.size === 0) io.err(`${escapeForTerminal(ix.path)}: empty file (0 bytes): no session in it yet\n`);
    const w = new BatchedWriter(ix, tree, lines, (t) => io.out(t));
    await writeText(tree, w);
    await w.flush();
  }
  return 0;
}
