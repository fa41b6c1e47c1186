// The reader's per-line logic (Part A "Loading", Part B §5/§6/§17, Part C §4, issue 15): each
// physical line becomes records, or a diagnostic that says what happened to its bytes.
//
// Fast path = one `JSON.parse` per line. Everything else runs only on lines that fail to parse
// (or, for the depth check, on lines long enough to hide a too-deep record):
//  - glued records and torn fragments on one line are split (jsonlSplit.ts);
//  - a record spread over several lines (pretty-printed) is joined (see #startOpen);
//  - consecutive blank or unreadable lines become ONE diagnostic with a count and a line range,
//    and one unparsed byte range (lineRuns.ts);
//  - a record nested deeper than MAX_RECORD_DEPTH is kept out (depth.ts).
import type { Diagnostic } from '../../diagnostics';
import { deeperThan, DEPTH_CHECK_MIN_BYTES, MAX_RECORD_DEPTH } from './depth';
import type { JsonlParseResult, JsonlRecord, ReadFrom, RecordColumns, UnparsedRange } from './jsonl';
import { fragmentAt, isJsonWs, parseObjectAt, scanStructure, splitLine, type LinePart, type ScanState } from './jsonlSplit';
import { LineRuns } from './lineRuns';

const LF = 0x0a;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;

/**
 * Bounds of a multi-line record: past them the lines are read one by one, as if never joined.
 * Generous for any pretty-printed entry (a 100,000-element array printed one element a line),
 * and they bound the bytes held while a record is open (a torn pretty-printed record at the end
 * of a live file is held, then re-read, at most this much).
 */
export const MAX_JOIN_LINES = 100_000;
export const MAX_JOIN_BYTES = 64 << 20;

/**
 * Issue 22 §18: the longest line read as a record, 256 MiB. Real records are at most tens of MB;
 * V8 cannot make a string past ~512 MiB (`ERR_STRING_TOO_LONG`), so one such line made the whole
 * file unreadable. A longer line is a `too-large` diagnostic with its byte range (kept verbatim
 * on rewrite, which copies ranges from the file); the reader never holds more of it than this.
 * Tests lower it (`recordLimits.maxRecordBytes`, or SESSION_LOOM_MAX_RECORD_BYTES for a child
 * process) rather than allocate half a gigabyte.
 */
export const MAX_RECORD_BYTES = 256 << 20;

/**
 * Issue 22 §15: a line that does not start with `{` (after whitespace) longer than this is
 * unreadable without being parsed: no JSON value other than an object is a record, so telling an
 * array from garbage is not worth holding it. Shorter ones are parsed (kind not-an-object vs
 * invalid-json), as they always were.
 */
export const MAX_JUNK_PARSE_BYTES = 1 << 20;

function envRecordCap(): number {
  const v = Number(process.env.SESSION_LOOM_MAX_RECORD_BYTES);
  return Number.isSafeInteger(v) && v > 0 && v <= MAX_RECORD_BYTES ? v : MAX_RECORD_BYTES;
}

/** The caps the reader reads with: the defaults above; tests lower them. */
export const recordLimits = { maxRecordBytes: envRecordCap() };

/**
 * Why a line cannot be a record, from facts a streaming reader learns without holding it: it
 * holds a NUL byte (JSON text never does: a zeroed or sparse region), it is longer than the record
 * cap, or it does not start with `{` and is too long to be worth parsing. Null when it may be one.
 * `lead`: its first byte after a stripped BOM and whitespace (-1: none); `length`: its bytes
 * after a stripped BOM (`\r` included); `joining`: a record over several lines is open (its
 * continuation lines do not start with `{`).
 */
export type LineVerdict = 'nul' | 'too-large' | 'not-a-record';

export function lineVerdict(lead: number, hasNul: boolean, length: number, joining: boolean, cap: number): LineVerdict | null {
  if (hasNul) return 'nul';
  if (length > cap) return 'too-large';
  if (!joining && lead !== -1 && lead !== OPEN_BRACE && length > MAX_JUNK_PARSE_BYTES) return 'not-a-record';
  return null;
}

/** The first byte of `buf[s, e)` that is not JSON whitespace, or -1. */
export function leadByte(buf: Uint8Array, s: number, e: number): number {
  for (let i = s; i < e; i++) if (!isJsonWs(buf[i])) return buf[i]!;
  return -1;
}

