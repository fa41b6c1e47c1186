// How deeply a record may nest (issue 15 point 11).
//
// V8's JSON.parse reads any depth (it does not recurse), but almost everything after it does:
// JSON.stringify overflows Node's default stack at ~4,500 levels (~4,000 for structuredClone),
// fewer when it is called from deep in a stack (the extension host, a webview message), and so do
// the recursive walks that prepare an entry for persistence. One record nested 5,000 levels made
// `context` and `entries` fail for the whole session. The reader keeps such a record out of the
// entries (its bytes stay in the file, verbatim, and a `too-deep` diagnostic names it), so one bad
// record costs that record only.
//
// The limit: 1,000 levels. Real entries nest a dozen levels (entry → message → content → block →
// tool arguments → whatever JSON a tool passed): the deepest record in the fixtures has 13. And
// 1,000 leaves the stack-bound consumers a margin of four (JSON.stringify's ~4,500) for the
// frames of whoever calls them; the recursive walks of persist.ts, reached only by records that
// came through here (or a library caller's own objects), stay within 1,000 frames.
export const MAX_RECORD_DEPTH = 1000;

/**
 * A record nested deeper than MAX_RECORD_DEPTH has at least that many opening and as many closing
 * brackets: a shorter text cannot be too deep, so the check runs only on longer lines.
 */
export const DEPTH_CHECK_MIN_BYTES = 2 * MAX_RECORD_DEPTH;

// Reused between calls: the reader checks every long line, and a fresh pair of arrays each time
// would be garbage for nothing.
const stack: object[] = [];
const depths: number[] = [];

/**
 * Whether `root` (depth 1) holds a value nested deeper than `limit`. Iterative, over objects and
 * arrays only (strings and numbers are not visited one by one): on a real session's long lines it
 * costs a few percent of the JSON.parse that made the value.
 */
export function deeperThan(root: object, limit = MAX_RECORD_DEPTH): boolean {
  stack.length = 0;
  depths.length = 0;
  stack.push(root);
  depths.push(1);
  let deep = false;
  while (stack.length > 0) {
    const v = stack.pop()!;
    const d = depths.pop()! + 1;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null && typeof x === 'object') {
          if (d > limit) {
            deep = true;
            break;
          }
          stack.push(x);
          depths.push(d);
        }
      }
    } else {
      const o = v as Record<string, unknown>;
      for (const k in o) {
        const x = o[k];
        if (x !== null && typeof x === 'object') {
          if (d > limit) {
            deep = true;
            break;
          }
          stack.push(x);
          depths.push(d);
        }
      }
    }
    if (deep) break;
  }
  stack.length = 0;
  depths.length = 0;
  return deep;
}
