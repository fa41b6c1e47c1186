// What a session answers the command line (issue 23): every format's model gives the same
// documents — the context at a node, its records, its tree, its doctor's report — as data, and the
// CLI prints them without knowing which agent wrote the file. A document can be far bigger than
// the memory a command should hold (a 2 GB session's entries), so arrays come in windows and
// trees as batches of lines. The terminal is the CLI's business: nothing here escapes text.
import type { Diagnostic, DiagnosticSeverity } from '../diagnostics';

/** A member whose value is an array given in windows: `stream` calls `emit` with each window, in order. */
export interface StreamedArray {
  stream: (emit: (items: readonly unknown[]) => void | Promise<void>) => Promise<void>;
}

/** One member of a JSON object document: the value as it is, or an array streamed in windows. */
export type Member = readonly [key: string, value: unknown];

export function isStreamed(v: unknown): v is StreamedArray {
  return typeof v === 'object' && v !== null && typeof (v as StreamedArray).stream === 'function';
}

/** The command-line options a document is asked with (node:util parseArgs values). */
export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

/**
 * A request the session cannot answer (an unknown entry, a seq out of range, a session not in the
 * store): `detail` says what, and the message says it against the file when the file is given.
 */
export class TargetError extends Error {
  constructor(
    readonly detail: string,
    path?: string,
  ) {
    super(path !== undefined ? `${path}: ${detail}` : detail);
    this.name = 'TargetError';
  }
}

/** A command or an option that does not apply to this session (a usage error). */
export class OptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionError';
  }
}

/** A JSON object document and the findings to warn about before it. */
export interface JsonAnswer {
  warnings: readonly Diagnostic[];
  members: readonly Member[];
}

/** One row of the text tree: its prefix, id, one-line preview, label and the default leaf's mark. */
export interface TreeLine {
  lead: string;
  id: string;
  preview: string;
  label?: string;
  leaf?: true;
  /** The first row of a second (or later) root: a tree of its own, set apart from the one before. */
  newTree?: true;
}

export interface TreeTextAnswer {
  warnings: readonly Diagnostic[];
  /** Sentences about the file as a whole, said after its path (an empty file). */
  notes: readonly string[];
  /** The rows in order, a batch at a time. */
  lines: (emit: (lines: readonly TreeLine[]) => void) => Promise<void>;
}

export interface DoctorReport {
  /** The `--json` document (the file's path first). */
  json: Record<string, unknown>;
  /** Every finding in order. */
  diagnostics: readonly (Diagnostic & { severity: DiagnosticSeverity })[];
  /** Where in the file a finding is beyond its line (`byte 12, seq 3`), when the format knows more. */
  where?: (d: Diagnostic) => string;
  /** The verdict said after the file's path: "clean (12 entries)", "3 findings"… */
  verdict: string;
  exitCode: number;
}

/** The command-line documents of one opened session (SessionModel.documents()). */
export interface SessionDocuments {
  /** The model's context at a node named by the options (the default leaf without one). */
  context(options: OptionValues): Promise<JsonAnswer>;
  /** Every record as the session holds it (`entries` of an xcsh file, `events` of a dsh log). */
  records(options: OptionValues): Promise<JsonAnswer>;
  /** The tree as one JSON text, written a piece at a time. */
  treeJson(pretty: boolean, write: (json: string) => void): Promise<void>;
  treeText(): Promise<TreeTextAnswer>;
  doctor(options: OptionValues): Promise<DoctorReport>;
}
