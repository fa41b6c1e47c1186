// The walk that lays out the branch tree's rows (issue 23; the rows and what they answer are
// treeRows.ts): one depth-first pass over the tree's typed arrays per filter and search, or over
// just the entries a live append added.
//
// An entry the filter hides passes its place to its children, which hang below its nearest shown
// ancestor (pi's recalculateVisualStructure). Of a shown entry's shown children, the first the walk
// meets continues its line at the same depth and is laid out only once the others — each one a
// side branch, one level deeper, laid out whole — are done. So the walk needs no per-entry child
// lists: a frame per shown entry whose children are being laid out holds back its first shown
// child until the frame ends.

/** The tree by position, as the index keeps it (TreeState's arrays; positions from `n` on mean nothing). */
export interface TreeLinks {
  readonly n: number;
  readonly rootPositions: readonly number[];
  readonly parent: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
}

/**
 * Positions marked by bits: `bits[p - base]` is 1 for a marked position p (from `base` on; an
 * append's walk is given bits for the new positions only). What the filter and search show, and
 * the entries on the default leaf's line.
 */
export interface ShownBits {
  bits: Uint8Array;
  base: number;
}

/**
 * Where the walk writes its rows. (A class's methods, not closures made per layout: the walk's
 * optimised code would depend on those closures and be thrown away once a layout is collected.)
 */
export interface RowSink {
  /** Lays out the entry at `x` as the next row and returns the row; `fork` 1: it starts a side branch off the row `forkRow`. */
  emit(x: number, depth: number, fork: 0 | 1, forkRow: number): number;
  /** The side branch that starts at row `head` (at `depth`) ends with the rows laid out so far. */
  closeSide(depth: number, head: number): void;
}

/** Where the walk starts: below a shown entry (its position, row and depth), or the top (pos -1, row -1, depth 0). */
export interface WalkAnchor {
  pos: number;
  row: number;
  depth: number;
}

const grown = (a: Int32Array): Int32Array<ArrayBuffer> => {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
};

/** The walk's frames, a stack of parallel arrays. */
class Frames {
  /** The shown entry whose children are laid out, and its row and depth (its line's entries follow in the same frame). */
  pos = new Int32Array(64);
  row = new Int32Array(64);
  depth = new Int32Array(64);
  /** Its first shown child, held back until the frame ends (-1: none met yet). */
  main = new Int32Array(64);
  /** The row of the side branch the frame lays out (-1: the walk's first frame). */
  head = new Int32Array(64);
  #top = 0;
  open(x: number, row: number, depth: number, head: number): number {
    if (this.#top === this.pos.length) {
      this.pos = grown(this.pos);
      this.row = grown(this.row);
      this.depth = grown(this.depth);
      this.main = grown(this.main);
      this.head = grown(this.head);
    }
    const f = this.#top++;
    this.pos[f] = x;
    this.row[f] = row;
    this.depth[f] = depth;
    this.main[f] = -1;
    this.head[f] = head;
    return f;
  }
  close(): void {
    this.#top--;
  }
}

/**
 * Lays out the entries below `anchor` reached from `starts` (siblings, file order): depth-first,
 * the default leaf's line (`onPath`) first at each fork and file order after it. `rowOf` gets
 * every hidden entry's nearest shown ancestor, as -2 - its position (-1: none). Returns how many
 * entries the walk hid.
 */
export function walkRows(t: TreeLinks, shown: ShownBits, onPath: ShownBits, starts: readonly number[], anchor: WalkAnchor, rowOf: Int32Array, sink: RowSink): number {
  return new RowWalk(t, shown, onPath, rowOf, sink).run(starts, anchor);
}

/**
 * One walk's state, in fields rather than in closures over locals: optimised code that runs one
 * long loop would otherwise hold on to the closures' context of that one call, and be thrown away
 * (and the next layout run slow) once the call's context is collected.
 */
class RowWalk {
  readonly #frames = new Frames();
  /** The walk's stack: a position and its frame; position -1 ends the frame. */
  #node = new Int32Array(256);
  #frame = new Int32Array(256);
  #sp = 0;
  /** Where the siblings being pushed begin, and the one of them on the default leaf's line. */
  #from = 0;
  #main = -1;

