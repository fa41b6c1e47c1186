// Lenient, streaming JSONL reader (Part A "Loading", Part B §5/§6, Part C §4).
//
// Works on bytes, not on one big string: sessions reach hundreds of MB and single lines tens of MB,
// so the file is streamed in chunks, split on `\n` bytes, and each line is decoded on its own.
// Byte offsets of every record are kept so a rewrite can copy untouched records verbatim instead
// of keeping raw line strings in memory.
//
// What each line becomes is lineParser.ts's business; this file streams the bytes to it.
import { open } from 'node:fs/promises';
import type { Diagnostic } from '../../diagnostics';
import { readFileHead } from '../../store/fileHead';
import { readChunks } from '../../store/readChunks';
import { leadByte, LineParser, lineVerdict, MAX_JUNK_PARSE_BYTES, strippedBom } from './lineParser';

export interface JsonlRecord {
  value: Record<string, unknown>;
  /** 1-based physical line. Glued records share their line. */
  line: number;
  /** Byte offsets of THIS record's text in the file (`end` exclusive; excludes `\r` and `\n`). */
  start: number;
  end: number;
}

export interface UnparsedRange {
  line: number;
  /** The last line of a range over several lines (a run of unreadable lines, with the `\n`s between them). */
  lastLine?: number;
  start: number;
  end: number;
  /**
   * The range may hold a record the reader could not read (a line or piece that starts with `{`:
   * invalid JSON, a torn or too-deep record), not just text that is no record at all (plain text,
   * a JSON value that is not an object, text after a record on its line). A v1 migration never
   * links past such a range (load.ts).
   */
  record?: true;
}

/**
 * The parsed object records as parallel columns: `values[i]` was on physical line `lines[i]`, at
 * bytes `[starts[i], ends[i])`. This is how the reader stores them (no object per record); the
 * loader takes these arrays over as its own entry columns.
 */
export interface RecordColumns {
  values: Record<string, unknown>[];
  lines: number[];
  starts: number[];
  ends: number[];
}

export interface JsonlParseResult {
  /** Object records in file order, one object each: built from `columns` on first access. */
  readonly records: JsonlRecord[];
  /** The same records, as columns (what the loader reads). */
  columns: RecordColumns;
  diagnostics: Diagnostic[];
  /** Physical line count (a final line without `\n` counts; the empty rest after a final `\n` does not). */
  lines: number;
  /**
   * Byte ranges kept verbatim on rewrite, in file order: invalid JSON, non-objects (consecutive
   * such lines are one range), a torn tail or fragment, a record nested too deep.
   */
  unparsed: UnparsedRange[];
  /** The oh-my-pi fixed-width `{"type":"title"}` first line (Part B §6), not included in `records`. */
  title: JsonlRecord | null;
  /** A UTF-8 BOM precedes line 1. */
  bom: boolean;
  /** Total bytes seen. */
  bytes: number;
  /** The input ends with `\n` (or is empty). Appending to a file that does not would glue records. */
  endsWithNewline: boolean;
  /** Byte offset where the last physical line starts (0 when there is none). */
  lastLineStart: number;
  /**
   * Where a read of this input grown by appending must start to give what a full read would
   * (tail.ts): the end, or the start of the earliest part more bytes could still change — an
   * unterminated last line, a multi-line record not closed yet, a run of blank or unreadable lines
   * reaching the end (more such lines would join its one diagnostic).
   */
  resume: ReadFrom;
}

/** Where a tail read starts: a byte offset at a line start, and the number of lines before it. */
export interface ReadFrom {
  /** Absolute byte offset of the first byte to read; must be the start of a line. */
  from: number;
  /** Physical lines before `from`; the first line read is numbered `startLine + 1`. */
  startLine: number;
}

const LF = 0x0a;

