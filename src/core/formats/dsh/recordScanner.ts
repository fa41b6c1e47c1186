// The corruption rule shared by every dsh encoding (dsh-format.md §3, JSONL `SessionLogScanner`,
// SQLite `scanRows`): records are scanned in order against the next expected seq.
// - An unparsable record or a seq gap that comes before a later record holding a `turn/end`
//   makes the log corrupt (dsh refuses it): the reader keeps the prefix before the problem.
// - After the last `turn/end` it bounds the preserved prefix: it and everything after it are the
//   torn tail, dropped.
// - A packed row containing a gap is dropped whole.
// Records after the first problem are parsed only to learn whether they hold a `turn/end`.
import { expandPackedRow, isPackedRowTag } from './packedRows';
import type { DshDiagnostic, DshEvent } from './types';

/** Where a record was read: a 1-based logical line (0 for a database row) and a byte offset. */
export interface RecordPlace {
  line: number;
  offset?: number;
  /** A database row's own seq column. */
  rowSeq?: number;
}

export interface RecordScan {
  events: DshEvent[];
  /**
   * The seqs of the events the context fold reads (surface messages, request headers, routes,
   * titles), in order: noted while scanning so the fold never walks the other ~90% of events.
   */
  contextSeqs: number[];
  diagnostics: DshDiagnostic[];
  /** dsh would refuse the log (a problem before a later turn/end). */
  corrupt: boolean;
  /** Records after the preserved prefix were dropped (a problem after the last turn/end). */
  torn: boolean;
}

const where = (p: RecordPlace): string =>
  p.line > 0 ? `line ${p.line}${p.offset !== undefined ? ` (byte ${p.offset})` : ''}` : p.rowSeq !== undefined ? `the row at seq ${p.rowSeq}` : 'a record';

function placeFields(p: RecordPlace): Pick<DshDiagnostic, 'line' | 'offset' | 'seq'> {
  return { line: p.line, ...(p.offset !== undefined ? { offset: p.offset } : {}), ...(p.rowSeq !== undefined ? { seq: p.rowSeq } : {}) };
}

/** Why a parsed value is not a storage record, or null when it is a valid event envelope. */
function envelopeProblem(v: Record<string, unknown>): string | null {
  if (typeof v.type !== 'string') return 'the record has no string type';
  if (typeof v.seq !== 'number' || !Number.isSafeInteger(v.seq) || v.seq < 0) return 'the record has no non-negative integer seq';
  if (typeof v.time !== 'number' || !Number.isFinite(v.time)) return 'the record has no numeric time';
  if (!Object.hasOwn(v, 'data')) return 'the record has no data';
  return null;
}

/** Event types the context fold (context.ts) reads; steering/message is upgraded to a user/message. */
const CONTEXT_TYPES: ReadonlySet<string> = new Set([
  'user/message', 'assistant/message', 'tool/result', 'request/header', 'request/context', 'session/title', 'steering/message',
]);

export class DshRecordScanner {
  private readonly events: DshEvent[] = [];
  private readonly contextSeqs: number[] = [];
  private readonly diagnostics: DshDiagnostic[] = [];
  private issue: { diag: DshDiagnostic; place: RecordPlace } | null = null;
  private corrupt = false;
  private dropped = 0;

  /** The events accepted so far (the contiguous prefix). */
  get length(): number {
    return this.events.length;
  }

  /** True once the log is known to be corrupt: later records change nothing. */
  get stopped(): boolean {
    return this.corrupt;
  }

  /** One complete line of UTF-8 text (without its newline). */
  addLine(text: string, place: RecordPlace): void {
    if (this.corrupt) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.unparsable(place, `the record is not valid JSON: ${JSON.stringify(text.slice(0, 80))}${text.length > 80 ? '…' : ''}`);
      return;
    }
    this.addRecord(value, place);
  }

  /** A record that could not be read at all (e.g. a database row whose data does not decode). */
  unparsable(place: RecordPlace, reason: string): void {
    if (this.corrupt) return;
    if (this.issue) {
      this.dropped++;
      return;
    }
    this.issue = { diag: { ...placeFields(place), kind: 'dsh-bad-record', message: `${where(place)}: ${reason}` }, place };
    this.dropped++;
  }

  /** One parsed storage record: an event written verbatim or a packed chunk row. */
  addRecord(value: unknown, place: RecordPlace): void {
    if (this.corrupt) return;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.unparsable(place, 'the record is not a JSON object');
      return;
    }
    const rec = value as Record<string, unknown>;
    let decoded: DshEvent[];
    if (isPackedRowTag(rec.type)) {
      const r = expandPackedRow(rec);
      if (typeof r === 'string') {
        this.unparsable(place, r);
        return;
      }
      decoded = r;
    } else {
      const problem = envelopeProblem(rec);
      if (problem) {
        this.unparsable(place, problem);
        return;
      }
      decoded = [rec as unknown as DshEvent];
      if (CONTEXT_TYPES.has(rec.type as string)) {
        // Noted before the seq check; an entry past the accepted prefix is dropped in finish().
        this.contextSeqs.push(rec.seq as number);
      }
    }

    if (this.issue) {
      this.dropped++;
      if (decoded.some((e) => e.type === 'turn/end')) this.markCorrupt(place);
      return;
    }
    const events = this.events;
    const rowStart = events.length;
    for (const e of decoded) {
      if (e.seq !== events.length) {
        const expected = events.length;
        // A packed row with a gap is dropped as a whole.
        events.length = rowStart;
        this.issue = {
          diag: { ...placeFields(place), seq: e.seq, kind: 'dsh-seq-gap', message: `${where(place)}: seq ${e.seq} where ${expected} was expected` },
          place,
        };
        this.dropped++;
        if (decoded.some((d) => d.type === 'turn/end')) this.markCorrupt(place);
        return;
      }
      events.push(e);
    }
  }

  private markCorrupt(at: RecordPlace): void {
    this.corrupt = true;
    const issue = this.issue!;
    this.diagnostics.push(issue.diag, {
      ...placeFields(issue.place),
      kind: 'dsh-corrupt',
      message:
        `corrupt log: the problem at ${where(issue.place)} comes before a turn/end at ${where(at)}, so dsh refuses to load this session; ` +
        `showing the ${this.events.length} events before it, read-only`,
    });
  }

  /**
   * Ends the scan. `tornTail` describes an incomplete final record already cut off by the
   * encoding (a line without `\n`, a torn final frame), reported together with any dropped records.
   */
  finish(tornTail?: { place: RecordPlace; message: string }): RecordScan {
    let torn = false;
    if (!this.corrupt && this.issue) {
      torn = true;
      this.diagnostics.push(this.issue.diag, {
        ...placeFields(this.issue.place),
        kind: 'torn-tail',
        message: `torn tail: ${this.dropped} record(s) from ${where(this.issue.place)} on come after the last turn/end and were dropped (dsh drops them too)`,
      });
    }
    if (tornTail && !this.corrupt) {
      torn = true;
      this.diagnostics.push({ ...placeFields(tornTail.place), kind: 'torn-tail', message: tornTail.message });
    }
    const n = this.events.length;
    // Keep the seqs that are part of the accepted prefix, in order and once each.
    const contextSeqs: number[] = [];
    let last = -1;
    for (const seq of this.contextSeqs) {
      if (seq < n && seq > last && this.events[seq]!.seq === seq) {
        contextSeqs.push(seq);
        last = seq;
      }
    }
    return { events: this.events, contextSeqs, diagnostics: this.diagnostics, corrupt: this.corrupt, torn };
  }
}
