// The corruption rule shared by every dsh encoding (dsh-format.md §3, JSONL `SessionLogScanner`,
// SQLite `scanRows`): records are scanned in order against the next expected seq.
// - An unparsable record or a seq gap that comes before a later record holding a `turn/end`
//   makes the log corrupt (dsh refuses it): the reader keeps the prefix before the problem.
// - After the last `turn/end` it bounds the preserved prefix: it and everything after it are the
//   torn tail, dropped.
// - A packed row containing a gap is dropped whole.
// Records after the first problem are parsed only to learn whether they hold a `turn/end`.
// Each accepted record goes to the log builder (logBuilder.ts), which stores it.
import type { RecordPlaceInText } from './eventStore';
import { DshLogBuilder, type BuiltEvents } from './logBuilder';
import { checkPackedRow, isPackedRowTag, type PackedRowShape } from './packedRows';
import type { RecordTexts } from './recordTexts';
import type { DshDiagnostic, DshEvent } from './types';

/** Where a record was read: a 1-based logical line (0 for a database row) and a byte offset. */
export interface RecordPlace {
  line: number;
  offset?: number;
  /** A database row's own seq column. */
  rowSeq?: number;
}

export interface RecordScan extends BuiltEvents {
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

export class DshRecordScanner {
  private readonly builder: DshLogBuilder;
  private readonly diagnostics: DshDiagnostic[] = [];
  private issue: { diag: DshDiagnostic; place: RecordPlace } | null = null;
  private corrupt = false;
  private dropped = 0;

  /**
   * `sessionId`: the header's id, for the legacy pass (null: none). `texts`: the stored bytes the
   * records' places point into (null: every record is kept parsed, e.g. database rows).
   */
  constructor(sessionId: string | null = null, texts: RecordTexts | null = null) {
    this.builder = new DshLogBuilder(sessionId, texts);
  }

  /** The events accepted so far (the contiguous prefix). */
  get length(): number {
    return this.builder.length;
  }

  /** True once the log is known to be corrupt: later records change nothing. */
  get stopped(): boolean {
    return this.corrupt;
  }

  /** One complete line of UTF-8 text (without its newline), at `text` in the stored bytes. */
  addLine(line: string, place: RecordPlace, text?: RecordPlaceInText): void {
    if (this.corrupt) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.unparsable(place, `the record is not valid JSON: ${JSON.stringify(line.slice(0, 80))}${line.length > 80 ? '…' : ''}`);
      return;
    }
    this.addRecord(value, place, text);
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
  addRecord(value: unknown, place: RecordPlace, text?: RecordPlaceInText): void {
    if (this.corrupt) return;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.unparsable(place, 'the record is not a JSON object');
      return;
    }
    const rec = value as Record<string, unknown>;
    let shape: PackedRowShape | null = null;
    let seq: number;
    if (isPackedRowTag(rec.type)) {
      const r = checkPackedRow(rec);
      if (typeof r === 'string') {
        this.unparsable(place, r);
        return;
      }
      shape = r;
      seq = rec.seq0 as number;
    } else {
      const problem = envelopeProblem(rec);
      if (problem) {
        this.unparsable(place, problem);
        return;
      }
      seq = rec.seq as number;
    }
    // A packed row's members are consecutive and never a turn/end: only its first seq can be a gap.
    const turnEnd = shape === null && rec.type === 'turn/end';
    if (this.issue) {
      this.dropped++;
      if (turnEnd) this.markCorrupt(place);
      return;
    }
    const expected = this.builder.length;
    if (seq !== expected) {
      // A packed row with a gap is dropped as a whole.
      this.issue = {
        diag: { ...placeFields(place), seq, kind: 'dsh-seq-gap', message: `${where(place)}: seq ${seq} where ${expected} was expected` },
        place,
      };
      this.dropped++;
      if (turnEnd) this.markCorrupt(place);
      return;
    }
    if (shape) this.builder.packedRow(rec, shape, text);
    else this.builder.event(rec as unknown as DshEvent, text);
  }

  private markCorrupt(at: RecordPlace): void {
    this.corrupt = true;
    const issue = this.issue!;
    this.diagnostics.push(issue.diag, {
      ...placeFields(issue.place),
      kind: 'dsh-corrupt',
      message:
        `corrupt log: the problem at ${where(issue.place)} comes before a turn/end at ${where(at)}, so dsh refuses to load this session; ` +
        `showing the ${this.builder.length} events before it, read-only`,
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
    return { ...this.builder.finish(), diagnostics: this.diagnostics, corrupt: this.corrupt, torn };
  }
}