/**
 * NO_STACK_TRACES: while lines are parsed, `Error.stackTraceLimit` is 0. A line JSON.parse
 * rejects costs an exception, and most of its cost is the stack trace nobody reads (only the
 * message is kept): ~4× cheaper without it, which is what a file of a million bad lines that look
 * like JSON costs. Set per read chunk, restored right after: no cost per line, no effect outside.
 */

/** Parses a whole input held in memory. Offsets are UTF-8 byte offsets of the input. */
export function parseJsonlLenient(input: string | Uint8Array): JsonlParseResult {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const p = new LineParser();
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0; // see NO_STACK_TRACES
  let result: JsonlParseResult;
  try {
    let s = 0;
    for (;;) {
      const nl = buf.indexOf(LF, s);
      if (nl === -1) break;
      p.line(buf, s, nl, s, true);
      s = nl + 1;
    }
    if (s < buf.length) p.line(buf, s, buf.length, s, false);
    result = p.finish(buf.length);
  } finally {
    Error.stackTraceLimit = limit;
  }
  result.bytes = buf.length;
  result.endsWithNewline = buf.length === 0 || buf[buf.length - 1] === LF;
  return result;
}

/** The first read: enough for a listing's prefix, a live tail or a small session in one go. */
const CHUNK = 1 << 16;
/**
 * Reads after a first full one: each read is a round trip through libuv's thread pool, and at
 * 64 KB a 5 MB session spends ~15% of its load time in those trips. Not larger: between two reads
 * V8 gets to collect, and with 1 MB reads a 46 MB session peaked ~10 MB higher.
 */
const BIG_CHUNK = 1 << 18;

/**
 * Streams a file; never holds more than one chunk plus the current line in memory.
 *
 * With `at`, reads only from `at.from` on (a live session's new tail): lines are numbered on from
 * `at.startLine`, offsets stay absolute, and `bytes` is the absolute end. A tail read sees no BOM
 * and no title line (those exist only on line 1), so it parses exactly as a full read would.
 *
 * The read buffers are reused (a read stream would allocate a fresh Buffer per chunk, and those
 * stay in RSS until a GC finds them): 64 KB for the first read, and once a read fills it, two of
 * 256 KB for the rest of the file, one parsed while the next read fills the other. That is safe
 * because nothing keeps a reference into a chunk: every line is decoded to a new string before
 * its buffer is read into again. A line that spans reads is gathered in a
 * carry buffer that only grows (to the longest such line).
 */
export interface ReadOptions {
  /** Records go here instead of the result's columns (LineParser.onRecord). */
  onRecord?: LineParser['onRecord'];
  /** Called after each read chunk's lines were parsed, with the bytes read so far (the lazy index flushes its batch and sizes its columns there). */
  onChunk?: (bytesRead: number) => void;
  /** Stops the read between chunks: the promise rejects with `abortError()`. */
  signal?: AbortSignal;
  abortError?: () => Error;
}

export async function readJsonlFile(path: string, at?: ReadFrom, opts: ReadOptions = {}): Promise<JsonlParseResult> {
  const parser = new LineParser(at?.startLine ?? 0, at?.from ?? 0);
  if (opts.onRecord) parser.onRecord = opts.onRecord;
  const lines = new ChunkLines(parser);
  const fh = await open(path, 'r');
  const start = at?.from ?? 0;
  let abs: number;
  let lastByte: number;
  try {
    ({ end: abs, lastByte } = await readChunks(
      fh,
      start,
      { first: CHUNK, next: BIG_CHUNK, stop: () => (opts.signal?.aborted ? (opts.abortError ? opts.abortError() : new Error('aborted')) : null) },
      (chunk, got, offset) => {
        lines.feed(chunk, got, offset);
        opts.onChunk?.(offset + got - start);
      },
    ));
  } finally {
    await fh.close();
  }
  const result = lines.finish(abs);
  opts.onChunk?.(abs - start);
  result.bytes = abs;
  // A tail that read nothing says nothing about the byte before it: the caller knows that one.
  result.endsWithNewline = abs === start || lastByte === LF;
  return result;
}