/** The line `buf[s, e)` (line `lineNo`) starts with a BOM the parser strips (line 1, or before a record's `{`). */
export function strippedBom(buf: Uint8Array, s: number, e: number, lineNo: number): boolean {
  return e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf && (lineNo === 1 || (e - s > 3 && buf[s + 3] === OPEN_BRACE));
}

/** What a streaming reader knows of a line it did not hold (LineParser.skippedLine). */
export interface SkippedLine {
  /** Absolute offset of the line's first byte, and its length (without the `\n`). */
  abs: number;
  length: number;
  /** It starts with a BOM the parser strips (strippedBom). */
  bom: boolean;
  /** leadByte after the BOM. */
  lead: number;
  hasNul: boolean;
  /** Its last byte is `\r`. */
  cr: boolean;
  terminated: boolean;
}

/** A JsonlParseResult whose `records` view is materialized only when asked for (a prototype getter). */
export class ParseResult implements JsonlParseResult {
  columns: RecordColumns = { values: [], lines: [], starts: [], ends: [] };
  diagnostics: Diagnostic[] = [];
  lines = 0;
  unparsed: UnparsedRange[] = [];
  title: JsonlRecord | null = null;
  bom = false;
  bytes = 0;
  endsWithNewline = true;
  lastLineStart = 0;
  resume: ReadFrom = { from: 0, startLine: 0 };
  #records: JsonlRecord[] | null = null;

  get records(): JsonlRecord[] {
    if (this.#records === null) {
      const { values, lines, starts, ends } = this.columns;
      const out = new Array<JsonlRecord>(values.length);
      for (let i = 0; i < values.length; i++) out[i] = { value: values[i]!, line: lines[i]!, start: starts[i]!, end: ends[i]! };
      this.#records = out;
    }
    return this.#records;
  }
}

/** A line starting an object that it does not close: maybe the first line of a pretty-printed record. */
interface OpenRecord {
  firstLine: number;
  /** Why the first line did not parse on its own (it is unreadable if the join is abandoned). */
  firstError: string;
  /** The file's bytes from the first line's start, as read so far (line ends included). */
  buf: Buffer;
  len: number;
  state: ScanState;
  /** Per line joined: where it starts and ends (its `\r` included, `\n` not) in `buf`, and its absolute offset. */
  starts: number[];
  ends: number[];
  absStarts: number[];
  /** The last line joined had no `\n` (the input's end). */
  lastUnterminated: boolean;
  /**
   * Where a tail read resumes while the record is open: the start of its first line (before
   * absStarts[0] when it opens after other records on that line), or of the first line of the
   * record over several lines that closed on that line — a read from the line itself would not
   * see that record close.
   */
  resumeFrom: number;
  resumeLine: number;
  /** The record opens after complete records on its line (`{…}{` + pretty-printed lines): what that line's split still has to report. */
  glued: PendingGlue | null;
}

/** Where a piece of a line may start a record over several lines: the line's end in its buffer (`\r` included), and where a tail read resumes while it is open. */
interface JoinAt {
  e: number;
  resumeFrom: number;
  resumeLine: number;
}

/** The findings of a line whose last piece opened a record over several lines, reported once the join closes or is abandoned. */
interface PendingGlue {
  /** Pieces on the line, the open one included, and the records read among them. */
  pieces: number;
  recovered: number;
  /** Findings about the other pieces, after the glued-records note. */
  diags: Diagnostic[];
  /** Absolute end of the open piece's text on its first line (whitespace excluded): its bytes if the join is abandoned. */
  fragEnd: number;
}

/** Accumulates lines into a result. Shared by the string, stream and prefix readers. */
export class LineParser {
  readonly result = new ParseResult();
  readonly #runs = new LineRuns(this.result);
  /**
   * The buffer an open record is gathered in, kept for the next one (one record is open at a
   * time): a flood of `{` lines would otherwise allocate a buffer per line, and RSS grew by
   * hundreds of MB of such garbage before the GC ran.
   */
  #openBuf: Buffer = Buffer.allocUnsafeSlow(4096);
  #open: OpenRecord | null = null;
  #resume: ReadFrom | null = null;
  /**
   * When set, records go to this sink instead of `result.columns` (the lazy index keeps what it
   * needs of each and drops the value, issue 11). Everything else — diagnostics, unparsed ranges,
   * the title line, `resume` — is kept as usual.
   */
  onRecord: ((value: Record<string, unknown>, line: number, start: number, end: number) => void) | null = null;
  #sunk = 0;

