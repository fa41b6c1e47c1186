// Runs of blank and unreadable lines, reported once each (issue 15 point 12): "1,000,000 blank
// lines" is one finding, not a million. A file of ten million junk lines used to hold ten million
// diagnostics and unparsed ranges (GBs, then a heap abort); now it holds one of each.
//
// A run is consecutive lines of one sort:
//  - unreadable lines (invalid JSON, valid JSON that is not an object), with the blank lines
//    between them: one diagnostic (kind invalid-json when any line is, else not-an-object) and
//    one unparsed range from the first one's start to the last one's end;
//  - blank lines not between two unreadable lines (before or after a run, among records): one
//    `blank` diagnostic.
// A diagnostic over several lines has `line` (the first), `lastLine` and `count`.
import type { Diagnostic, DiagnosticKind } from '../../diagnostics';
import type { UnparsedRange } from './jsonl';

/** Consecutive unreadable lines (invalid JSON, not objects), with the blank lines between them. */
interface JunkRun {
  startLine: number;
  startByte: number;
  /** The last unreadable line, and where its text ends. */
  endLine: number;
  endByte: number;
  invalid: number;
  notObjects: number;
  /** Blank lines between the first and the last unreadable line. */
  blanks: number;
  /** What was wrong with the first line. */
  first: string;
  /** A line of the run starts with `{`: it may be a record the reader could not read (UnparsedRange.record). */
  record: boolean;
}

/** Consecutive blank lines not (yet) inside a junk run. */
interface BlankRun {
  startLine: number;
  startByte: number;
  endLine: number;
}

/**
 * The pending runs of a LineParser. A line that is a record says nothing to it: a run ends when
 * the next blank or unreadable line is not the very next line (or when the parser flushes before
 * a diagnostic of its own), so the parser's fast path does no work for it.
 */
export class LineRuns {
  #junk: JunkRun | null = null;
  #blanks: BlankRun | null = null;

  constructor(private readonly result: { diagnostics: Diagnostic[]; unparsed: UnparsedRange[] }) {}

  /** The last line of the pending runs, or -1. */
  #end(): number {
    return this.#blanks?.endLine ?? this.#junk?.endLine ?? -1;
  }

  /**
   * Where the pending runs start, when they reach line `line`: more lines after it could still
   * join them (a tail read must start there). Null otherwise.
   */
  reaching(line: number): { line: number; from: number } | null {
    if (this.#end() !== line) return null;
    const start = this.#junk ?? this.#blanks!;
    return { line: start.startLine, from: start.startByte };
  }

  blank(lineNo: number, abs: number): void {
    if (this.#end() !== lineNo - 1) this.flush();
    if (this.#blanks !== null) this.#blanks.endLine = lineNo;
    else this.#blanks = { startLine: lineNo, startByte: abs, endLine: lineNo };
  }

  /**
   * An unreadable line at bytes [start, end); `first` (or the function giving it) is only used when
   * it starts a run. `braced`: the line starts with `{` (it may be a record).
   */
  junk(lineNo: number, start: number, end: number, braced: boolean, kind: 'invalid-json' | 'not-an-object', first: string | (() => string)): void {
    if (this.#end() !== lineNo - 1) this.flush();
    let j = this.#junk;
    if (j !== null) {
      // Blank lines between two unreadable lines belong to the run.
      if (this.#blanks !== null) {
        j.blanks += this.#blanks.endLine - this.#blanks.startLine + 1;
        this.#blanks = null;
      }
    } else {
      this.flush(); // blank lines before the first unreadable line stay a finding of their own
      j = this.#junk = { startLine: lineNo, startByte: start, endLine: lineNo, endByte: end, invalid: 0, notObjects: 0, blanks: 0, first: typeof first === 'string' ? first : first(), record: false };
    }
    if (braced) j.record = true;
    j.endLine = lineNo;
    j.endByte = end;
    if (kind === 'invalid-json') j.invalid++;
    else j.notObjects++;
  }

  /** Turns the pending runs into diagnostics (and the junk run into one unparsed range), in line order. */
  flush(): void {
    const r = this.result;
    const j = this.#junk;
    if (j !== null) {
      this.#junk = null;
      const count = j.invalid + j.notObjects;
      const kind: DiagnosticKind = j.invalid > 0 ? 'invalid-json' : 'not-an-object';
      let message: string;
      if (count === 1) message = `line ${j.first}; skipped, kept verbatim`;
      else {
        const what = j.notObjects === 0 ? 'could not be parsed as JSON' : j.invalid === 0 ? 'are valid JSON but not objects' : `could not be read as records (${j.invalid} not valid JSON, ${j.notObjects} valid JSON but not objects)`;
        const blanks = j.blanks > 0 ? `, with ${j.blanks} blank line${j.blanks > 1 ? 's' : ''} among them` : '';
        message = `${count} lines ${what} (lines ${j.startLine}–${j.endLine}${blanks}; the first ${j.first}); skipped, kept verbatim`;
      }
      const range = j.endLine > j.startLine ? { lastLine: j.endLine } : {};
      r.diagnostics.push({ line: j.startLine, ...range, ...(count > 1 ? { count } : {}), kind, message });
      r.unparsed.push({ line: j.startLine, ...range, start: j.startByte, end: j.endByte, ...(j.record ? { record: true as const } : {}) });
    }
    const b = this.#blanks;
    if (b !== null) {
      this.#blanks = null;
      const count = b.endLine - b.startLine + 1;
      r.diagnostics.push(
        count === 1
          ? { line: b.startLine, kind: 'blank', message: 'blank line (skipped)' }
          : { line: b.startLine, lastLine: b.endLine, count, kind: 'blank', message: `${count} blank lines (lines ${b.startLine}–${b.endLine}; skipped)` },
      );
    }
  }
}