/**
 * Splits consecutive chunks into lines for a LineParser. Kept out of the async reader on purpose:
 * the per-line loop is the hot code V8 optimizes, and compiled on its own, as a small synchronous
 * method, it costs the optimizing compiler less memory than inside the async function's state
 * machine (whose compiler memory shows up in a small session's peak RSS).
 *
 * A line that spans reads is held in the carry buffer only while it may still be a record
 * (issue 22 §15/§18): once lineVerdict says it cannot be one whatever follows — a NUL byte, more
 * bytes than the record cap, or a long line not starting with `{` — its bytes are let go and only
 * what the parser needs to report it is kept (its range, first byte, BOM, NUL). A sparse
 * gigabyte of NULs costs a chunk, not a gigabyte.
 */
class ChunkLines {
  #carry: Buffer | null = null;
  #carryLen = 0;
  #carryStart = 0; // absolute offset of the line's first byte
  /** Bytes of the line in progress so far (0: none), held or not. */
  #lineLen = 0;
  /** The line in progress is no longer held (lineVerdict gave it up). */
  #dropped = false;
  #lineNo = 0;
  /** A record over several lines was open when the line began (its continuation lines are not `{`). */
  #joining = false;
  #hasNul = false;
  /** Its BOM length (3 when the parser strips one), and first byte after it and whitespace (-1: none yet); searched up to #leadFrom. */
  #bomLen = 0;
  #lead = -1;
  #leadFrom = 0;
  #lastByte = -1;

  constructor(readonly parser: LineParser) {}

  /** `chunk[0, got)` holds the file's bytes from absolute offset `abs`. */
  feed(chunk: Buffer, got: number, abs: number): void {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0; // see NO_STACK_TRACES
    try {
      let s = 0;
      if (this.#lineLen > 0) {
        // A line begun in an earlier read ends at this read's first `\n`, or goes on past it.
        const nl = chunk.indexOf(LF);
        if (nl === -1 || nl >= got) return this.#more(chunk, 0, got);
        this.#more(chunk, 0, nl);
        this.#endLine(true);
        s = nl + 1;
      }
      s = this.#wholeLines(chunk, s, got, abs);
      if (s < got) {
        this.#begin(abs + s);
        this.#more(chunk, s, got);
      }
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  /**
   * Parses the whole lines of `chunk[s, got)`; returns where the unterminated rest begins. The
   * hot loop, alone in its method: V8 optimises it while the first read is still in it, and
   * code after a loop that has not run yet would be compiled to deoptimise (and then compiled
   * again) on the next read.
   */
  #wholeLines(chunk: Buffer, s: number, got: number, abs: number): number {
    const p = this.parser;
    for (;;) {
      const nl = chunk.indexOf(LF, s);
      if (nl === -1 || nl >= got) return s;
      p.line(chunk, s, nl, abs + s, true);
      s = nl + 1;
    }
  }

  /** A line that continues past this read begins at absolute offset `at`. */
  #begin(at: number): void {
    this.#carryStart = at;
    this.#carryLen = 0;
    this.#lineLen = 0;
    this.#dropped = false;
    this.#lineNo = this.parser.nextLine;
    this.#joining = this.parser.joining;
    this.#hasNul = false;
    this.#bomLen = -1;
    this.#lead = -1;
    this.#leadFrom = 0;
    this.#lastByte = -1;
  }

