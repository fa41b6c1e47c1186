// The rows below a session row: the branch tree (linear runs collapsed, forks as children) plus
// the session's diagnostic and info rows. Each node is created once per id (`<file>#<entryId>`,
// `<file>#run:<firstId>`…) and reused, so `fire(node)` and `reveal(node)` name the object VS Code
// already knows; and each session's visible tree is memoised per document stamp, filter and search.
import { computeVisibleTree, segmentsUnder, type BranchNode, type TreeFilterMode, type VisibleTree } from '../../core/tree/treeView';
import type { SessionDoc, SessionDocuments } from './documents';
import { EntryNode, RunNode, type DiagnosticNode, type InfoNode, type LoomNode, type SessionNode } from './nodes';

/** What the branch nodes need from the view. */
export interface BranchHost {
  readonly docs: SessionDocuments;
  filter(): TreeFilterMode;
  /** The search tokens a session's branch tree is narrowed to (none when it is not). */
  branchTokensOf(file: string): readonly string[];
  /** The entries the search index matched in a session (they narrow its tree instead of the tokens). */
  branchIdsOf?(file: string): ReadonlySet<string> | undefined;
}

export class BranchNodes {
  private readonly nodes = new Map<string, LoomNode>();
  private readonly visible = new Map<string, { stamp: string; key: string; tree: VisibleTree }>();

  constructor(private readonly host: BranchHost) {}

  /** The visible tree of a loaded session under the current filter and search (memoised). */
  visibleTree(file: string, loaded?: SessionDoc): VisibleTree | undefined {
    const doc = loaded ?? this.host.docs.peek(file);
    if (!doc) return undefined;
    const tokens = this.host.branchTokensOf(file);
    const matchIds = this.host.branchIdsOf?.(file);
    const key = this.treeKey(tokens, matchIds);
    const hit = this.visible.get(file);
    if (hit && hit.stamp === doc.stamp && hit.key === key) return hit.tree;
    const tree = computeVisibleTree(doc.source, { filter: this.host.filter(), tokens, ...(matchIds ? { matchIds } : {}) });
    this.visible.set(file, { stamp: doc.stamp, key, tree });
    return tree;
  }

  /** The memoised visible tree of a file, whatever it was computed for (no computing). */
  lastVisibleTree(file: string): VisibleTree | undefined {
    return this.visible.get(file)?.tree;
  }

  /** Keeps a visible tree computed elsewhere (by the search) for these tokens. */
  rememberTree(file: string, stamp: string, tokens: readonly string[], tree: VisibleTree, matchIds?: ReadonlySet<string>): void {
    this.visible.set(file, { stamp, key: this.treeKey(tokens, matchIds), tree });
  }

  forgetTree(file: string): void {
    this.visible.delete(file);
  }

  forgetAllTrees(): void {
    this.visible.clear();
  }

  runChildren(run: RunNode): LoomNode[] {
    const vt = this.visibleTree(run.session.file);
    if (!vt) return [];
    return run.ids.map((id, i) => this.entryNode(run.session, run, id, i === run.ids.length - 1 && (vt.children.get(id)?.length ?? 0) > 0));
  }

  /** The segments under an entry (`null`: the top of the session's tree), as run and entry nodes. */
  segmentNodes(session: SessionNode, parent: SessionNode | EntryNode, under: string | null): LoomNode[] {
    const vt = this.visibleTree(session.file);
    if (!vt) return [];
    return segmentsUnder(vt, under).map((seg) => this.segmentNode(session, parent, seg, vt));
  }

  /** The known node of this id and kind, else this one (remembered). */
  cached<T extends DiagnosticNode | InfoNode>(node: T): T {
    const known = this.nodes.get(node.id);
    if (known && known.kind === node.kind) return known as T;
    this.nodes.set(node.id, node);
    return node;
  }

  /**
   * The node showing a visible entry, building the chain of run and fork nodes from the session
   * down, so `reveal` can walk it with getParent.
   */
  visibleEntryNode(session: SessionNode, vt: VisibleTree, id: string): EntryNode {
    // Walk up to the start of the segment: the first entry whose parent is the top or a fork.
    let start = id;
    let above: string | null = vt.parent.get(start) ?? null;
    while (above !== null && (vt.children.get(above)?.length ?? 0) === 1) {
      start = above;
      above = vt.parent.get(start) ?? null;
    }
    const parent: SessionNode | EntryNode = above === null ? session : this.visibleEntryNode(session, vt, above);
    const seg = segmentsUnder(vt, above).find((s) => (s.kind === 'entry' ? s.id : s.ids[0]) === start)!;
    const node = this.segmentNode(session, parent, seg, vt);
    if (node.kind === 'entry') return node;
    const last = node.ids[node.ids.length - 1];
    return this.entryNode(session, node, id, id === last && (vt.children.get(id)?.length ?? 0) > 0);
  }

  private segmentNode(session: SessionNode, parent: SessionNode | EntryNode, seg: BranchNode, vt: VisibleTree): RunNode | EntryNode {
    if (seg.kind === 'entry') return this.entryNode(session, parent, seg.id, (vt.children.get(seg.id)?.length ?? 0) > 0);
    const id = `${session.file}#run:${seg.ids[0]}`;
    let run = this.nodes.get(id) as RunNode | undefined;
    if (run?.kind === 'run') {
      run.ids = seg.ids;
      run.parent = parent;
      run.session = session;
    } else {
      run = new RunNode(session, parent, seg.ids);
      this.nodes.set(id, run);
    }
    return run;
  }

  private entryNode(session: SessionNode, parent: SessionNode | RunNode | EntryNode, entryId: string, hasBranches: boolean): EntryNode {
    const id = `${session.file}#${entryId}`;
    let e = this.nodes.get(id) as EntryNode | undefined;
    if (e?.kind === 'entry') {
      e.parent = parent;
      e.hasBranches = hasBranches;
      e.session = session;
    } else {
      e = new EntryNode(session, parent, entryId, hasBranches);
      this.nodes.set(id, e);
    }
    return e;
  }

  private treeKey(tokens: readonly string[], matchIds?: ReadonlySet<string>): string {
    return `${this.host.filter()}\n${tokens.join(' ')}\n${matchIds ? idSetKey(matchIds) : ''}`;
  }
}

const setKeys = new WeakMap<ReadonlySet<string>, string>();
let nextSetKey = 1;
/** A key per id set object (a new search makes new sets): memoised trees follow the search. */
function idSetKey(ids: ReadonlySet<string>): string {
  let k = setKeys.get(ids);
  if (!k) {
    k = `ids${nextSetKey++}`;
    setKeys.set(ids, k);
  }
  return k;
}
