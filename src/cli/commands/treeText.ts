// The text layout of `session-loom tree`, shared by the eager printer (read.ts) and the lazy one
// (lazyTreeCommand.ts) so both print the same bytes. As the agents' own `/tree`: at a fork the
// trunk — the child on the path to the default leaf, else the last child in file order — stays at
// its parent's level, and the other children (side branches) hang one level under the fork point,
// before the trunk goes on. Indentation grows with the nesting of side branches only, never with
// the number of forks along the main line: a long session with a side branch every ten entries
// prints at two levels, not at one more level per fork.
//
//   a1 user: …
//   a2 assistant: …            ← fork point
//   ├─ b1 user: try another way
//   │  b2 assistant: …          (the rest of that branch)
//   a3 user: …                 ← the trunk, at a2's level
import { escapeForTerminal } from '../terminalText';
import type { TreeRowJson } from './entryPreview';

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

/** One row of the text tree: prefix, id, preview, `[label]`, and the default leaf's marker. */
export function treeRowText(lead: string, r: TreeRowJson): string {
  return `${lead}${escapeForTerminal(r.id)} ${escapeForTerminal(r.preview)}${r.label !== undefined ? ` [${escapeForTerminal(r.label)}]` : ''}${r.leaf ? '  ← leaf' : ''}\n`;
}
