// The conversation tree of one transcript (claude-code-format.md A.11, B.5, C.3–C.5).
//
// Two sets of parent links, because the file and the CLI read it differently:
// - `walkParent`: what the CLI (2.1.112) follows to rebuild a conversation — `parentUuid`, with
//   `progress` lines transparent (A.8: a record whose parent is a progress line hangs on that
//   line's own parent, repeatedly). The context walk (path.ts) uses it.
// - `displayParent`: what the tree view shows — `parentUuid` as written, except that a
//   `compact_boundary` hangs under its `logicalParentUuid` (the compacted conversation reads on
//   across the boundary), an inline sidechain root (1.0.x) hangs under the Task call that
//   started it, and parallel tool results off the walked line are laid into the line (A.11:
//   "not branches"), in the order the 2.1.112 recovery puts them. A record whose parent is not
//   in the file is a root there, with a diagnostic (C.4); cycles are cut, with a diagnostic.
import type { Diagnostic } from '../../diagnostics';
import type { ClaudeTranscript } from './read';
import { layParallelResultsInLine } from './parallelLine';
import { hasFlag, isBoundary, isMessage, isSidechain, isToolResultUser, RecordFlag, SUBAGENT_TOOLS, type ClaudeRecord } from './records';

/** walkParent / rawParent values besides a position. */
export const NO_PARENT = -1;
export const MISSING_PARENT = -2;

export interface InlineSidechain {
  rootPos: number;
  /** The assistant line holding the Task call, and the call (null when no Task prompt matched). */
  taskPos: number;
  taskCallId: string | null;
  description: string | null;
}

export interface LeafRules {
  /** 2.1.112 (the default, A.11 step 4): the nearest user/assistant ancestor of the last non-sidechain record in file order, newest first. */
  cli2112: number;
  /** 2.1.39 `--resume`: walk up from the newest non-sidechain record by timestamp. */
  cli2139: number;
  /** Agent SDK: the leaf latest in file order that is not sidechain, meta or a teammate's. */
  sdk: number;
}

const byTime = (records: readonly ClaudeRecord[]) => (a: number, b: number): number => {
  const ta = records[a]!.time;
  const tb = records[b]!.time;
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a - b;
};

export class ClaudeTree {
  readonly n: number;
  readonly rawParent: Int32Array;
  readonly walkParent: Int32Array;
  readonly displayParent: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  /** Display roots (chain records), file order. */
  readonly roots: number[] = [];
  /** A.11 steps 2–3: the CLI's leaf set (user/assistant records), file order. */
  readonly cliLeaves: number[] = [];
  /** messageBelow[i] = 1 when a user/assistant record hangs below record i in the tree as shown. */
  messageBelow: Uint8Array = new Uint8Array(0);
  /** Leaves of the tree as shown: non-sidechain user/assistant records with no user/assistant record below them. */
  readonly branchLeaves: number[] = [];
  readonly leafRules: LeafRules;
  readonly defaultLeaf: number;
  readonly inlineSidechains: InlineSidechain[] = [];
  /** Positions laid into the line by the parallel-results rule (display only). */
  readonly linearised = new Set<number>();
  /** How many API responses had such a side branch (each laid into the line once). */
  parallelSideBranches = 0;
  /** message.id → assistant lines with it, file order. */
  readonly linesOfMessage = new Map<string, number[]>();
  /** The tool_use ids some user record of the file answers (B.3 step 3, apiMessages.ts). */
  readonly answered = new Set<string>();
  /** Tool-result user records by walkParent (the recovery looks for results hanging off a message's lines). */
  readonly resultsByParent = new Map<number, number[]>();
  readonly diagnostics: Diagnostic[] = [];
  /** The file holds non-sidechain records (a main transcript; a subagent's file holds sidechain records only). */
  readonly hasMainRecords: boolean;

