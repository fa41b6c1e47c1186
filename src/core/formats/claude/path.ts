// The conversation at a leaf (claude-code-format.md A.11 "conversation", B.2, B.4 step 1): the
// walk from the leaf up `parentUuid` as Claude Code 2.1.112 does it, with its repairs —
// - a parent missing from the file (or closing a cycle): continue with the latest record of the
//   same `isSidechain` value at most 5 s older;
// - parallel tool-result recovery: lines of an on-path `message.id` and the tool results hanging
//   off them that are off the path are inserted after its last on-path line (block lines first,
//   then results, each by timestamp); the older CLI (2.1.39) and the Agent SDK lose them;
// - the preserved segment of a partial compaction (re-parenting, older records dropped);
// then the cut at the last `compact_boundary`: what is after it is what the model sees; what is
// before it — through `logicalParentUuid`, which the CLI never follows — is the cut band.
import { isBoundary, isSidechain, type ClaudeRecord } from './records';
import { MISSING_PARENT, NO_PARENT, type ClaudeTree } from './tree';

/** How far back (records, file order) the missing-parent fallback looks. */
const FALLBACK_SCAN = 10_000;
/** Records the fallbacks of one walk may look at in all: a hostile file of orphans costs this, not n². */
const FALLBACK_BUDGET = 200_000;
const FALLBACK_MS = 5_000;

export interface LeafPath {
  leaf: number;
  /** What the model sees, oldest first: the walked records after the last compact boundary, recovered ones inserted. */
  visible: number[];
  /** The last compact_boundary on the walk (-1: none): the cut. */
  boundary: number;
  /** The records before it on the logical path (through logicalParentUuid), oldest first: the cut band. */
  cut: number[];
  /** Records the parallel-results rule put on the path (visible part), in path order. */
  recoveredVisible: number[];
  recoveredCut: number[];
  /** Missing parents bridged by the 5-second rule: the record, and the one the walk continued with. */
  fallbacks: { pos: number; to: number }[];
  /** Where the walk ended: a root, a parent missing from the file (no fallback found), a cycle. */
  stop: 'root' | 'missing-parent' | 'cycle';
  /** The record whose parent could not be found (stop = missing-parent), else -1. */
  orphan: number;
  /** The preserved run of a partial compaction on this path (B.2), or null. */
  preserved: { head: number; tail: number; anchor: number; run: ReadonlySet<number> } | null;
}

const olderFirst = (recs: readonly ClaudeRecord[]) => (a: number, b: number): number => {
  const ta = recs[a]!.time;
  const tb = recs[b]!.time;
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a - b;
};

interface Preserved {
  boundary: number;
  head: number;
  tail: number;
  anchor: number;
  run: Set<number>;
  /** walkParent overrides: head → anchor, the anchor's other children → tail. */
  parentOf: Map<number, number>;
}

export class ClaudePaths {
  readonly #preserved: Preserved | null;

  constructor(private readonly tree: ClaudeTree) {
    this.#preserved = this.#findPreserved();
  }