  /** The longest line read as a record (recordLimits.maxRecordBytes when the parser was made). */
  readonly maxRecordBytes: number;

  constructor(startLine = 0, from = 0, maxRecordBytes = recordLimits.maxRecordBytes) {
    this.maxRecordBytes = maxRecordBytes;
    this.result.lines = startLine;
    this.result.lastLineStart = from;
  }

  /**
   * One physical line: bytes `buf[s, e)` (without the `\n`), starting at absolute offset `abs`.
   * `terminated` is false only for a final line with no `\n`. `buf` may be reused after the call.
   */
  line(buf: Buffer, s: number, e: number, abs: number, terminated: boolean): void {
    const r = this.result;
    const lineNo = ++r.lines;
    r.lastLineStart = abs;
    if (!terminated) this.#resume = this.#openPoint(lineNo, abs);
    if (strippedBom(buf, s, e, lineNo)) {
      this.#bom(lineNo);
      s += 3;
      abs += 3;
    }
    if (this.#open !== null) return this.#continueOpen(buf, s, e, abs, lineNo, terminated);
    // The fast path, inline (as #one, which reads the lines of an abandoned join, does it too):
    // a line starting with `{` that parses to an object, not long enough to be too deep.
    let ce = e;
    if (ce > s && buf[ce - 1] === CR) ce--;
    if (buf[s] === OPEN_BRACE && ce - s <= DEPTH_CHECK_MIN_BYTES) {
      let value: unknown;
      try {
        value = JSON.parse(buf.toString('utf8', s, ce));
      } catch (err) {
        return this.#unparsable(buf, s, ce, e, abs, lineNo, terminated, true, err as Error);
      }
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return this.#record(value as Record<string, unknown>, lineNo, abs, abs + (ce - s));
    }
    this.#one(buf, s, e, abs, lineNo, terminated, true);
  }

  /** A record over several lines is open: the next line is read as its continuation. */
  get joining(): boolean {
    return this.#open !== null;
  }

  /** The number the next line gets. */
  get nextLine(): number {
    return this.result.lines + 1;
  }

  /**
   * A line a streaming reader did not hold, because lineVerdict says it cannot be a record
   * whatever its remaining bytes (issue 22 §15/§18): read exactly as line() reads the same bytes.
   */
  skippedLine(l: SkippedLine): void {
    const r = this.result;
    const lineNo = ++r.lines;
    let abs = l.abs;
    r.lastLineStart = abs;
    if (!l.terminated) this.#resume = this.#openPoint(lineNo, abs);
    let length = l.length;
    if (l.bom) {
      this.#bom(lineNo);
      abs += 3;
      length -= 3;
    }
    const verdict = lineVerdict(l.lead, l.hasNul, length, false, this.maxRecordBytes);
    if (verdict === null) throw new Error(`internal: line ${lineNo} was not held, yet it may be a record`);
    if (this.#open !== null) this.#abandonOpen();
    this.#skip(verdict, lineNo, abs, abs + length - (l.cr ? 1 : 0), l.lead, l.terminated);
  }

  /** A BOM stripped at the start of line `lineNo`. */
  #bom(lineNo: number): void {
    // A BOM starts line 1 of a file, and the first line of each further file when files are
    // joined end to end (`cat a.jsonl b.jsonl`, issue 22 §3): there it is stripped before a
    // record's `{` (anything else after it stays one unreadable line, the BOM in its bytes).
    const r = this.result;
    if (lineNo === 1) {
      r.bom = true;
      r.diagnostics.push({ line: 1, kind: 'bom', message: 'UTF-8 byte-order mark before the first record (ignored, kept on rewrite)' });
    } else {
      if (this.#open !== null) this.#abandonOpen();
      this.#runs.flush();
      r.diagnostics.push({ line: lineNo, kind: 'bom', message: 'UTF-8 byte-order mark at the start of the line (files joined end to end?); ignored, the line read after it, the mark kept on rewrite' });
    }
  }

  /** The verdict on line `buf[s, e)` when it cannot be a record (lineVerdict), else null. */
  #verdictOf(buf: Buffer, s: number, e: number): LineVerdict | null {
    // (on a view of the line: indexOf on `buf` from `s` would search the rest of an input held whole)
    const hasNul = buf.subarray(s, e).indexOf(0) !== -1;
    return lineVerdict(hasNul || e - s > this.maxRecordBytes ? -1 : leadByte(buf, s, e), hasNul, e - s, this.#open !== null, this.maxRecordBytes);
  }

  /**
   * A line that cannot be a record, at bytes [start, end) (`\r` excluded): reported with its
   * range, its bytes never parsed (a rewrite copies them from the file).
   */
  #skip(verdict: LineVerdict, lineNo: number, start: number, end: number, lead: number, terminated: boolean): void {
    const braced = lead === OPEN_BRACE;
    const len = end - start;
    if (!terminated) return this.#tornTail(lineNo, start, end, verdict === 'nul' ? 'it holds NUL bytes: a zeroed or sparse region' : verdict === 'too-large' ? `longer than the ${this.maxRecordBytes} bytes a record may have` : null);
    if (verdict === 'too-large') {
      this.#runs.flush();
      const r = this.result;
      r.unparsed.push(braced ? { line: lineNo, start, end, record: true } : { line: lineNo, start, end });
      r.diagnostics.push({ line: lineNo, kind: 'too-large', message: `a line of ${len} bytes (bytes ${start}–${end}) is longer than the ${this.maxRecordBytes} bytes a record may have; not read (the rest of the session is), kept verbatim` });
      return;
    }
    const why =
      verdict === 'nul'
        ? `is not a record: it holds a NUL byte (JSON text never does: a zeroed or sparse region); ${len} bytes not read into memory`
        : `is not a record: it starts with byte 0x${lead.toString(16).padStart(2, '0')}, not "{"; ${len} bytes not parsed`;
    this.#runs.junk(lineNo, start, end, braced, 'invalid-json', why);
  }

  /**
   * The end of the input, `bytes` long: a record still open is read line by line after all,
   * pending runs become diagnostics, and `resume` is set.
   */
  finish(bytes: number): ParseResult {
    this.#resume ??= this.#openPoint(this.result.lines + 1, bytes);
    if (this.#open !== null) this.#abandonOpen();
    this.#runs.flush();
    this.result.resume = this.#resume;
    return this.result;
  }

  /**
   * Where a read of the grown input must resume to parse as a full read would: the start of the
   * earliest thing more bytes could still change — a run of blank or unreadable lines reaching
   * the end (more such lines extend it), a record still open, an unterminated last line.
   * `edgeLine` / `edgeFrom`: the first line not yet final (the unterminated one, or the one after
   * the last).
   */
  #openPoint(edgeLine: number, edgeFrom: number): ReadFrom {
    let line = edgeLine;
    let from = edgeFrom;
    const o = this.#open;
    if (o !== null) {
      line = o.resumeLine;
      from = o.resumeFrom;
    }
    const run = this.#runs.reaching(line - 1);
    if (run !== null) {
      line = run.line;
      from = run.from;
    }
    return { from, startLine: line - 1 };
  }

  /** A line read on its own. `mayJoin`: it may start a multi-line record. */
  #one(buf: Buffer, s: number, e: number, abs: number, lineNo: number, terminated: boolean, mayJoin: boolean): void {
    // CRLF: the record's text ends before the `\r` (JSON.parse would accept it, but offsets must not).
    let ce = e;
    if (ce > s && buf[ce - 1] === CR) ce--;
    const verdict = this.#verdictOf(buf, s, e);
    if (verdict !== null) return this.#skip(verdict, lineNo, abs, abs + (ce - s), leadByte(buf, s, e), terminated);
    // Lines that cannot be JSON skip JSON.parse: a failed parse builds an exception (~20 µs), and a
    // file of millions of blank lines spent minutes on them. A record line pays one byte compare.
    if (buf[s] !== OPEN_BRACE && !mayStartJson(buf, s, ce)) return this.#notJson(buf, s, ce, abs, lineNo, terminated);
    const text = buf.toString('utf8', s, ce);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.#unparsable(buf, s, ce, e, abs, lineNo, terminated, mayJoin, err as Error);
      return;
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      if (ce - s > DEPTH_CHECK_MIN_BYTES && deeperThan(value)) this.#tooDeep(lineNo, lineNo, abs, abs + (ce - s));
      else this.#record(value as Record<string, unknown>, lineNo, abs, abs + (ce - s));
    } else {
      this.#runs.junk(lineNo, abs, abs + (ce - s), false, 'not-an-object', `is valid JSON but not an object (${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value})`);
    }
  }

  #record(value: Record<string, unknown>, line: number, start: number, end: number): void {
    const r = this.result;
    // Part B §6: newer oh-my-pi files start with a fixed-width title line; the header is line 2.
    const c = r.columns;
    if (line === 1 && c.values.length === 0 && this.#sunk === 0 && value.type === 'title') {
      this.#runs.flush();
      r.title = { value, line, start, end };
      r.diagnostics.push({ line, kind: 'title-line', message: 'oh-my-pi fixed-width title line (header read from line 2)' });
      return;
    }
    if (this.onRecord !== null) {
      this.#sunk++;
      this.onRecord(value, line, start, end);
      return;
    }
    c.values.push(value);
    c.lines.push(line);
    c.starts.push(start);
    c.ends.push(end);
  }

  /** A line JSON.parse was not even tried on: blank, or not starting like any JSON value. */
  #notJson(buf: Buffer, s: number, ce: number, abs: number, lineNo: number, terminated: boolean): void {
    let i = s;
    while (i < ce && isJsonWs(buf[i])) i++;
    if (i === ce) return this.#runs.blank(lineNo, abs);
    if (!terminated) return this.#tornTail(lineNo, abs, abs + (ce - s));
    this.#runs.junk(lineNo, abs, abs + (ce - s), false, 'invalid-json', () => `could not be parsed as JSON (${parseErrorOf(buf.toString('utf8', s, ce))})`);
  }

  #unparsable(buf: Buffer, s: number, ce: number, e: number, abs: number, lineNo: number, terminated: boolean, mayJoin: boolean, err: Error): void {
    const verdict = this.#verdictOf(buf, s, e);
    if (verdict !== null) return this.#skip(verdict, lineNo, abs, abs + (ce - s), leadByte(buf, s, e), terminated);
    const parts = splitLine(buf, s, ce);
    if (parts) return this.#split(buf, parts, abs - s, lineNo, 0, mayJoin && terminated ? { e, resumeFrom: this.result.lastLineStart, resumeLine: lineNo } : null);
    const why = `could not be parsed as JSON (${err.message.slice(0, 120)})`;
    if (mayJoin && terminated && buf[s] === OPEN_BRACE && this.#startOpen(buf, s, ce, e, abs, lineNo, why)) return;
    if (!terminated) return this.#tornTail(lineNo, abs, abs + (ce - s));
    let k = s;
    while (k < ce && isJsonWs(buf[k])) k++;
    this.#runs.junk(lineNo, abs, abs + (ce - s), buf[k] === OPEN_BRACE, 'invalid-json', why);
  }

  #tornTail(lineNo: number, start: number, end: number, why: string | null = null): void {
    this.#runs.flush();
    this.result.unparsed.push({ line: lineNo, start, end, record: true });
    this.result.diagnostics.push({ line: lineNo, kind: 'torn-tail', message: `last line is an unterminated fragment of ${end - start} bytes (an interrupted write${why === null ? '' : `; ${why}`}); skipped, kept verbatim` });
  }

  #tooDeep(line: number, lastLine: number, start: number, end: number): void {
    this.#runs.flush();
    const r = this.result;
    r.unparsed.push(lastLine > line ? { line, lastLine, start, end, record: true } : { line, start, end, record: true });
    const where = lastLine > line ? ` (lines ${line}–${lastLine})` : '';
    r.diagnostics.push({
      line,
      ...(lastLine > line ? { lastLine } : {}),
      kind: 'too-deep',
      message: `record nested deeper than ${MAX_RECORD_DEPTH} levels${where}; not read (the rest of the session is), kept verbatim`,
    });
  }

  /**
   * A line holding records and at most one fragment (jsonlSplit.ts); `base` turns part offsets
   * absolute. `before`: records already read on this line (the rest of a line after a record
   * over several lines closed on it). `join` (the line may start a join: its absolute start, and
   * where it ends in `buf`, its `\r` included): a last piece that opens an object outside any string may be the first line of a
   * pretty-printed record glued to the records before it (issue 22 §2) — it is joined with the
   * lines after it, and this line's findings wait for the join to close or be abandoned.
   */
  #split(buf: Buffer, parts: LinePart[], base: number, lineNo: number, before: number, join: JoinAt | null): void {
    this.#runs.flush();
    const r = this.result;
    const diags: Diagnostic[] = [];
    let recovered = before;
    let pieces = before;
    let n = parts.length;
    const last = parts[n - 1]!;
    let opens = false;
    if (join !== null && last.fragment === 'torn') {
      const state: ScanState = { depth: 0, inString: false };
      opens = scanStructure(buf, last.start, last.end, state) === -1 && !state.inString && state.depth > 0;
      if (opens) n--;
    }
    for (let k = 0; k < n; k++) {
      const p = parts[k]!;
      const start = base + p.start;
      const end = base + p.end;
      if (p.value !== null) {
        pieces++;
        if (end - start > DEPTH_CHECK_MIN_BYTES && deeperThan(p.value)) {
          r.unparsed.push({ line: lineNo, start, end, record: true });
          diags.push({ line: lineNo, kind: 'too-deep', message: `a glued record (bytes ${start}–${end}) is nested deeper than ${MAX_RECORD_DEPTH} levels; not read, kept verbatim` });
        } else {
          recovered++;
          this.#record(p.value, lineNo, start, end);
        }
        continue;
      }
      if (p.fragment === 'trailing') {
        r.unparsed.push({ line: lineNo, start, end });
        diags.push({ line: lineNo, kind: 'trailing-text', message: `${describeTrailing(buf, p.start, p.end)} after the record on this line (bytes ${start}–${end}) is not a record; the record is read as the agent reads it, the text skipped and kept verbatim` });
        continue;
      }
      r.unparsed.push({ line: lineNo, start, end, record: true });
      pieces++;
      diags.push(
        p.fragment === 'torn'
          ? { line: lineNo, kind: 'torn-record', message: `bytes ${start}–${end} are a record cut short (${end - start} bytes, an interrupted write) beside complete records on the same line; kept verbatim` }
          : { line: lineNo, kind: 'invalid-json', message: `the glued record text at bytes ${start}–${end} could not be parsed; kept verbatim` },
      );
    }
    if (join !== null && opens) {
      const glued: PendingGlue = { pieces: pieces + 1, recovered, diags, fragEnd: base + last.end };
      this.#startOpen(buf, last.start, last.end, join.e, base + last.start, lineNo, '', join, glued);
      return;
    }
    this.#reportLine(lineNo, pieces, recovered, diags);
  }

  /** A split line's findings: the glued-records note (when two pieces or more were glued), then the others. */
  #reportLine(lineNo: number, pieces: number, recovered: number, diags: Diagnostic[]): void {
    const r = this.result;
    if (pieces >= 2) r.diagnostics.push({ line: lineNo, kind: 'glued-records', message: `${pieces} records glued on one line (no newline between them); split, ${recovered} recovered` });
    for (const d of diags) r.diagnostics.push(d);
  }

  /**
   * The rest of a line after `before` records were read from it (a record over several lines
   * closed on it): nothing but whitespace; records and fragments glued to it, read as a line of
   * their own would be; or trailing text (Part B §18).
   */
  #afterRecord(buf: Buffer, s: number, ce: number, e: number, abs: number, lineNo: number, terminated: boolean, before: number, resume: { from: number; line: number }): void {
    let i = s;
    while (i < ce && isJsonWs(buf[i])) i++;
    if (i === ce) return;
    let j = ce;
    while (j > i && isJsonWs(buf[j - 1])) j--;
    let parts: LinePart[] | null = null;
    if (buf[i] === OPEN_BRACE) {
      const whole = parseObjectAt(buf, i, j);
      parts = whole !== null ? [{ start: i, end: j, value: whole, fragment: null }] : splitLine(buf, i, j);
    }
    this.#split(buf, parts ?? [fragmentAt(buf, i, j)], abs - s, lineNo, before, terminated ? { e, resumeFrom: resume.from, resumeLine: resume.line } : null);
  }

  // ---- records spread over several lines (Part B §17) ----------------------------------------

  /**
   * Upstream reads a pretty-printed object over several lines as one record. A line is joined with
   * the lines after it when it starts with `{` in column 0, does not parse, and its structural
   * scan ends inside that object — outside any string: JSON strings cannot hold a raw newline, so
   * the newline is structural and the object goes on. The record ends at the line where the depth
   * returns to 0 (only whitespace may follow it there) and must then parse as one object.
   *
   * Anything else abandons the join, and its lines are read one by one as if never joined: a
   * line ending inside a string, a closing line with more after the `}`, a join that does not
   * parse, one past MAX_JOIN_LINES / MAX_JOIN_BYTES, the end of the input, and a line starting
   * with `{` in column 0 (pretty printers indent what is inside a record, so that is the next
   * record: a torn pretty-printed record never swallows the records written after it). Each line
   * is thus scanned at most twice — once joined, once alone — and the lines of an abandoned join
   * cannot start a join themselves (none starts with `{` in column 0 but the first).
   */
  #startOpen(buf: Buffer, s: number, ce: number, e: number, abs: number, lineNo: number, firstError: string, at: JoinAt | null = null, glued: PendingGlue | null = null): boolean {
    const state: ScanState = { depth: 0, inString: false };
    if (scanStructure(buf, s, ce, state) !== -1 || state.inString || state.depth <= 0) return false;
    const resumeFrom = at?.resumeFrom ?? abs;
    const resumeLine = at?.resumeLine ?? lineNo;
    const o: OpenRecord = { firstLine: lineNo, firstError, buf: this.#openBuf, len: 0, state, starts: [], ends: [], absStarts: [], lastUnterminated: false, resumeFrom, resumeLine, glued };
    this.#open = o;
    appendLine(o, buf, s, e, abs, true);
    return true;
  }

  #continueOpen(buf: Buffer, s: number, e: number, abs: number, lineNo: number, terminated: boolean): void {
    const o = this.#open!;
    // A NUL byte or a line past the cap cannot continue a record either (issue 22 §15/§18).
    if (buf[s] === OPEN_BRACE || this.#verdictOf(buf, s, e) !== null) {
      this.#abandonOpen();
      return this.#one(buf, s, e, abs, lineNo, terminated, true);
    }
    let ce = e;
    if (ce > s && buf[ce - 1] === CR) ce--;
    const at = o.len;
    appendLine(o, buf, s, e, abs, terminated);
    const textEnd = at + (ce - s);
    const close = scanStructure(o.buf, at, textEnd, o.state);
    if (close === -1) {
      if (o.state.inString || o.starts.length >= MAX_JOIN_LINES || o.len >= MAX_JOIN_BYTES) this.#abandonOpen();
      return;
    }
    let rest = close;
    while (rest < textEnd && isJsonWs(o.buf[rest])) rest++;
    // More after the closing `}` on its line (issue 22 §2, Part B §18): the record is read, and the
    // rest of the line after it as the rest of a glued line is.
    const value = parseObjectAt(o.buf, 0, rest === textEnd ? textEnd : close);
    if (value === null) return this.#abandonOpen();
    this.#open = null;
    this.#keepBuffer(o.buf);
    this.#runs.flush();
    const start = o.absStarts[0]!;
    const end = rest === textEnd ? abs + (ce - s) : abs + (close - at);
    const deep = close > DEPTH_CHECK_MIN_BYTES && deeperThan(value);
    const g = o.glued;
    if (g !== null) this.#reportLine(o.firstLine, g.pieces, g.recovered + (deep ? 0 : 1), g.diags);
    if (deep) this.#tooDeep(o.firstLine, lineNo, start, end);
    else {
      this.#record(value, o.firstLine, start, end);
      this.result.diagnostics.push({
        line: o.firstLine,
        lastLine: lineNo,
        kind: 'multi-line-record',
        message: `one record spread over lines ${o.firstLine}–${lineNo} (pretty-printed JSON); read as one record, as the agent does`,
      });
    }
    if (rest < textEnd) this.#afterRecord(buf, s + (close - at), ce, e, abs + (close - at), lineNo, terminated, 1, { from: o.resumeFrom, line: o.resumeLine });
  }

  /** Reads the lines of an open record one by one, as if they had never been joined. */
  #abandonOpen(): void {
    const o = this.#open!;
    this.#open = null;
    this.#keepBuffer(o.buf); // (read below, before any other record can open)
    // The first line is known: it did not parse, nor split, and it was terminated (a join starts
    // only on such a line). Reading it again would only pay for the same exception twice.
    const g = o.glued;
    if (g !== null) {
      // The open piece was a fragment glued after records: reported as splitLine's split reports it.
      const start = o.absStarts[0]!;
      const r = this.result;
      r.unparsed.push({ line: o.firstLine, start, end: g.fragEnd, record: true });
      g.diags.push({ line: o.firstLine, kind: 'torn-record', message: `bytes ${start}–${g.fragEnd} are a record cut short (${g.fragEnd - start} bytes, an interrupted write) beside complete records on the same line; kept verbatim` });
      this.#reportLine(o.firstLine, g.pieces, g.recovered, g.diags);
    } else {
      let firstEnd = o.ends[0]!;
      if (firstEnd > 0 && o.buf[firstEnd - 1] === CR) firstEnd--;
      this.#runs.junk(o.firstLine, o.absStarts[0]!, o.absStarts[0]! + firstEnd, true, 'invalid-json', o.firstError);
    }
    const n = o.starts.length;
    for (let k = 1; k < n; k++) {
      const terminated = k < n - 1 || !o.lastUnterminated;
      this.#one(o.buf, o.starts[k]!, o.ends[k]!, o.absStarts[k]!, o.firstLine + k, terminated, false);
    }
  }

  /** Keeps a grown open-record buffer for the next record, unless it grew past 1 MB (then the next one starts small). */
  #keepBuffer(buf: Buffer): void {
    this.#openBuf = buf.length <= 1 << 20 ? buf : Buffer.allocUnsafeSlow(4096);
  }
}

