// The reference (test-only, issue 23): where a forked Codex rollout branched off its parent, by
// comparing response items (codex-format.md A.8). The product nests forks by the ids the child's
// session_meta names (src/core/formats/codex/forks.ts buildForkForest) and reads no fork point.
import { isObj, type CodexRecord } from '../../src/core/formats/codex/types';

/** The response items of records after the first session_meta, as comparable text, with their lines. */
function responseItems(records: readonly CodexRecord[]): Array<{ line: number; key: string }> {
  const out: Array<{ line: number; key: string }> = [];
  for (const r of records) {
    if (r.type !== 'response_item' || !isObj(r.payload)) continue;
    out.push({ line: r.line, key: JSON.stringify(r.payload) });
  }
  return out;
}

export interface ForkPoint {
  /** How many response items the child shares with the start of the parent. */
  shared: number;
  /** The parent's line of the last shared item (where the child branched off), or null. */
  parentLine: number | null;
  /** The child's first line of its own (the first response item not copied), or null when it has none. */
  childLine: number | null;
}

/**
 * Where `child` branched off `parent`: the longest run of response items the child starts with
 * that are the parent's first items, compared as JSON. Unverified assumption: the CLI copies the
 * items verbatim (A.8 says the child's initial items *are* the parent's rollout items).
 */
export function forkPoint(parent: readonly CodexRecord[], child: readonly CodexRecord[]): ForkPoint {
  const p = responseItems(parent);
  const c = responseItems(child);
  let k = 0;
  while (k < p.length && k < c.length && p[k]!.key === c[k]!.key) k++;
  return { shared: k, parentLine: k > 0 ? p[k - 1]!.line : null, childLine: k < c.length ? c[k]!.line : null };
}