  /**
   * A.11 "preserved segment": only the last compact_boundary of the file counts. Its run is the
   * records from tailUuid up to headUuid; it is re-parented under the anchor, and the anchor's
   * other children continue after the tail.
   */
  #findPreserved(): Preserved | null {
    const { t, walkParent, n } = this.tree;
    let last = -1;
    for (let i = 0; i < n; i++) if (this.tree.isLive(i) && isBoundary(t.records[i]!)) last = i;
    const seg = last >= 0 ? t.records[last]!.compact?.preserved : null;
    if (!seg) return null;
    const head = t.byUuid.get(seg.headUuid);
    const tail = t.byUuid.get(seg.tailUuid);
    const anchor = t.byUuid.get(seg.anchorUuid);
    if (head === undefined || tail === undefined || anchor === undefined) return null;
    const run = new Set<number>();
    for (let k = tail; k >= 0 && !run.has(k); k = walkParent[k]!) {
      run.add(k);
      if (k === head) break;
    }
    if (!run.has(head)) return null;
    const parentOf = new Map<number, number>([[head, anchor]]);
    for (let i = 0; i < n; i++) if (i !== head && !run.has(i) && walkParent[i] === anchor && this.tree.isLive(i)) parentOf.set(i, tail);
    return { boundary: last, head, tail, anchor, run, parentOf };
  }

  /** 2.1.112 drops every record written before the preserving boundary that is not in the run. */
  #dropped(i: number): boolean {
    const p = this.#preserved;
    return p !== null && i < p.boundary && !p.run.has(i);
  }

  /** The 5-second fallback for a missing parent (A.11 "chain repair"); -1 when none qualifies. */
  #fallback(i: number, seen: ReadonlySet<number>, budget: { left: number }): number {
    const recs = this.tree.t.records;
    const r = recs[i]!;
    if (Number.isNaN(r.time)) return -1;
    let best = -1;
    const from = Math.max(0, i - FALLBACK_SCAN, i - budget.left);
    budget.left -= i - from;
    for (let k = i - 1; k >= from; k--) {
      const c = recs[k]!;
      if (!this.tree.isLive(k) || seen.has(k) || c.type === 'progress' || isSidechain(c) !== isSidechain(r) || this.#dropped(k)) continue;
      if (Number.isNaN(c.time) || c.time > r.time || r.time - c.time > FALLBACK_MS) continue;
      if (best === -1 || c.time > recs[best]!.time) best = k;
    }
    return best;
  }

  /** The CLI's walk from `leaf` (leaf last). */
  #walk(leaf: number, fallbacks: LeafPath['fallbacks']): { chain: number[]; stop: LeafPath['stop']; orphan: number } {
    const { walkParent } = this.tree;
    const over = this.#preserved?.parentOf;
    const seen = new Set<number>();
    const chain: number[] = [];
    const budget = { left: FALLBACK_BUDGET };
    let i = leaf;
    let stop: LeafPath['stop'] = 'root';
    let orphan = -1;
    while (i >= 0) {
      if (seen.has(i)) {
        stop = 'cycle';
        break;
      }
      seen.add(i);
      chain.push(i);
      let p = over?.get(i) ?? walkParent[i]!;
      if (p === MISSING_PARENT) {
        const f = this.#fallback(i, seen, budget);
        if (f === -1) {
          stop = 'missing-parent';
          orphan = i;
          break;
        }
        fallbacks.push({ pos: i, to: f });
        p = f;
      }
      if (p === NO_PARENT) break;
      if (seen.has(p)) {
        const f = this.#fallback(i, seen, budget);
        if (f === -1) {
          stop = 'cycle';
          break;
        }
        fallbacks.push({ pos: i, to: f });
        p = f;
      }
      i = p;
    }
    return { chain: chain.reverse(), stop, orphan };
  }

  /** Above a compact boundary by `logicalParentUuid` (and above earlier boundaries the same way): the cut band. */
  #logicalAbove(boundary: number, skip: ReadonlySet<number>): number[] {
    const { t, walkParent, rawParent } = this.tree;
    const out: number[] = [];
    const seen = new Set<number>();
    let b = boundary;
    for (;;) {
      const r = t.records[b]!;
      let i = r.logicalParentUuid !== null ? (t.byUuid.get(r.logicalParentUuid) ?? -1) : -1;
      while (i >= 0 && t.records[i]!.type === 'progress') i = rawParent[i]!;
      let top = -1;
      while (i >= 0 && !seen.has(i)) {
        seen.add(i);
        if (!skip.has(i)) out.push(i);
        top = i;
        i = walkParent[i]!;
      }
      if (top >= 0 && isBoundary(t.records[top]!) && t.records[top]!.parentUuid === null) b = top;
      else break;
    }
    return out.reverse();
  }

  /** B.2 parallel tool-result recovery over a chain (oldest first); returns the chain with the recovered records inserted. */
  #recover(chain: readonly number[], exclude: (i: number) => boolean): { chain: number[]; recovered: number[] } {
    const { t, linesOfMessage, resultsByParent } = this.tree;
    const recs = t.records;
    const onPath = new Set(chain);
    const lastAt = new Map<string, number>();
    chain.forEach((i, k) => {
      const id = recs[i]!.type === 'assistant' ? recs[i]!.messageId : null;
      if (id !== null) lastAt.set(id, k);
    });
    const after = new Map<number, number[]>();
    const taken = new Set<number>();
    const order = olderFirst(recs);
    for (const [id, k] of lastAt) {
      const lines = linesOfMessage.get(id) ?? [];
      const blocks = lines.filter((l) => !onPath.has(l) && !exclude(l));
      const results: number[] = [];
      for (const l of lines) for (const r of resultsByParent.get(l) ?? []) if (!onPath.has(r) && !taken.has(r) && !exclude(r)) results.push(r);
      if (blocks.length === 0 && results.length === 0) continue;
      const ins = [...blocks.sort(order), ...results.sort(order)];
      for (const x of ins) taken.add(x);
      after.set(k, ins);
    }
    if (after.size === 0) return { chain: [...chain], recovered: [] };
    const out: number[] = [];
    const recovered: number[] = [];
    chain.forEach((i, k) => {
      out.push(i);
      const ins = after.get(k);
      if (ins) {
        out.push(...ins);
        recovered.push(...ins);
      }
    });
    return { chain: out, recovered };
  }

  /** The conversation at `leaf` (a chain record position). */
  pathTo(leaf: number): LeafPath {
    const recs = this.tree.t.records;
    const fallbacks: LeafPath['fallbacks'] = [];
    const { chain, stop, orphan } = this.#walk(leaf, fallbacks);
    let b = -1;
    for (let k = chain.length - 1; k >= 0; k--) {
      if (isBoundary(recs[chain[k]!]!)) {
        b = k;
        break;
      }
    }
    const boundary = b >= 0 ? chain[b]! : -1;
    const vis = this.#recover(chain.slice(b + 1), (i) => this.#dropped(i));
    const visibleSet = new Set(vis.chain);
    if (boundary >= 0) visibleSet.add(boundary);
    const first = chain[0];
    const above = first !== undefined && isBoundary(recs[first]!) && recs[first]!.parentUuid === null ? this.#logicalAbove(first, visibleSet) : [];
    const cutChain = [...above, ...(b > 0 ? chain.slice(0, b) : [])];
    const cut = this.#recover(cutChain, (i) => visibleSet.has(i));
    const p = this.#preserved;
    const preserved = p && boundary === p.boundary && visibleSet.has(p.head) ? { head: p.head, tail: p.tail, anchor: p.anchor, run: p.run } : null;
    return { leaf, visible: vis.chain, boundary, cut: cut.chain, recoveredVisible: vis.recovered, recoveredCut: cut.recovered, fallbacks, stop, orphan, preserved };
  }

  /** What the walk gives without the 2.1.112 recovery (the older CLI's and the SDK's path after the boundary). */
  visibleWithoutRecovery(leaf: number): number[] {
    const recs = this.tree.t.records;
    const { chain } = this.#walk(leaf, []);
    let b = -1;
    for (let k = chain.length - 1; k >= 0; k--) {
      if (isBoundary(recs[chain[k]!]!)) {
        b = k;
        break;
      }
    }
    return chain.slice(b + 1);
  }
}
