// Byte-level edits of one JSON record (Part C §7: a rewrite changes only what it means to change).
//
// A migration changes a few fields (the id, the parentId, firstKeptEntryIndex → firstKeptEntryId,
// message.role, the header's version; `title` the header's title). Re-serialising the record to
// do that would also rewrite everything JSON.parse cannot give back: invalid UTF-8 (→ U+FFFD),
// integers beyond 2^53 (rounded), `-0`, duplicate keys, escapes, whitespace, and — through
// prepareEntryForPersist — truncate and drop fields. So the record's own bytes are edited: a
// scanner walks the JSON structure on bytes (strings with escapes, nested values), decodes only
// the keys it compares, and every byte outside the edited spans is copied as it is.
//
// `applyEditsToValue` is the same edit on a parsed object: the migration builds its in-memory
// entries with it, so what the viewer shows is what the edited bytes parse to.

export type RecordEdit =
  /**
   * Sets the value at `path` (a top-level key, or a key inside nested objects). An absent last key
   * is inserted right after the first key of `after` that is present in its object, else first.
   */
  | { op: 'set'; path: readonly string[]; value: unknown; after?: readonly string[] }
  /** Renames the top-level key `from` in place (same position) and gives it a new value. */
  | { op: 'rename'; from: string; to: string; value: unknown };

/** The record cannot be edited exactly; nothing is written. `at` is a byte offset in the record. */
export class RecordEditError extends Error {
  constructor(
    message: string,
    readonly at = -1,
  ) {
    super(message);
    this.name = 'RecordEditError';
  }
}

/** Replace `bytes[start, end)` with `text` (UTF-8). Zero-width splices insert. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

// ---------- scanning ----------

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Member {
  key: string;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

interface ObjectScan {
  /** Offset of `{` and of the matching `}`. */
  open: number;
  close: number;
  members: Member[];
}

function isWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipWs(b: Buffer, i: number, end: number): number {
  while (i < end && isWs(b[i])) i++;
  return i;
}

/** `i` is at an opening quote; returns the offset just after the closing one. */
function stringEnd(b: Buffer, i: number, end: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q === -1 || q >= end) throw new RecordEditError('unterminated string', i);
    // A quote preceded by an odd run of backslashes is escaped.
    let k = q - 1;
    while (k > i && b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** `i` is at the first byte of a value; returns the offset just after it. */
function valueEnd(b: Buffer, i: number, end: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i, end);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let j = i;
    while (j < end) {
      const d = b[j]!;
      if (d === QUOTE) {
        j = stringEnd(b, j, end);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return j + 1;
      }
      j++;
    }
    throw new RecordEditError('unterminated object or array', i);
  }
  // number, true, false, null: up to the next delimiter
  let j = i;
  while (j < end && b[j] !== 0x2c && b[j] !== 0x7d && b[j] !== 0x5d && !isWs(b[j])) j++;
  if (j === i) throw new RecordEditError('expected a value', i);
  return j;
}

function decodeKey(b: Buffer, start: number, end: number): string {
  // Keys without escapes decode as they are; invalid UTF-8 becomes U+FFFD exactly as JSON.parse sees it.
  let escaped = false;
  for (let i = start + 1; i < end - 1 && !escaped; i++) escaped = b[i] === BACKSLASH;
  if (!escaped) return b.toString('utf8', start + 1, end - 1);
  return JSON.parse(b.toString('utf8', start, end)) as string;
}

/** The members of the object whose `{` is the first non-space byte at or after `i`. */
function scanObject(b: Buffer, i: number, end: number): ObjectScan {
  i = skipWs(b, i, end);
  if (b[i] !== 0x7b || i >= end) throw new RecordEditError('not a JSON object', i);
  const open = i;
  const members: Member[] = [];
  i = skipWs(b, i + 1, end);
  if (b[i] === 0x7d && i < end) return { open, close: i, members };
  for (;;) {
    if (b[i] !== QUOTE || i >= end) throw new RecordEditError('expected a key', i);
    const keyStart = i;
    const keyEnd = stringEnd(b, i, end);
    i = skipWs(b, keyEnd, end);
    if (b[i] !== 0x3a || i >= end) throw new RecordEditError('expected ":"', i);
    const valueStart = skipWs(b, i + 1, end);
    if (valueStart >= end) throw new RecordEditError('expected a value', valueStart);
    const vEnd = valueEnd(b, valueStart, end);
    members.push({ key: decodeKey(b, keyStart, keyEnd), keyStart, keyEnd, valueStart, valueEnd: vEnd });
    i = skipWs(b, vEnd, end);
    if (i >= end) throw new RecordEditError('unterminated object', open);
    if (b[i] === 0x2c) {
      i = skipWs(b, i + 1, end);
      continue;
    }
    if (b[i] === 0x7d) return { open, close: i, members };
    throw new RecordEditError('expected "," or "}"', i);
  }
}

