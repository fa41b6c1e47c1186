// The logical events of a dsh log (dsh-format.md §2–§3), held compactly. About 80% of a dsh log's
// events are `assistant/chunk` deltas, most stored as packed rows of a few bytes per delta; as
// JS objects each is ~150–200 bytes. So the store keeps per storage record only a few numbers,
// and keeps parsed ("resident") just the events that the reader's own folds and the viewer's
// context read: surface messages, request headers and routes, titles, compactions, and any event
// a legacy upgrade rewrote. Every other record — packed rows, verbatim chunks, log-only plugin
// events — is parsed again from the stored bytes (recordTexts.ts) when it is asked for, and a
// packed row is expanded then (§3: member k has seq0 + k, time0 + dt[0..k-1], name only when the
// row has it). What a consumer sees is exactly the eager reader's event; only its identity differs.
//
// A store without stored bytes (the SQLite backend: the database is closed after reading) keeps
// every record parsed, packed rows as their row object.
import { expandPackedRow } from './packedRows';
import type { RecordTexts } from './recordTexts';
import type { DshEvent } from './types';

/** Where a record's text is in the logical JSONL text (see recordTexts.ts). */
export interface RecordPlaceInText {
  start: number;
  length: number;
}

/** Read-only, indexable events: what the context fold and closers need (arrays qualify). */
export interface DshEventList extends Iterable<DshEvent> {
  readonly length: number;
  at(index: number): DshEvent | undefined;
}

const PACKED = 0x8000;
const TYPE_MASK = 0x7fff;
/** More distinct types than this (never seen; a hostile file): the type is read from the event. */
const OTHER_TYPE = TYPE_MASK;

/**
 * The events of one log, `at(i).seq === i`. Resident events are returned as the same object each
 * time (as parsed from the file, or as upgraded); the others are rebuilt on every access: equal
 * (deep and as JSON) to the eager reader's, but not identical — compare events by seq.
 */
export class DshEventStore implements DshEventList {
  /** Per record: its first seq (record r covers [first[r], first[r + 1]); first[records] = length). */
  private first = new Float64Array(257);
  /** Per record: type code, | PACKED for a packed row. */
  private kind = new Uint16Array(256);
  private textStart = new Float64Array(256);
  private textLength = new Uint32Array(256);
  /** Per record: the index of its kept value in `kept` (the event, or a packed row object when there are no stored bytes), or -1. */
  private keptIndex = new Int32Array(256);
  private readonly kept: unknown[] = [];
  private records = 0;
  private readonly typeCodes = new Map<string, number>();
  private readonly typeNames: string[] = [];
  /** The last packed row expanded (sequential reads expand each row once). */
  private expanded: { record: number; events: DshEvent[] } | null = null;
  /** The record last found by seq (sequential `at` calls skip the search). */
  private lastRecord = 0;

  /** `texts`: where records that are not resident are read again; none: every record is resident. */
  constructor(private readonly texts: RecordTexts | null = null) {}

  get length(): number {
    return this.first[this.records]!;
  }

  /** The event with seq `index` (negative: from the end, as Array.prototype.at), or undefined. */
  at(index: number): DshEvent | undefined {
    const n = this.length;
    let i = Math.trunc(index) || 0;
    if (i < 0) i += n;
    if (i < 0 || i >= n) return undefined;
    const r = this.recordOf(i);
    return this.kind[r]! & PACKED ? this.packedEvents(r)[i - this.first[r]!] : this.verbatim(r);
  }

  /** The type of the event with seq `index`, without rebuilding the event (undefined out of range). */
  typeAt(index: number): string | undefined {
    const n = this.length;
    let i = Math.trunc(index) || 0;
    if (i < 0) i += n;
    if (i < 0 || i >= n) return undefined;
    const r = this.recordOf(i);
    const code = this.kind[r]! & TYPE_MASK;
    return code === OTHER_TYPE ? this.at(i)!.type : this.typeNames[code];
  }

  /** The seqs of the events whose type is in `types`, ascending, without rebuilding events. */
  seqsOf(types: ReadonlySet<string>): number[] {
    const out: number[] = [];
    const wanted = this.typeNames.map((t) => types.has(t));
    for (let r = 0; r < this.records; r++) {
      const code = this.kind[r]! & TYPE_MASK;
      const from = this.first[r]!;
      if (code === OTHER_TYPE) {
        if (types.has(this.at(from)!.type)) out.push(from);
      } else if (wanted[code]) {
        for (let s = from, to = this.first[r + 1]!; s < to; s++) out.push(s);
      }
    }
    return out;
  }

