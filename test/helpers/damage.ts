// Generators for the damaged shapes of issue 15 ("No byte lost"), each with what a reader must
// recover from it: glued records with a torn one, a torn record followed by complete ones,
// pretty-printed records, deeply nested records, and runs of blank and junk lines.
//
// A shape is a list of lines (without line ends) and the records it holds, with byte offsets
// relative to the shape's first byte; `sessionOf` lays shapes out as a file and makes the offsets
// absolute, so a property can compare what the reader found with what is there.
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';

export interface ExpectedRecord {
  value: Record<string, unknown>;
  /** 0-based line within the shape. */
  line: number;
  /** Byte offsets from the shape's first byte (line ends counted as `eol` bytes). */
  start: number;
  end: number;
}

export interface Shape {
  kind: string;
  lines: string[];
  /** Offsets assume the shape's lines are joined with `eol`; filled in by sessionOf. */
  records: (eol: string) => ExpectedRecord[];
}

// Text that stresses the structural scans: braces, quotes, escapes, separators and multi-byte text.
const TRICKY = fc.constantFrom('}{', '{"', '"}', '\\', '\\"', ':', ',', '[', ']', '{', '}', '"', 'é', '😀', '日本', ' ', 'a');
const text: Arbitrary<string> = fc.array(fc.oneof({ weight: 3, arbitrary: TRICKY }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }), { maxLength: 8 }).map((xs) => xs.join(''));

let serial = 0;
/** An entry-like record (the reader cares about objects, not about entry types). */
export const recordArb: Arbitrary<Record<string, unknown>> = fc
  .record({
    type: fc.constantFrom('message', 'custom', 'label', 'brand_new'),
    text,
    nested: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
    usage: fc.option(fc.record({ input: fc.nat(), output: fc.nat() }, { noNullPrototype: true }), { nil: undefined }),
  }, { noNullPrototype: true })
  .map((r) => {
    const o: Record<string, unknown> = { type: r.type, id: `r${(serial++).toString(16).padStart(7, '0')}`, message: { role: 'user', content: [{ type: 'text', text: r.text }] } };
    if (r.nested !== undefined) o.nested = r.nested;
    if (r.usage !== undefined) o.usage = r.usage;
    return JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
  });

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const ws = fc.constantFrom('', '', '', ' ', '\t', '  ');

/** A single record on its line. */
export const recordLine: Arbitrary<Shape> = recordArb.map((v) => {
  const line = JSON.stringify(v);
  return { kind: 'record', lines: [line], records: () => [{ value: v, line: 0, start: 0, end: bytes(line) }] };
});

/** Pieces of one line: each record at its byte offset. */
function lineOf(pieces: { text: string; value: Record<string, unknown> | null }[]): { line: string; records: ExpectedRecord[] } {
  let at = 0;
  let line = '';
  const records: ExpectedRecord[] = [];
  for (const p of pieces) {
    if (p.value) records.push({ value: p.value, line: 0, start: at, end: at + bytes(p.text) });
    line += p.text;
    at += bytes(p.text);
  }
  return { line, records };
}

/** `{…}{…}` with optional whitespace between. */
export const gluedLine: Arbitrary<Shape> = fc.tuple(fc.array(fc.tuple(recordArb, ws), { minLength: 2, maxLength: 4 })).map(([parts]) => {
  const pieces = parts.flatMap(([v, gap]) => [{ text: JSON.stringify(v), value: v }, { text: gap, value: null }]);
  const { line, records } = lineOf(pieces.slice(0, -1));
  return { kind: 'glued', lines: [line], records: () => records };
});

/** A record cut strictly inside its text (a crash mid-write). */
const tornArb: Arbitrary<string> = recordArb.chain((v) => {
  const s = JSON.stringify(v);
  return fc.integer({ min: 1, max: s.length - 1 }).map((k) => {
    // never cut inside a surrogate pair: the file would hold an invalid UTF-8 sequence instead
    const c = s.charCodeAt(k - 1);
    return s.slice(0, c >= 0xd800 && c <= 0xdbff ? k - 1 : k);
  });
});

/** `{complete}…{torn…`: the complete records are read, the fragment is not. */
export const gluedTornLine: Arbitrary<Shape> = fc.tuple(fc.array(recordArb, { minLength: 1, maxLength: 3 }), tornArb).map(([vs, torn]) => {
  const { line, records } = lineOf([...vs.map((v) => ({ text: JSON.stringify(v), value: v })), { text: torn, value: null }]);
  return { kind: 'glued+torn', lines: [line], records: () => records };
});

/**
 * `{torn…{complete}…`: a resumed writer appended whole records to a torn one. The complete ones are
 * read — but when the fragment ends (whitespace aside) in `:`, `,` or `[`, the first of them could
 * be a value inside the torn record, and the reader does not guess: it stays in the fragment.
 */