  /** `chunk[s, e)` continues the line in progress: held, or only looked at once the line is given up. */
  #more(chunk: Buffer, s: number, e: number): void {
    if (e <= s) return;
    this.#lineLen += e - s;
    this.#lastByte = chunk[e - 1]!;
    const part = chunk.subarray(s, e);
    if (this.#dropped) {
      if (!this.#hasNul && part.indexOf(0) !== -1) this.#hasNul = true;
      if (this.#lead === -1) this.#lead = leadByte(part, 0, part.length);
      return;
    }
    const cap = this.parser.maxRecordBytes;
    const at = this.#carryLen;
    this.#carry = appendTo(this.#carry ?? Buffer.allocUnsafeSlow(Math.max(CHUNK, e - s)), at, chunk, s, e, cap + BIG_CHUNK);
    this.#carryLen += e - s;
    if (!this.#hasNul && part.indexOf(0) !== -1) this.#hasNul = true;
    const carry = this.#carry;
    // The BOM is known from the line's first 4 bytes (or its end); the first byte after it then.
    if (this.#bomLen === -1 && this.#carryLen >= 4) this.#bomLen = strippedBom(carry, 0, this.#carryLen, this.#lineNo) ? 3 : 0;
    const bom = Math.max(this.#bomLen, 0);
    const length = this.#lineLen - bom;
    // Looked for only when a long line could be given up for it (most lines never get there).
    if (this.#bomLen !== -1 && this.#lead === -1 && length > MAX_JUNK_PARSE_BYTES) {
      this.#lead = leadByte(carry, Math.max(bom, this.#leadFrom), this.#carryLen);
      this.#leadFrom = this.#carryLen;
    }
    if (lineVerdict(this.#lead, this.#hasNul, length, this.#joining, cap) === null) return;
    // Given up: what the parser needs to report it is taken from the held bytes, then they go.
    if (this.#bomLen === -1) this.#bomLen = strippedBom(carry, 0, this.#carryLen, this.#lineNo) ? 3 : 0;
    if (this.#lead === -1) this.#lead = leadByte(carry, Math.max(this.#bomLen, this.#leadFrom), this.#carryLen);
    this.#dropped = true;
    this.#carryLen = 0;
    if (carry.length > 1 << 20) this.#carry = null;
  }

  /** The line in progress ends (`terminated`: at a `\n`; else at the input's end). */
  #endLine(terminated: boolean): void {
    const len = this.#lineLen;
    this.#lineLen = 0;
    if (!this.#dropped) {
      this.#carryLen = 0;
      this.parser.line(this.#carry!, 0, len, this.#carryStart, terminated);
      return;
    }
    this.#dropped = false;
    this.parser.skippedLine({ abs: this.#carryStart, length: len, bom: this.#bomLen === 3, lead: this.#lead, hasNul: this.#hasNul, cr: this.#lastByte === CR, terminated });
  }

  /** Parses a final line without `\n`; returns the parser's result for an input of `bytes` bytes. */
  finish(bytes: number): JsonlParseResult {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0; // see NO_STACK_TRACES
    try {
      if (this.#lineLen > 0) this.#endLine(false);
      return this.parser.finish(bytes);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

const CR = 0x0d;

/**
 * Copies `src[s, e)` to `dst` at `at`, growing `dst` (doubling, to at most `most` bytes unless
 * more are needed) when needed; returns the buffer to use.
 */
function appendTo(dst: Buffer, at: number, src: Buffer, s: number, e: number, most: number): Buffer {
  const need = at + (e - s);
  if (need > dst.length) {
    const grown = Buffer.allocUnsafeSlow(Math.max(need, Math.min(dst.length * 2, most)));
    dst.copy(grown, 0, 0, at);
    dst = grown;
  }
  src.copy(dst, at, s, e);
  return dst;
}

/**
 * Reads only the first `maxBytes` (listings, Part A "Discovery"). When the file is longer, the cut
 * last line is dropped silently: it is not a torn tail, only the edge of the window.
 */
export async function readJsonlPrefix(path: string, maxBytes = 4096): Promise<JsonlParseResult & { truncated: boolean }> {
  const { data, size } = await readFileHead(path, maxBytes);
  const truncated = size > data.length;
  const lastNl = data.lastIndexOf(LF);
  const whole = !truncated ? data : lastNl === -1 ? data.subarray(0, 0) : data.subarray(0, lastNl + 1);
  // Object.assign, not a spread: `records` is a prototype getter a spread would not copy.
  return Object.assign(parseJsonlLenient(whole), { truncated });
}
