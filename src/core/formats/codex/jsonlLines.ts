// JSON Lines fed in chunks of any size → one parsed object per physical line, or a diagnostic
// naming the line (shared by the rollout reader and the history.jsonl reader). The hardening rules
// of the xcsh reader apply: a line longer than the record cap is dropped without being held
// (`too-large`), a value nested deeper than MAX_RECORD_DEPTH is kept out (`too-deep`), NUL bytes
// are no JSON, and a last line without its newline that does not parse is a torn tail. Blank lines
// are skipped, a run of them reported once.
import { createReadStream } from 'node:fs';
import { deeperThan, DEPTH_CHECK_MIN_BYTES, MAX_RECORD_DEPTH } from '../xcsh/depth';
import { recordLimits } from '../xcsh/lineParser';
import { isObj, type CodexDiagnostic, type Obj } from './types';

const LF = 0x0a;

export class JsonlLineSplitter {
  /** The next physical line's number. */
  line: number;
  /** Bytes fed so far up to and including the last newline. */
  completeBytes = 0;
  /** Line number and offset of a last line read without its newline (a torn or still-growing tail). */
  unterminated: { line: number; offset: number } | null = null;
  #pieces: Uint8Array[] = [];
  #pieceBytes = 0;
  #lineBytes = 0;
  #overflow = false;
  #fed = 0;
  #blank: { line: number; count: number } | null = null;

  constructor(
    private readonly onObject: (value: Obj, line: number) => void,
    private readonly onDiagnostic: (d: CodexDiagnostic) => void,
    firstLine = 1,
  ) {
    this.line = firstLine;
  }

  /** Feeds the next bytes of the text. */
  push(chunk: Uint8Array): void {
    let start = 0;
    for (let nl = chunk.indexOf(LF, start); nl !== -1; nl = chunk.indexOf(LF, start)) {
      this.#fed += nl + 1 - start;
      this.completeBytes = this.#fed;
      if (this.#lineBytes === 0 && !this.#overflow && nl - start <= recordLimits.maxRecordBytes) {
        // The whole line is in this chunk: read in place, not copied.
        this.#lineBytes = nl - start;
        this.#endLine(true, chunk.subarray(start, nl));
      } else {
        this.#append(chunk.subarray(start, nl));
        this.#endLine(true);
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.#append(chunk.subarray(start));
      this.#fed += chunk.length - start;
    }
  }

  /** The end of the text: a last line without its newline is read as the CLI reads it (or is a torn tail). */
  finish(): void {
    if (this.#lineBytes > 0 || this.#overflow) {
      this.unterminated = { line: this.line, offset: this.completeBytes };
      this.#endLine(false);
    }
    this.#flushBlank();
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#lineBytes += bytes.length;
    if (this.#overflow) return;
    if (this.#lineBytes > recordLimits.maxRecordBytes) {
      this.#overflow = true;
      this.#pieces = [];
      this.#pieceBytes = 0;
      return;
    }
    // The caller may reuse its buffer: keep a copy (a Buffer's own slice() is a view, not a copy).
    this.#pieces.push(Uint8Array.prototype.slice.call(bytes));
    this.#pieceBytes += bytes.length;
  }

  #take(): Buffer {
    const one = this.#pieces.length === 1 ? this.#pieces[0]! : null;
    const buf = one ? Buffer.from(one.buffer, one.byteOffset, one.length) : Buffer.concat(this.#pieces, this.#pieceBytes);
    this.#pieces = [];
    this.#pieceBytes = 0;
    return buf;
  }

  #diag(d: CodexDiagnostic): void {
    this.#flushBlank();
    this.onDiagnostic(d);
  }

  #flushBlank(): void {
    const b = this.#blank;
    if (!b) return;
    this.#blank = null;
    this.onDiagnostic(
      b.count === 1
        ? { line: b.line, kind: 'blank', message: 'a blank line (skipped)' }
        : { line: b.line, lastLine: b.line + b.count - 1, count: b.count, kind: 'blank', message: `${b.count} blank lines (skipped)` },
    );
  }

  #endLine(terminated: boolean, inPlace?: Uint8Array): void {
    const line = this.line++;
    const length = this.#lineBytes;
    const overflow = this.#overflow;
    this.#lineBytes = 0;
    this.#overflow = false;
    if (overflow) {
      this.#take();
      this.#diag({ line, kind: 'too-large', message: `a line of ${length} bytes, longer than the ${recordLimits.maxRecordBytes}-byte record cap: skipped without being read` });
      return;
    }
    let buf = inPlace ? Buffer.from(inPlace.buffer, inPlace.byteOffset, inPlace.length) : this.#take();
    if (buf.length > 0 && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1);
    if (line === 1 && buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      buf = buf.subarray(3);
      this.#diag({ line, kind: 'bom', message: 'a UTF-8 byte-order mark before the first record (ignored)' });
    }
    if (isBlank(buf)) {
      if (this.#blank && this.#blank.line + this.#blank.count === line) this.#blank.count++;
      else {
        this.#flushBlank();
        this.#blank = { line, count: 1 };
      }
      return;
    }
    if (buf.includes(0)) {
      this.#diag({ line, kind: 'invalid-json', message: 'the line holds NUL bytes (a zeroed or sparse region, not JSON): skipped' });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8'));
    } catch (e) {
      this.#diag(
        terminated
          ? { line, kind: 'invalid-json', message: `not JSON (${(e as Error).message}): skipped` }
          : { line, kind: 'torn-tail', message: `the last line (${buf.length} bytes, no newline) is cut off: an interrupted or ongoing write, skipped` },
      );
      return;
    }
    if (!isObj(value)) {
      this.#diag({ line, kind: 'not-an-object', message: `a JSON ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}, not a record: skipped` });
      return;
    }
    if (buf.length >= DEPTH_CHECK_MIN_BYTES && deeperThan(value)) {
      this.#diag({ line, kind: 'too-deep', message: `a record nested deeper than ${MAX_RECORD_DEPTH} levels: not read` });
      return;
    }
    this.#flushBlank();
    this.onObject(value, line);
  }
}

function isBlank(buf: Uint8Array): boolean {
  for (const b of buf) if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0c) return false;
  return true;
}

/**
 * The entries of a JSONL file's lines (pushed to `lines`, then finished): `entryOf` turns each
 * object into an entry, or names why it is skipped (an `invalid-entry` diagnostic on its line).
 * Entries and diagnostics come in line order.
 */
export function jsonlEntries<E extends object>(entryOf: (value: Obj, line: number) => E | string): { entries: E[]; diagnostics: CodexDiagnostic[]; lines: JsonlLineSplitter } {
  const entries: E[] = [];
  const diagnostics: CodexDiagnostic[] = [];
  const lines = new JsonlLineSplitter(
    (v, line) => {
      const e = entryOf(v, line);
      if (typeof e === 'string') diagnostics.push({ line, kind: 'invalid-entry', message: e });
      else entries.push(e);
    },
    (d) => diagnostics.push(d),
  );
  return { entries, diagnostics, lines };
}

/** Streams a file into `lines` and finishes it. A missing file is an ENOENT error for the caller to word. */
export async function streamJsonlFile(path: string, lines: JsonlLineSplitter): Promise<void> {
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) lines.push(chunk as Buffer);
  lines.finish();
}
