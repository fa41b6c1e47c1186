// Taking one damaged JSONL line apart (Part C §4, issue 15): glued records, a torn fragment
// beside complete records, and the structural scan a multi-line record is joined with.
//
// Works on the line's UTF-8 bytes, not on a decoded string: every structural character (`{ } [ ]
// " \`) is ASCII, and no byte of a multi-byte UTF-8 sequence is ASCII, so a scan over bytes finds
// exactly the boundaries a scan over characters would — and the byte offsets a byte-preserving
// rewrite needs come out directly, with no UTF-16 → UTF-8 conversion (which, done per part over
// the line's prefix, made a line of many glued records quadratic).
//
// Every function here is linear in the line's length.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export function isJsonWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** Where a structural scan stands: nesting depth and whether it is inside a string. */
export interface ScanState {
  depth: number;
  inString: boolean;
}

/**
 * Scans `buf[from, to)` from `state` (updated in place). Returns the index just past the bracket
 * that brings the depth back to 0 (a top-level value closed), or -1 when the range ends first.
 * Bracket kinds are not matched (`{]` counts as closed): JSON.parse is the judge of validity.
 */
export function scanStructure(buf: Uint8Array, from: number, to: number, state: ScanState): number {
  let depth = state.depth;
  let inString = state.inString;
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) {
        state.depth = 0;
        state.inString = false;
        return i + 1;
      }
    }
  }
  state.depth = depth;
  // A `\` as the range's last byte escapes the next line's first byte: it is still in the string.
  state.inString = inString;
  return -1;
}

/** JSON.parse of `buf[s, e)` when it is an object, else null. */
export function parseObjectAt(buf: Buffer, s: number, e: number): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(buf.toString('utf8', s, e));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** One piece of a split line. Offsets are indices into the buffer given to splitLine. */
export interface LinePart {
  start: number;
  end: number;
  /** The record; null for a fragment (`fragment` says which kind). */
  value: Record<string, unknown> | null;
  /**
   * null for a record. 'torn': bytes of a record cut short (an interrupted write). 'invalid':
   * one or more complete `{…}` that do not parse (a bad escape, say). 'trailing': text after the
   * records that does not start like one (`{…} xyz`, `{…},`, `{…}}`, `{…} 7`): the agent reads
   * the record and drops the rest of the line (Part B §18).
   */
  fragment: 'torn' | 'invalid' | 'trailing' | null;
}

/**
 * Splits a line that did not parse as a whole into records and at most one fragment:
 *
 *     {record}…{record}  {fragment…  {record}…{record}
 *
 * with whitespace allowed between pieces. Two shapes come from real damage:
 *  - `{complete}{torn…`: glued records whose last one was cut short;
 *  - `{torn…{complete}`: a writer crashed mid-record, and the resumed writer appended a whole
 *    record to the same line.
 *
 * Leading records are found forwards: each `{` is scanned to where its depth returns to 0, and the
 * piece must parse. The first piece that does not close, or does not parse, starts the fragment.
 * Trailing records are found backwards from the line end: from a `}`, a backward scan (a `"` is
 * escaped when an odd number of `\` precede it, so strings are skipped exactly) finds the `{` that
 * opens it, and the piece must parse. Both directions visit each byte once: linear.
 *
 * A trailing record is taken only when the byte before it (whitespace aside) is not `:`, `,` or
 * `[`: there it may just as well be a value inside the torn record (`{"usage":{"input":1}` torn
 * after the inner `}` is one torn record, not a record `{"input":1}`). Such a line stays whole.
 * And only when it has a string `type`, as every session record does: a typeless `{}` may be the
 * end of a string the tear left open.
 *
 * A fragment that does not start with `{` after a record is trailing text (`{"a":1} xyz`, Part B
 * §18): the records before it are kept, and so are complete records after it.
 *
 * Returns null unless at least one record parses and there is more than one piece (a line that
 * starts with a fragment that is not `{` is never split: it is not a record beside other text).
 */