export const tornThenCompleteLine: Arbitrary<Shape> = fc.tuple(tornArb, fc.array(recordArb, { minLength: 1, maxLength: 2 })).map(([torn, vs]) => {
  const ambiguous = /[:,[]\s*$/.test(torn);
  const { line, records } = lineOf([{ text: torn, value: null }, ...vs.map((v, k) => ({ text: JSON.stringify(v), value: ambiguous && k === 0 ? null : v }))]);
  return { kind: 'torn+complete', lines: [line], records: () => records };
});

/** A record pretty-printed over several lines (Part B §17): one record from its first line's start to its last line's end. */
export const prettyRecord: Arbitrary<Shape> = fc.tuple(recordArb, fc.constantFrom(2, 4, '\t')).map(([v, indent]) => {
  const lines = JSON.stringify(v, null, indent).split('\n');
  return {
    kind: 'pretty',
    lines,
    records: (eol) => [{ value: v, line: 0, start: 0, end: bytes(lines.join(eol)) }],
  };
});

/** A record nested `levels` deep (the record itself is level 1): read up to 1,000 levels, not past. */
export function deepLine(levels: number, objects: boolean): Shape {
  const k = levels - 1;
  const inner = objects ? '{"a":'.repeat(k) + '1' + '}'.repeat(k) : '['.repeat(k) + ']'.repeat(k);
  const line = `{"type":"custom","id":"deep${levels}","data":${inner}}`;
  return { kind: `deep ${levels}`, lines: [line], records: () => (levels <= 1000 ? [{ value: JSON.parse(line) as Record<string, unknown>, line: 0, start: 0, end: bytes(line) }] : []) };
}
export const deepRecord: Arbitrary<Shape> = fc.tuple(fc.constantFrom(3, 999, 1000, 1001, 1002, 4000), fc.boolean()).map(([n, o]) => deepLine(n, o));

/**
 * Lines that are no records: text without `}` or `]` (so no run of them ever closes into an
 * object), JSON that is not an object, and blank lines. Sometimes many of them.
 */
const junkText = fc.array(fc.constantFrom('not json', '{', '[', '"', 'x', ':', ',', ' ', '1', 'é', '\\', 'null', 'tru'), { minLength: 1, maxLength: 6 }).map((xs) => xs.join(''));
const blankText = fc.constantFrom('', ' ', '\t', '   ');
const notObjectText = fc.constantFrom('[1,2]', '"s"', '3', 'null', 'true');
export const junkLines: Arbitrary<Shape> = fc
  .oneof(
    fc.array(fc.oneof(junkText, blankText, notObjectText), { minLength: 1, maxLength: 8 }),
    fc.tuple(fc.oneof(junkText, blankText), fc.integer({ min: 50, max: 400 })).map(([t, n]) => Array.from({ length: n }, () => t)),
  )
  .map((lines) => ({ kind: 'junk', lines, records: () => [] }));

/** Any one shape; weights keep plain records common, as in real files. */
export const shapeArb: Arbitrary<Shape> = fc.oneof(
  { weight: 6, arbitrary: recordLine },
  { weight: 2, arbitrary: gluedLine },
  { weight: 2, arbitrary: gluedTornLine },
  { weight: 2, arbitrary: tornThenCompleteLine },
  { weight: 2, arbitrary: prettyRecord },
  { weight: 1, arbitrary: deepRecord },
  { weight: 2, arbitrary: junkLines },
);

export interface Laid {
  bytes: Buffer;
  /** Every record of the shapes (not of the head lines) a reader must find, with absolute offsets and 1-based lines. */
  records: { value: Record<string, unknown>; line: number; start: number; end: number }[];
  shapes: Shape[];
}

/** Lays `shapes` out after `head` lines, joined with `eol`, with or without a final `eol`. */
export function sessionOf(head: string[], shapes: Shape[], eol: string, finalEol: boolean): Laid {
  const records: Laid['records'] = [];
  let text = '';
  let line = 0;
  const add = (l: string): void => {
    text += (line > 0 ? eol : '') + l;
    line++;
  };
  for (const h of head) add(h);
  for (const s of shapes) {
    const startByte = bytes(text) + (line > 0 ? bytes(eol) : 0);
    const firstLine = line + 1;
    for (const r of s.records(eol)) records.push({ value: r.value, line: firstLine + r.line, start: startByte + r.start, end: startByte + r.end });
    for (const l of s.lines) add(l);
  }
  if (finalEol && line > 0) text += eol;
  return { bytes: Buffer.from(text, 'utf8'), records, shapes };
}