  constructor(
    private readonly t: TreeLinks,
    private readonly shown: ShownBits,
    private readonly onPath: ShownBits,
    private readonly rowOf: Int32Array,
    private readonly sink: RowSink,
  ) {}

  #push(x: number, f: number): void {
    if (this.#sp === this.#node.length) {
      this.#node = grown(this.#node);
      this.#frame = grown(this.#frame);
    }
    this.#node[this.#sp] = x;
    this.#frame[this.#sp++] = f;
  }

  #newFrame(x: number, row: number, depth: number, head: number): number {
    const f = this.#frames.open(x, row, depth, head);
    this.#push(-1, f);
    return f;
  }

  // Siblings are pushed so that the one on the default leaf's line pops first, then the rest in
  // file order: pushed as they come, the ones after `#from` reversed, the main one last.
  #begin(): void {
    this.#from = this.#sp;
    this.#main = -1;
  }

  #add(c: number, f: number): void {
    const { bits, base } = this.onPath;
    if (this.#main === -1 && c >= base && bits[c - base] === 1) this.#main = c;
    else this.#push(c, f);
  }

  #end(f: number): void {
    const node = this.#node;
    for (let a = this.#from, b = this.#sp - 1; a < b; a++, b--) {
      const x = node[a]!;
      node[a] = node[b]!;
      node[b] = x;
    }
    if (this.#main !== -1) this.#push(this.#main, f);
  }

  #pushChildren(first: number, f: number): void {
    const next = this.t.nextSibling;
    this.#begin();
    for (let c = first; c !== -1; c = next[c]!) this.#add(c, f);
    this.#end(f);
  }

  run(starts: readonly number[], anchor: WalkAnchor): number {
    const { firstChild, nextSibling } = this.t;
    const { bits, base } = this.shown;
    const { rowOf, sink } = this;
    const frames = this.#frames;
    this.#newFrame(anchor.pos, anchor.row, anchor.depth, -1);
    this.#begin();
    for (const c of starts) this.#add(c, 0);
    this.#end(0);
    let hidden = 0;
    while (this.#sp > 0) {
      const sp = --this.#sp;
      let x = this.#node[sp]!;
      let f = this.#frame[sp]!;
      if (x === -1) {
        // The frame's entry is done but for its line: it goes on with the held-back child, at the
        // same depth, in the same frame.
        x = frames.main[f]!;
        if (x === -1) {
          if (frames.head[f] !== -1) sink.closeSide(frames.depth[f]!, frames.head[f]!);
          frames.close();
          continue;
        }
        frames.main[f] = -1;
        frames.pos[f] = x;
        frames.row[f] = sink.emit(x, frames.depth[f]!, 0, -1);
        this.#push(-1, f);
        x = firstChild[x]!;
        if (x === -1) continue;
        if (nextSibling[x] !== -1) {
          this.#pushChildren(x, f);
          continue;
        }
      }
      // Down a chain of only children without the stack (a linear session is one such chain).
      for (;;) {
        if (bits[x - base] === 1) {
          if (frames.main[f] !== -1) {
            const depth = frames.depth[f]! + 1;
            const row = sink.emit(x, depth, 1, frames.row[f]!);
            f = this.#newFrame(x, row, depth, row);
          } else if (this.#sp > 0 && this.#node[this.#sp - 1] === -1) {
            // Nothing else is left to lay out below the frame's entry (the stack's top is then the
            // end of this very frame: a frame opened later has ended before its parent's entries
            // are visited again), so its line goes on at once — what the end of the frame would
            // do, without the round trip through the stack.
            frames.pos[f] = x;
            frames.row[f] = sink.emit(x, frames.depth[f]!, 0, -1);
          } else {
            frames.main[f] = x;
            break;
          }
        } else {
          hidden++;
          const a = frames.pos[f]!;
          rowOf[x] = a === -1 ? -1 : -2 - a;
        }
        const c = firstChild[x]!;
        if (c === -1) break;
        if (nextSibling[c] !== -1) {
          this.#pushChildren(c, f);
          break;
        }
        x = c;
      }
    }
    return hidden;
  }
}