  /** The events with seqs [start, end), as Array.prototype.slice (negative: from the end). */
  slice(start?: number, end?: number): DshEvent[] {
    const n = this.length;
    const clamp = (v: number | undefined, dflt: number): number => {
      if (v === undefined) return dflt;
      const t = Math.trunc(v) || 0;
      return t < 0 ? Math.max(n + t, 0) : Math.min(t, n);
    };
    const from = clamp(start, 0);
    const to = clamp(end, n);
    const out: DshEvent[] = [];
    if (from >= to) return out;
    for (let r = this.recordOf(from); r < this.records && this.first[r]! < to; r++) {
      const first = this.first[r]!;
      if (this.kind[r]! & PACKED) {
        const events = this.packedEvents(r);
        for (let k = Math.max(from - first, 0), last = Math.min(to - first, events.length); k < last; k++) out.push(events[k]!);
      } else {
        out.push(this.verbatim(r));
      }
    }
    return out;
  }

  *[Symbol.iterator](): IterableIterator<DshEvent> {
    for (let r = 0; r < this.records; r++) {
      if (this.kind[r]! & PACKED) yield* this.packedEvents(r);
      else yield this.verbatim(r);
    }
  }

  /** Appends one verbatim event; kept parsed when `keep` or when there are no stored bytes. */
  pushEvent(event: DshEvent, keep: boolean, place: RecordPlaceInText | undefined): void {
    const r = this.nextRecord(1);
    this.kind[r] = this.typeCode(event.type);
    this.place(r, keep || !place ? undefined : place, event);
  }

  /** Appends one packed row of `count` members (validated by the scanner). */
  pushPackedRow(row: Record<string, unknown>, count: number, place: RecordPlaceInText | undefined): void {
    const r = this.nextRecord(count);
    this.kind[r] = this.typeCode('assistant/chunk') | PACKED;
    this.place(r, place, row);
  }

  private place(r: number, place: RecordPlaceInText | undefined, value: unknown): void {
    if (place && this.texts) {
      this.textStart[r] = place.start;
      this.textLength[r] = place.length;
      this.keptIndex[r] = -1;
    } else {
      this.keptIndex[r] = this.kept.length;
      this.kept.push(value);
    }
  }

  private nextRecord(count: number): number {
    if (this.records === this.kind.length) this.grow();
    const r = this.records++;
    this.first[r + 1] = this.first[r]! + count;
    return r;
  }

  private typeCode(type: string): number {
    let code = this.typeCodes.get(type);
    if (code === undefined) {
      if (this.typeNames.length >= OTHER_TYPE) return OTHER_TYPE;
      code = this.typeNames.length;
      this.typeNames.push(type);
      this.typeCodes.set(type, code);
    }
    return code;
  }

  private verbatim(r: number): DshEvent {
    const k = this.keptIndex[r]!;
    if (k !== -1) return this.kept[k] as DshEvent;
    return JSON.parse(this.texts!.text(this.textStart[r]!, this.textLength[r]!)) as DshEvent;
  }

  private packedEvents(r: number): DshEvent[] {
    if (this.expanded?.record === r) return this.expanded.events;
    const k = this.keptIndex[r]!;
    const row = (k !== -1 ? this.kept[k] : JSON.parse(this.texts!.text(this.textStart[r]!, this.textLength[r]!))) as Record<string, unknown>;
    const events = expandPackedRow(row);
    // Validated when the log was read, and the stored bytes have not changed since.
    if (typeof events === 'string') throw new Error(`dsh event store: packed row ${r} no longer expands (${events})`);
    this.expanded = { record: r, events };
    return events;
  }

  /**
   * The record holding seq `seq` (0 ≤ seq < length). Searched from the last record found, forward
   * by doubling steps: reads in ascending order (iteration, the context fold) stay cheap.
   */
  private recordOf(seq: number): number {
    const first = this.first;
    let lo = 0;
    let hi = this.records - 1;
    const last = this.lastRecord;
    if (last <= hi && first[last]! <= seq) {
      if (seq < first[last + 1]!) return last;
      lo = last + 1;
      for (let step = 1; lo + step <= hi; step *= 2) {
        if (first[lo + step]! > seq) {
          hi = lo + step - 1;
          break;
        }
        lo += step;
      }
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (first[mid]! <= seq) lo = mid;
      else hi = mid - 1;
    }
    return (this.lastRecord = lo);
  }

  private grow(): void {
    const n = this.kind.length * 2;
    const first = new Float64Array(n + 1);
    first.set(this.first);
    this.first = first;
    const kind = new Uint16Array(n);
    kind.set(this.kind);
    this.kind = kind;
    const keptIndex = new Int32Array(n);
    keptIndex.set(this.keptIndex);
    this.keptIndex = keptIndex;
    if (this.texts) {
      const start = new Float64Array(n);
      start.set(this.textStart);
      this.textStart = start;
      const length = new Uint32Array(n);
      length.set(this.textLength);
      this.textLength = length;
    }
  }
}