// ---------- planning ----------

interface Inserted {
  key: string;
  text: string;
}

/** Where a key now is: an original member, or an inserted one (in the group after `anchor`). */
type Location = { member: number } | { anchor: number; item: Inserted };

interface ObjectPlan {
  scan: ObjectScan;
  present: Map<string, Location>;
  /** Inserted members after original member k (-1: at the start), in order. */
  groups: Map<number, Inserted[]>;
  newKeys: Map<number, string>;
  newValues: Map<number, string>;
  children: Map<number, ObjectPlan>;
}

function planOf(scan: ObjectScan): ObjectPlan {
  const present = new Map<string, Location>();
  // JSON.parse keeps the LAST of duplicate keys, so the last occurrence is the one to edit.
  scan.members.forEach((m, k) => present.set(m.key, { member: k }));
  return { scan, present, groups: new Map(), newKeys: new Map(), newValues: new Map(), children: new Map() };
}

function jsonText(value: unknown): string {
  const t = JSON.stringify(value);
  if (t === undefined) throw new RecordEditError(`cannot write a value of type ${typeof value}`);
  return t;
}

function groupOf(plan: ObjectPlan, anchor: number): Inserted[] {
  let g = plan.groups.get(anchor);
  if (!g) plan.groups.set(anchor, (g = []));
  return g;
}

function insert(plan: ObjectPlan, key: string, text: string, after: readonly string[]): void {
  const item: Inserted = { key, text: `${JSON.stringify(key)}:${text}` };
  let loc: Location | undefined;
  for (const a of after) if ((loc = plan.present.get(a))) break;
  let anchor = -1;
  if (!loc) groupOf(plan, -1).unshift(item);
  else if ('member' in loc) groupOf(plan, (anchor = loc.member)).unshift(item);
  else {
    const g = groupOf(plan, (anchor = loc.anchor));
    g.splice(g.indexOf(loc.item) + 1, 0, item);
  }
  plan.present.set(key, { anchor, item });
}

function childPlan(b: Buffer, plan: ObjectPlan, key: string): ObjectPlan {
  const loc = plan.present.get(key);
  if (!loc || !('member' in loc)) throw new RecordEditError(`no "${key}" object to edit inside`);
  const k = loc.member;
  if (plan.newValues.has(k)) throw new RecordEditError(`"${key}" is replaced and edited inside`);
  let child = plan.children.get(k);
  if (!child) {
    const m = plan.scan.members[k]!;
    if (b[m.valueStart] !== 0x7b) throw new RecordEditError(`"${key}" is not an object`, m.valueStart);
    plan.children.set(k, (child = planOf(scanObject(b, m.valueStart, m.valueEnd))));
  }
  return child;
}

function applyPlanEdit(b: Buffer, root: ObjectPlan, edit: RecordEdit): void {
  if (edit.op === 'rename') {
    const loc = root.present.get(edit.from);
    if (!loc || !('member' in loc)) throw new RecordEditError(`no "${edit.from}" to rename`);
    if (root.scan.members.filter((m) => m.key === edit.from).length > 1) throw new RecordEditError(`"${edit.from}" occurs more than once`);
    if (root.present.has(edit.to)) throw new RecordEditError(`"${edit.to}" is already present`);
    root.children.delete(loc.member);
    root.newKeys.set(loc.member, JSON.stringify(edit.to));
    root.newValues.set(loc.member, jsonText(edit.value));
    root.present.delete(edit.from);
    root.present.set(edit.to, loc);
    return;
  }
  if (edit.path.length === 0) throw new RecordEditError('empty path');
  let plan = root;
  for (let d = 0; d < edit.path.length - 1; d++) plan = childPlan(b, plan, edit.path[d]!);
  const key = edit.path[edit.path.length - 1]!;
  const text = jsonText(edit.value);
  const loc = plan.present.get(key);
  if (!loc) insert(plan, key, text, edit.after ?? []);
  else if ('member' in loc) {
    plan.children.delete(loc.member); // a whole new value supersedes edits made inside the old one
    plan.newValues.set(loc.member, text);
  } else loc.item.text = `${JSON.stringify(key)}:${text}`;
}

