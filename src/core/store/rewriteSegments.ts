// The layout of a byte-preserving rewrite (Part C §7), shared by the guarded file rewrite
// (rewrite.ts, which streams from the file on disk) and the reference SessionManager's rewrite of
// a migrated file (test/reference/manager.ts, in memory through its storage). Pure: it only says
// which original byte ranges are copied and where each record goes; the caller decides, per
// record, whether to copy its original bytes or write it re-serialised.
import type { LoadedSession } from '../formats/xcsh/load';

export type RewriteSegment =
  /** Original bytes between records (blank lines, unparsable lines, a title line, a BOM, the tail), verbatim. */
  | { kind: 'copy'; start: number; end: number }
  /** Two records were glued on one line: the rewrite separates them. */
  | { kind: 'newline' }
  | { kind: 'header'; start: number; end: number }
  | { kind: 'entry'; index: number; start: number; end: number };

export type RecordLayout = Pick<LoadedSession, 'headerRange' | 'headerLine' | 'entryStarts' | 'entryEnds' | 'entryLines'>;

/** The rewritten file in order, for an original of `size` bytes whose records sit where `loaded` says. */
export function* rewriteSegments(loaded: RecordLayout, size: number): Generator<RewriteSegment> {
  let pos = 0; // next original byte not yet emitted
  let prevLine = -1;
  const hr = loaded.headerRange;
  for (let i = hr ? -1 : 0; i < loaded.entryStarts.length; i++) {
    const start = i < 0 ? hr!.start : loaded.entryStarts[i]!;
    const end = i < 0 ? hr!.end : loaded.entryEnds[i]!;
    const line = i < 0 ? loaded.headerLine : loaded.entryLines[i]!;
    if (start > pos) yield { kind: 'copy', start: pos, end: start };
    if (line === prevLine) yield { kind: 'newline' };
    yield i < 0 ? { kind: 'header', start, end } : { kind: 'entry', index: i, start, end };
    pos = end;
    prevLine = line;
  }
  if (size > pos) yield { kind: 'copy', start: pos, end: size };
}