  constructor(readonly t: ClaudeTranscript) {
    const recs = t.records;
    const n = (this.n = recs.length);
    this.hasMainRecords = recs.some((r) => !isSidechain(r));
    const live = (i: number): boolean => !t.shadowed.has(i);
    const resolve = (uuid: string | null): number => (uuid === null ? NO_PARENT : (t.byUuid.get(uuid) ?? MISSING_PARENT));

    this.rawParent = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      // Most records hang on the record written before them: one string compare, not a lookup.
      const parent = recs[i]!.parentUuid;
      this.rawParent[i] = i > 0 && parent !== null && parent === recs[i - 1]!.uuid && live(i - 1) ? i - 1 : resolve(parent);
    }
    // through[p]: the first ancestor of progress line p (itself excluded) that is no progress line,
    // filled once per chain of progress lines (a long hook chain costs its length, not its square)
    const UNKNOWN = -3;
    const through = new Int32Array(n).fill(UNKNOWN);
    const chain: number[] = [];
    this.walkParent = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let p = this.rawParent[i]!;
      chain.length = 0;
      while (p >= 0 && recs[p]!.type === 'progress' && through[p] === UNKNOWN && chain.length <= n) {
        through[p] = -4; // on this walk: a cycle of progress lines ends here
        chain.push(p);
        p = this.rawParent[p]!;
      }
      if (p >= 0 && recs[p]!.type === 'progress') p = through[p] === -4 ? NO_PARENT : through[p]!;
      for (const q of chain) through[q] = p;
      this.walkParent[i] = p;
    }
    for (let i = 0; i < n; i++) {
      if (!live(i)) continue;
      const r = recs[i]!;
      if (r.type === 'assistant' && r.messageId !== null) {
        const list = this.linesOfMessage.get(r.messageId);
        if (list) list.push(i);
        else this.linesOfMessage.set(r.messageId, [i]);
      }
      if (isToolResultUser(r)) for (const tr of r.toolResults!) this.answered.add(tr.id);
      if (isToolResultUser(r) && this.walkParent[i]! >= 0) {
        const p = this.walkParent[i]!;
        const list = this.resultsByParent.get(p);
        if (list) list.push(i);
        else this.resultsByParent.set(p, [i]);
      }
    }

    // ---- display parents ----
    const dp = (this.displayParent = new Int32Array(n));
    this.firstChild = new Int32Array(n);
    this.nextSibling = new Int32Array(n);
    this.#linkInlineSidechains();
    const sidechainParent = new Map(this.inlineSidechains.filter((s) => s.taskPos >= 0).map((s) => [s.rootPos, s.taskPos]));
    for (let i = 0; i < n; i++) {
      const r = recs[i]!;
      if (!live(i)) {
        dp[i] = MISSING_PARENT;
        continue;
      }
      let p = this.rawParent[i]!;
      if (p === NO_PARENT && isBoundary(r) && r.logicalParentUuid !== null) {
        const lp = resolve(r.logicalParentUuid);
        if (lp >= 0) p = lp;
      }
      if (p === NO_PARENT && sidechainParent.has(i)) p = sidechainParent.get(i)!;
      if (p === MISSING_PARENT) {
        this.diagnostics.push({
          line: r.line,
          kind: 'missing-parent',
          entryId: r.uuid,
          message: `parentUuid ${r.parentUuid} is not in this file: the record starts a new root${r.agentId?.startsWith('acompact-') ? ' (a compaction helper record: its parents are in the main transcript)' : ''}`,
        });
        p = NO_PARENT;
      }
      dp[i] = p;
    }
    this.#cutCycles();
    this.#linkChildren();
    const laid = layParallelResultsInLine({ n, records: recs, roots: this.roots, firstChild: this.firstChild, nextSibling: this.nextSibling, linesOfMessage: this.linesOfMessage, resultsByParent: this.resultsByParent }, this.displayParent);
    for (const p of laid.moved) this.linearised.add(p);
    this.parallelSideBranches = laid.responses;
    this.#linkChildren();

    this.#collectLeaves();
    this.leafRules = this.#leafRules();
    this.defaultLeaf = this.leafRules.cli2112;
  }

  /** A user/assistant record with no user/assistant record below it: the end of a conversation (a branch tip). */
  isBranchTip(i: number): boolean {
    return i >= 0 && i < this.n && this.isLive(i) && isMessage(this.t.records[i]!) && this.messageBelow[i] === 0;
  }

  /** A chain record position is in the tree (not shadowed by a later duplicate of its uuid). */
  isLive(i: number): boolean {
    return !this.t.shadowed.has(i);
  }

  #linkChildren(): void {
    const n = this.n;
    const first = this.firstChild;
    const next = this.nextSibling;
    first.fill(-1);
    next.fill(-1);
    const last = new Int32Array(n).fill(-1);
    this.roots.length = 0;
    for (let i = 0; i < n; i++) {
      if (!this.isLive(i)) continue;
      const p = this.displayParent[i]!;
      if (p < 0) {
        this.roots.push(i);
        continue;
      }
      if (last[p] === -1) first[p] = i;
      else next[last[p]!] = i;
      last[p] = i;
    }
  }

  #cutCycles(): void {
    const n = this.n;
    const state = new Uint8Array(n); // 0 unseen, 1 on the current walk, 2 done
    const stack: number[] = [];
    for (let s = 0; s < n; s++) {
      if (state[s] !== 0 || !this.isLive(s)) continue;
      stack.length = 0;
      let i = s;
      while (i >= 0 && state[i] === 0) {
        state[i] = 1;
        stack.push(i);
        i = this.displayParent[i]!;
      }
      if (i >= 0 && state[i] === 1) {
        const r = this.t.records[i]!;
        this.diagnostics.push({ line: r.line, kind: 'cycle', entryId: r.uuid, message: `the parentUuid links loop back to ${r.uuid}: the loop is cut there and the record shown as a root` });
        this.displayParent[i] = NO_PARENT;
      }
      for (const k of stack) state[k] = 2;
    }
  }

  /**
   * B.5 / A.11 rule 5, 1.0.x layout: a sidechain that starts inline (`isSidechain`, parentUuid
   * null) was started by the Task call whose `input.prompt` is its first prompt. Calls are taken
   * in file order, each once; an earlier call is preferred (the sidechain is written after it).
   */
  #linkInlineSidechains(): void {
    const recs = this.t.records;
    const calls = new Map<string, { pos: number; id: string; description: string | null; used: boolean }[]>();
    for (let i = 0; i < this.n; i++) {
      const r = recs[i]!;
      if (r.type !== 'assistant' || !r.toolUses || !this.isLive(i)) continue;
      for (const u of r.toolUses) {
        if (!SUBAGENT_TOOLS.has(u.name) || !u.promptKey) continue;
        const list = calls.get(u.promptKey) ?? [];
        list.push({ pos: i, id: u.id, description: u.description ?? null, used: false });
        calls.set(u.promptKey, list);
      }
    }
    // A file of sidechain records only is a subagent's own transcript (2.0.x/2.1.x): its root is no inline sidechain.
    if (!this.hasMainRecords) return;
    for (let i = 0; i < this.n; i++) {
      const r = recs[i]!;
      if (!isSidechain(r) || r.parentUuid !== null || r.type !== 'user' || !this.isLive(i)) continue;
      const list = r.promptKey ? (calls.get(r.promptKey) ?? []) : [];
      const call = list.find((c) => !c.used && c.pos < i) ?? list.find((c) => !c.used);
      if (call) call.used = true;
      this.inlineSidechains.push({ rootPos: i, taskPos: call?.pos ?? -1, taskCallId: call?.id ?? null, description: call?.description ?? null });
    }
  }

  #collectLeaves(): void {
    const recs = this.t.records;
    const n = this.n;
    // referenced[i]: a live record's parentUuid is record i's uuid. For a live record that is its
    // rawParent (a uuid resolves to its live record), so no set of uuid strings is needed.
    const referenced = new Uint8Array(n);
    for (let i = 0; i < n; i++) if (this.isLive(i) && this.rawParent[i]! >= 0) referenced[this.rawParent[i]!] = 1;
    const leaves = new Set<number>();
    for (let i = 0; i < n; i++) {
      if (!this.isLive(i) || referenced[i] === 1) continue;
      const ua = this.nearestMessage(i);
      if (ua >= 0) leaves.add(ua);
    }
    this.cliLeaves.push(...[...leaves].sort((a, b) => a - b));

    // Bottom-up over the display tree: which records have a user/assistant record below them.
    const order: number[] = [...this.roots];
    for (let k = 0; k < order.length; k++) for (let c = this.firstChild[order[k]!]!; c !== -1; c = this.nextSibling[c]!) order.push(c);
    const below = (this.messageBelow = new Uint8Array(n));
    for (let k = order.length - 1; k >= 0; k--) {
      const i = order[k]!;
      const p = this.displayParent[i]!;
      if (p >= 0 && (below[i] === 1 || isMessage(recs[i]!))) below[p] = 1;
    }
    const main = this.hasMainRecords;
    for (let i = 0; i < n; i++) if (this.isLive(i) && isMessage(recs[i]!) && (!main || !isSidechain(recs[i]!)) && below[i] === 0) this.branchLeaves.push(i);
  }

  #nearest: Int32Array | undefined;

  /**
   * The nearest user/assistant record at or above `i` by parentUuid as written (A.11 step 3); -1
   * for none. Memoised along each walk: many hook lines below one long chain cost its length once.
   */
  nearestMessage(i: number): number {
    const recs = this.t.records;
    const UNKNOWN = -3;
    const memo = (this.#nearest ??= new Int32Array(this.n).fill(UNKNOWN));
    const chain: number[] = [];
    let k = i;
    let found = -1;
    while (k >= 0) {
      if (memo[k] !== UNKNOWN) {
        found = memo[k]!;
        break;
      }
      if (isMessage(recs[k]!)) {
        found = k;
        break;
      }
      memo[k] = -1; // on this walk: a loop ends here with none found
      chain.push(k);
      k = this.rawParent[k]!;
    }
    for (const c of chain) memo[c] = found;
    if (k >= 0 && isMessage(recs[k]!)) memo[k] = k;
    return found;
  }

  #leafRules(): LeafRules {
    const recs = this.t.records;
    const leaves = this.cliLeaves;
    const newest = (set: readonly number[]): number => (set.length === 0 ? -1 : [...set].sort(byTime(recs))[set.length - 1]!);
    const mainLeaves = leaves.filter((i) => !isSidechain(recs[i]!));
    let lastMain = -1;
    let newestMain = -1;
    for (let i = 0; i < this.n; i++) {
      if (!this.isLive(i) || isSidechain(recs[i]!)) continue;
      lastMain = i;
      if (newestMain === -1 || byTime(recs)(newestMain, i) < 0) newestMain = i;
    }
    // B.5: a file of sidechain records only (a subagent's) — the SDK's rule: the last user/assistant record in file order.
    let lastMessage = -1;
    for (let i = 0; i < this.n; i++) if (this.isLive(i) && isMessage(recs[i]!)) lastMessage = i;
    let cli2112: number;
    if (leaves.length === 1) cli2112 = leaves[0]!;
    else if (lastMain === -1) cli2112 = lastMessage;
    else {
      const reduced = this.nearestMessage(lastMain);
      cli2112 = reduced >= 0 && !isSidechain(recs[reduced]!) ? reduced : newest(mainLeaves);
    }
    const cli2139 = lastMain === -1 ? lastMessage : this.nearestMessage(newestMain);
    const sdkLeaves = mainLeaves.filter((i) => !hasFlag(recs[i]!, RecordFlag.Meta) && !hasFlag(recs[i]!, RecordFlag.Team));
    const sdk = sdkLeaves.length > 0 ? sdkLeaves[sdkLeaves.length - 1]! : lastMessage;
    return { cli2112, cli2139, sdk };
  }
}