/** Copies line `buf[s, e)` (its `\r` included) and its `\n` into an open record's buffer: the file's bytes. */
function appendLine(o: OpenRecord, buf: Buffer, s: number, e: number, abs: number, terminated: boolean): void {
  const need = o.len + (e - s) + 1;
  if (need > o.buf.length) {
    const grown = Buffer.allocUnsafe(Math.max(need, 2 * o.buf.length));
    o.buf.copy(grown, 0, 0, o.len);
    o.buf = grown;
  }
  o.starts.push(o.len);
  o.absStarts.push(abs);
  buf.copy(o.buf, o.len, s, e);
  o.len += e - s;
  o.ends.push(o.len);
  if (terminated) o.buf[o.len++] = LF;
  o.lastUnterminated = !terminated;
}

/**
 * Whether `buf[s, e)` may be JSON at all: its first byte after whitespace can start a value
 * (`{ [ " -`, a digit, or the start of true / false / null). Runs only on lines not starting
 * with `{`.
 */
function mayStartJson(buf: Buffer, s: number, e: number): boolean {
  let i = s;
  while (i < e && isJsonWs(buf[i])) i++;
  if (i === e) return false;
  const c = buf[i]!;
  if (c === OPEN_BRACE || c === 0x5b || c === 0x22 || c === 0x2d || (c >= 0x30 && c <= 0x39)) return true;
  const word = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : null;
  if (word === null || e - i < word.length) return false;
  for (let k = 1; k < word.length; k++) if (buf[i + k] !== word[k]) return false;
  return true;
}

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

/** Trailing text for a diagnostic: its first characters, quoted. */
function describeTrailing(buf: Buffer, s: number, e: number): string {
  const text = buf.toString('utf8', s, Math.min(e, s + 40));
  return `the text ${JSON.stringify(e - s > 40 ? `${text}…` : text)}`;
}

function parseErrorOf(text: string): string {
  try {
    JSON.parse(text);
    return 'unknown error';
  } catch (e) {
    return (e as Error).message.slice(0, 120);
  }
}