function splicesOf(plan: ObjectPlan, out: Splice[]): void {
  const { scan } = plan;
  const first = plan.groups.get(-1);
  if (first && first.length > 0) {
    const at = scan.open + 1;
    out.push({ start: at, end: at, text: first.map((x) => x.text).join(',') + (scan.members.length > 0 ? ',' : '') });
  }
  scan.members.forEach((m, k) => {
    const key = plan.newKeys.get(k);
    if (key !== undefined) out.push({ start: m.keyStart, end: m.keyEnd, text: key });
    const value = plan.newValues.get(k);
    if (value !== undefined) out.push({ start: m.valueStart, end: m.valueEnd, text: value });
    else {
      const child = plan.children.get(k);
      if (child) splicesOf(child, out);
    }
    const g = plan.groups.get(k);
    if (g && g.length > 0) out.push({ start: m.valueEnd, end: m.valueEnd, text: g.map((x) => ',' + x.text).join('') });
  });
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The splices that apply `edits` (in order) to the record `bytes`, in ascending order. Throws
 * RecordEditError when the bytes are not one JSON object or an edit cannot be made exactly.
 */
export function planRecordEdits(bytes: Uint8Array, edits: readonly RecordEdit[]): Splice[] {
  const b = asBuffer(bytes);
  const scan = scanObject(b, 0, b.length);
  if (skipWs(b, scan.close + 1, b.length) !== b.length) throw new RecordEditError('bytes after the object', scan.close + 1);
  const root = planOf(scan);
  for (const e of edits) applyPlanEdit(b, root, e);
  const out: Splice[] = [];
  splicesOf(root, out);
  return out;
}

export function applySplices(bytes: Uint8Array, splices: readonly Splice[]): Buffer {
  const b = asBuffer(bytes);
  const parts: Buffer[] = [];
  let pos = 0;
  for (const s of splices) {
    if (s.start < pos || s.end < s.start || s.end > b.length) throw new RecordEditError('overlapping edits', s.start);
    parts.push(b.subarray(pos, s.start), Buffer.from(s.text, 'utf8'));
    pos = s.end;
  }
  parts.push(b.subarray(pos));
  return Buffer.concat(parts);
}

/** `bytes` with `edits` applied; every byte outside the edited spans is kept. */
export function editRecord(bytes: Uint8Array, edits: readonly RecordEdit[]): Buffer {
  return applySplices(bytes, planRecordEdits(bytes, edits));
}

// ---------- the same edits on a parsed value ----------

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const has = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

// Object.fromEntries (not assignment) so a "__proto__" key stays an own data property, as JSON.parse makes it.
function setIn(o: Obj, path: readonly string[], value: unknown, after: readonly string[]): Obj {
  const key = path[0]!;
  if (path.length > 1) {
    const child = o[key];
    if (!has(o, key) || !isObject(child)) throw new RecordEditError(`no "${key}" object to edit inside`);
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, k === key ? setIn(child, path.slice(1), value, after) : v]));
  }
  if (has(o, key)) return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, k === key ? value : v]));
  const anchor = after.find((a) => has(o, a));
  const entries = Object.entries(o);
  const at = anchor === undefined ? 0 : entries.findIndex(([k]) => k === anchor) + 1;
  entries.splice(at, 0, [key, value]);
  return Object.fromEntries(entries);
}

/**
 * `value` with `edits` applied, as a new object (the input is not mutated): what JSON.parse of
 * `editRecord(bytes, edits)` gives when `value` is JSON.parse of `bytes`.
 */
export function applyEditsToValue<T extends object>(value: T, edits: readonly RecordEdit[]): T {
  let o = value as unknown as Obj;
  for (const e of edits) {
    if (e.op === 'set') o = setIn(o, e.path, e.value, e.after ?? []);
    else {
      if (!has(o, e.from)) throw new RecordEditError(`no "${e.from}" to rename`);
      if (has(o, e.to)) throw new RecordEditError(`"${e.to}" is already present`);
      o = Object.fromEntries(Object.entries(o).map(([k, v]) => (k === e.from ? [e.to, e.value] : [k, v])));
    }
  }
  return o as unknown as T;
}
