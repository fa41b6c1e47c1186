// The rows below a session row: the branch tree (linear runs collapsed, forks as children), as the
// session's model in the worker answers it (issue 11: segments, pages of runs, reveal paths — the
// extension host holds no entries, and a run of a million entries is one node until it is
// expanded, then pages of RUN_PAGE rows with a "Show N more…" row). Each node is created once per
// id (`<file>#<entryId>`, `<file>#run:<firstId>`…) and reused, so `fire(node)` and `reveal(node)`
// name the object VS Code already knows.
import type { BranchQuery, BranchSegment, RunEntry, SessionModel } from '../../core/engine/model';
import type { TreeFilterMode } from '../../core/tree/treeView';
import type { SessionModels, ViewSession } from './sessionModels';
import { EntryNode, MoreNode, RunNode, type DiagnosticNode, type InfoNode, type LoomNode, type SessionNode } from './nodes';

/** Entries of a run shown per page. */
export const RUN_PAGE = 500;

/** What the branch nodes need from the view. */
export interface BranchHost {
  readonly models: SessionModels;
  filter(): TreeFilterMode;
  /** The search tokens a session's branch tree is narrowed to (none when it is not). */
  branchTokensOf(file: string): readonly string[];
  /** The entries the search index matched in a session (they narrow its tree instead of the tokens). */
  branchIdsOf?(file: string): ReadonlySet<string> | undefined;
}

export class BranchNodes {
  private readonly nodes = new Map<string, LoomNode>();

  constructor(private readonly host: BranchHost) {}

  /** The model's query for a session's tree under the current filter and search. */
  query(file: string): BranchQuery {
    const ids = this.host.branchIdsOf?.(file);
    // With the index's ids the tokens select nothing, and the lazy model need not scan bodies.
    if (ids) return { filter: this.host.filter(), search: '', ids: idList(ids) };
    return { filter: this.host.filter(), search: this.host.branchTokensOf(file).join(' ') };
  }

  /** The segments under an entry (`null`: the top of the session's tree), as run and entry nodes. */
  async segmentNodes(session: SessionNode, parent: SessionNode | EntryNode, under: string | null, vs?: ViewSession): Promise<(RunNode | EntryNode)[]> {
    const { model } = vs ?? (await this.host.models.get(session.file));
    const segs = (await model.segments?.(this.query(session.file), under)) ?? [];
    return segs.map((seg) => this.segmentNode(session, parent, seg));
  }

  /** A run's entries: the pages shown so far, then "Show N more…" when it holds more. */
  async runChildren(run: RunNode): Promise<LoomNode[]> {
    const file = run.session.file;
    const vs = await this.host.models.get(file);
    const q = this.query(file);
    const key = `${vs.stamp}\n${this.queryKey(file)}`;
    if (run.loadedFor !== key) {
      run.loaded = [];
      run.loadedFor = key;
    }
    run.shown = Math.min(run.facts.count, Math.max(run.shown, RUN_PAGE));
    if (run.loaded.length < run.shown) {
      const page = (await vs.model.runEntries?.(q, run.facts.firstId, run.loaded.length, run.shown - run.loaded.length)) ?? [];
      if (run.loadedFor === key) run.loaded.push(...page);
    }
    // Nodes made afresh from what this query read: an entry's node is shared by every filter's run
    // that shows it, and the last one listed it set its parent, row and branches (a reveal after
    // switching filters back and forth walked up to a run the view did not show, and selected nothing).
    const out: LoomNode[] = run.loaded.slice(0, run.shown).map((e) => this.runEntryNode(run, e));
    const remaining = run.facts.count - out.length;
    if (remaining > 0) {
      const more = this.cachedMore(run);
      more.remaining = remaining;
      out.push(more);
    }
    return out;
  }

  /** "Show N more…": the run shows one more page (the caller redraws it). */
  showMore(run: RunNode): void {
    run.shown = Math.min(run.facts.count, Math.max(run.shown, RUN_PAGE) + RUN_PAGE);
  }

  /** The known node of this id and kind, else this one (remembered). */
  cached<T extends DiagnosticNode | InfoNode>(node: T): T {
    const known = this.nodes.get(node.id);
    if (known && known.kind === node.kind) return known as T;
    this.nodes.set(node.id, node);
    return node;
  }

