// Forks across files (codex-format.md A.8, Part C §10): a fork is a new rollout (new thread id)
// whose session_meta names `forked_from_id`; it starts with a copy of its parent's rollout items
// up to the fork point, and the parent file is untouched. Subagent / review / compact threads name
// their parent with `parent_thread_id` (and `source: {"subagent": …}`). The relation is between
// files only, so drawing the tree takes several rollouts: buildForkForest does that from each
// one's facts (ids and parents); where in the parent a child branched off is the test reference's
// (test/reference/codexForks.ts forkPoint).

/** What the forest needs of a rollout: its path and the ids of its first session_meta. */
export interface ForkFacts {
  path: string;
  id: string | null;
  forkedFromId: string | null;
  parentThreadId?: string | null;
  /** Session start (UTC ISO) — orders siblings. */
  created?: string | null;
}

export interface ForkNode<T extends ForkFacts> {
  rollout: T;
  /** How it hangs below its parent: a fork, a subagent thread, or nothing (a root). */
  relation: 'root' | 'fork' | 'subagent';
  /** A root whose parent id names no rollout given (the parent was deleted or not discovered). */
  missingParent: string | null;
  children: ForkNode<T>[];
  /** Other files with the same thread id (e.g. an archived copy): listed here, not as nodes. */
  duplicates: T[];
}

const isCompressed = (p: string): boolean => p.endsWith('.zst');

/**
 * The fork forest of `rollouts`: each rollout under the one its `forked_from_id` (else its
 * `parent_thread_id`) names, roots in start order. Files sharing a thread id become one node: the
 * plain `.jsonl` wins over its `.jsonl.zst` sibling (A.1), otherwise the first given. A parent
 * chain that loops is cut where it closes (that rollout becomes a root). Rollouts without an id
 * are roots.
 */
export function buildForkForest<T extends ForkFacts>(rollouts: readonly T[]): ForkNode<T>[] {
  const byId = new Map<string, ForkNode<T>>();
  const nodes: ForkNode<T>[] = [];
  for (const r of rollouts) {
    const node: ForkNode<T> = { rollout: r, relation: 'root', missingParent: null, children: [], duplicates: [] };
    if (r.id === null) {
      nodes.push(node);
      continue;
    }
    const seen = byId.get(r.id);
    if (!seen) {
      byId.set(r.id, node);
      nodes.push(node);
    } else if (isCompressed(seen.rollout.path) && !isCompressed(r.path)) {
      seen.duplicates.push(seen.rollout);
      seen.rollout = r;
    } else seen.duplicates.push(r);
  }
  const parentOf = (n: ForkNode<T>): { id: string; relation: 'fork' | 'subagent' } | null => {
    const f = n.rollout.forkedFromId;
    if (f) return { id: f, relation: 'fork' };
    const p = n.rollout.parentThreadId;
    return p ? { id: p, relation: 'subagent' } : null;
  };
  const attached = new Map<ForkNode<T>, ForkNode<T>>();
  const roots: ForkNode<T>[] = [];
  for (const n of nodes) {
    const p = parentOf(n);
    const parent = p && p.id !== n.rollout.id ? byId.get(p.id) : undefined;
    if (!p) {
      roots.push(n);
      continue;
    }
    if (!parent) {
      n.missingParent = p.id;
      roots.push(n);
      continue;
    }
    // A loop: the parent's chain (as attached so far) reaches back to n.
    let loops = false;
    for (let a: ForkNode<T> | undefined = parent; a; a = attached.get(a)) {
      if (a === n) {
        loops = true;
        break;
      }
    }
    if (loops) {
      n.missingParent = p.id;
      roots.push(n);
      continue;
    }
    n.relation = p.relation;
    attached.set(n, parent);
    parent.children.push(n);
  }
  const order = (a: ForkNode<T>, b: ForkNode<T>): number => (a.rollout.created ?? '').localeCompare(b.rollout.created ?? '') || a.rollout.path.localeCompare(b.rollout.path);
  const sort = (list: ForkNode<T>[]): void => {
    list.sort(order);
    for (const n of list) sort(n.children);
  };
  sort(roots);
  return roots;
}