export function splitLine(buf: Buffer, s: number, e: number): LinePart[] | null {
  const head: LinePart[] = [];
  let i = s;
  let fragmentStart = -1;
  const state: ScanState = { depth: 0, inString: false };
  for (;;) {
    while (i < e && isJsonWs(buf[i])) i++;
    if (i >= e) break;
    if (buf[i] !== OPEN_BRACE) {
      if (head.length === 0) return null;
      fragmentStart = i;
      break;
    }
    state.depth = 0;
    state.inString = false;
    const close = scanStructure(buf, i, e, state);
    const value = close === -1 ? null : parseObjectAt(buf, i, close);
    if (value === null) {
      fragmentStart = i;
      break;
    }
    head.push({ start: i, end: close, value, fragment: null });
    i = close;
  }
  if (fragmentStart === -1) return head.length >= 2 ? head : null;

  // Backwards from the line end: complete records after the fragment.
  const tail: LinePart[] = [];
  let j = e;
  for (;;) {
    while (j > fragmentStart && isJsonWs(buf[j - 1])) j--;
    if (j <= fragmentStart || buf[j - 1] !== CLOSE_BRACE) break;
    const open = openingBrace(buf, fragmentStart, j - 1);
    if (open <= fragmentStart) break; // (at fragmentStart: the fragment itself, which did not parse)
    let before = open;
    while (before > fragmentStart && isJsonWs(buf[before - 1])) before--;
    const prev = buf[before - 1];
    if (prev === 0x3a /* : */ || prev === 0x2c /* , */ || prev === OPEN_BRACKET) break;
    const value = parseObjectAt(buf, open, j);
    // A session record has a string `type`; a typeless `{…}` at the end of a torn line is as
    // likely the tail of a string the tear left open (`…"text":"}{}`) as a record of its own.
    if (value === null || typeof value.type !== 'string') break;
    tail.push({ start: open, end: j, value, fragment: null });
    j = open;
  }
  if (head.length === 0 && tail.length === 0) return null;
  while (j > fragmentStart && isJsonWs(buf[j - 1])) j--;
  const parts = head;
  parts.push(fragmentAt(buf, fragmentStart, j));
  for (let k = tail.length - 1; k >= 0; k--) parts.push(tail[k]!);
  return parts;
}

/**
 * Index of the `{` whose object ends with the `}` at `close`, scanning backwards no further than
 * `lo`; -1 when there is none (or a `[` closes the depth instead).
 */
function openingBrace(buf: Uint8Array, lo: number, close: number): number {
  let depth = 0;
  for (let k = close; k >= lo; k--) {
    const c = buf[k]!;
    if (c === QUOTE) {
      // The end of a string: its start is the previous quote that is not escaped.
      let q = k - 1;
      for (;;) {
        while (q >= lo && buf[q] !== QUOTE) q--;
        if (q < lo) return -1;
        let backslashes = 0;
        while (q - 1 - backslashes >= lo && buf[q - 1 - backslashes] === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        q--;
      }
      k = q;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth++;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth--;
      if (depth === 0) return c === OPEN_BRACE ? k : -1;
    }
  }
  return -1;
}

/** `buf[s, e)` (no whitespace at either end) as a fragment of its kind. */
export function fragmentAt(buf: Buffer, s: number, e: number): LinePart {
  return { start: s, end: e, value: null, fragment: buf[s] !== OPEN_BRACE ? 'trailing' : isGluedObjects(buf, s, e) ? 'invalid' : 'torn' };
}

/** `buf[s, e)` is one or more balanced `{…}` (whitespace between): complete records, only unparsable. */
function isGluedObjects(buf: Buffer, s: number, e: number): boolean {
  let i = s;
  const state: ScanState = { depth: 0, inString: false };
  while (i < e) {
    if (buf[i] !== OPEN_BRACE) return false;
    state.depth = 0;
    state.inString = false;
    const close = scanStructure(buf, i, e, state);
    if (close === -1) return false;
    i = close;
    while (i < e && isJsonWs(buf[i])) i++;
  }
  return i > s;
}