  /**
   * The node showing an entry (or its nearest ancestor the filter shows), building the chain of
   * run and fork nodes from the session down, so `reveal` can walk it with getParent. `grown`
   * hears of a run that had to show more pages to hold it (VS Code must ask for its rows again).
   */
  async revealNode(session: SessionNode, vs: ViewSession, entryId: string, grown: (run: RunNode) => void): Promise<EntryNode | undefined> {
    const found = await vs.model.revealPath?.(this.query(session.file), entryId);
    if (!found) return undefined;
    let parent: SessionNode | EntryNode = session;
    for (let k = 0; k < found.chain.length; k++) {
      const step = found.chain[k]!;
      // The entry the way goes on from: the next step's fork, or the target itself.
      const through = found.chain[k + 1]?.under ?? found.target;
      const segs = await this.segmentNodes(session, parent, step.under, vs);
      const seg = segs.find((n) => (n.kind === 'entry' ? n.entryId : n.facts.firstId) === step.firstId);
      if (!seg) return undefined;
      if (seg.kind === 'entry') {
        parent = seg;
        continue;
      }
      if (seg.shown < step.at + 1) {
        // A run never listed (shown 0) has no rows in VS Code to ask for again: it lists the pages
        // set here when it is expanded.
        const listed = seg.shown > 0;
        seg.shown = Math.min(seg.facts.count, Math.ceil((step.at + 1) / RUN_PAGE) * RUN_PAGE);
        if (listed) grown(seg);
      }
      const rows = await this.runChildren(seg);
      const entry = rows.find((n): n is EntryNode => n.kind === 'entry' && n.entryId === through);
      if (!entry) return undefined;
      parent = entry;
    }
    return parent.kind === 'entry' ? parent : undefined;
  }

  /** How many entries the session's tree shows under the current query (the search's count). */
  async matches(model: SessionModel, file: string): Promise<number> {
    return (await model.searchHit?.(this.query(file)))?.entryMatches ?? 0;
  }

  private queryKey(file: string): string {
    const ids = this.host.branchIdsOf?.(file);
    return `${this.host.filter()}\n${this.host.branchTokensOf(file).join(' ')}\n${ids ? idSetKey(ids) : ''}`;
  }

  private segmentNode(session: SessionNode, parent: SessionNode | EntryNode, seg: BranchSegment): RunNode | EntryNode {
    if (seg.kind === 'entry') return this.entryNode(session, parent, seg.id, seg.hasBranches, seg);
    const facts = { firstId: seg.firstId, lastId: seg.lastId, count: seg.count, title: seg.title, onActivePath: seg.onActivePath };
    const id = `${session.file}#run:${seg.firstId}`;
    let run = this.nodes.get(id) as RunNode | undefined;
    if (run?.kind === 'run') {
      if (run.facts.lastId !== facts.lastId || run.facts.count !== facts.count) run.loadedFor = '';
      run.facts = facts;
      run.parent = parent;
      run.session = session;
    } else {
      run = new RunNode(session, parent, facts);
      this.nodes.set(id, run);
    }
    return run;
  }

  private runEntryNode(run: RunNode, e: RunEntry): EntryNode {
    return this.entryNode(run.session, run, e.id, e.hasBranches, e);
  }

  private entryNode(session: SessionNode, parent: SessionNode | RunNode | EntryNode, entryId: string, hasBranches: boolean, e: Pick<RunEntry, 'row' | 'branches' | 'callsTools' | 'role'>): EntryNode {
    const id = `${session.file}#${entryId}`;
    const facts = { branches: e.branches, callsTools: e.callsTools, role: e.role };
    let node = this.nodes.get(id) as EntryNode | undefined;
    if (node?.kind === 'entry') {
      node.parent = parent;
      node.hasBranches = hasBranches;
      node.session = session;
      node.row = e.row;
      node.facts = facts;
    } else {
      node = new EntryNode(session, parent, entryId, hasBranches, e.row, facts);
      this.nodes.set(id, node);
    }
    return node;
  }

  private cachedMore(run: RunNode): MoreNode {
    const id = `${run.id}#more`;
    const known = this.nodes.get(id);
    if (known?.kind === 'more') return known;
    const more = new MoreNode(run, 0);
    this.nodes.set(id, more);
    return more;
  }
}

const setKeys = new WeakMap<ReadonlySet<string>, string>();
let nextSetKey = 1;
/** A key per id set object (a new search makes new sets): loaded rows follow the search. */
function idSetKey(ids: ReadonlySet<string>): string {
  let k = setKeys.get(ids);
  if (!k) {
    k = `ids${nextSetKey++}`;
    setKeys.set(ids, k);
  }
  return k;
}

const idLists = new WeakMap<ReadonlySet<string>, string[]>();
/** The ids of a set as the list a query carries (one list per set: a new search makes new sets). */
function idList(ids: ReadonlySet<string>): string[] {
  let list = idLists.get(ids);
  if (!list) {
    list = [...ids];
    idLists.set(ids, list);
  }
  return list;
}
