// Rollout text → records (codex-format.md A.2, B.1). Like the CLI, a line that is not JSON or not
// a record is skipped — here with a diagnostic naming the line (jsonlLines.ts) — and never stops
// the read; unknown types are kept, with one info diagnostic per type.
import { JsonlLineSplitter } from './jsonlLines';
import { ENVELOPE_TYPES, RESPONSE_ITEM_TYPES, recordOf } from './records';
import { isObj, type CodexDiagnostic, type CodexRecord } from './types';

export class RolloutLineScanner {
  readonly records: CodexRecord[] = [];
  readonly diagnostics: CodexDiagnostic[] = [];
  readonly #lines: JsonlLineSplitter;
  readonly #unknownTypes = new Set<string>();
  #sawRecord: boolean;

  constructor(opts: { firstLine?: number; recordsBefore?: boolean } = {}) {
    this.#sawRecord = opts.recordsBefore ?? false;
    this.#lines = new JsonlLineSplitter(
      (value, line) => {
        const rec = recordOf(value, line, !this.#sawRecord);
        if (!rec) {
          this.diagnostics.push({ line, kind: 'invalid-entry', message: 'a JSON object without a string `type` (neither an envelope nor a bare response item): skipped' });
          return;
        }
        this.#sawRecord = true;
        this.records.push(rec);
        this.#noteUnknown(rec);
      },
      (d) => this.diagnostics.push(d),
      opts.firstLine ?? 1,
    );
  }

  /** The next physical line's number. */
  get line(): number {
    return this.#lines.line;
  }

  get completeBytes(): number {
    return this.#lines.completeBytes;
  }

  get unterminated(): { line: number; offset: number } | null {
    return this.#lines.unterminated;
  }

  push(chunk: Uint8Array): void {
    this.#lines.push(chunk);
  }

  finish(): void {
    this.#lines.finish();
  }

  /** One info diagnostic per unknown type (its first line): the record itself is kept and shown raw. */
  #noteUnknown(rec: CodexRecord): void {
    let what: string | null = null;
    if (rec.type === 'response_item') {
      const t = isObj(rec.payload) ? rec.payload.type : undefined;
      if (typeof t === 'string' && !RESPONSE_ITEM_TYPES.has(t)) what = `response item type "${t}"`;
      else if (typeof t !== 'string') what = 'response item without a type';
    } else if (rec.type !== 'state' && !ENVELOPE_TYPES.has(rec.type)) what = `record type "${rec.type}"`;
    if (what === null || this.#unknownTypes.has(what)) return;
    this.#unknownTypes.add(what);
    this.diagnostics.push({ line: rec.line, kind: 'codex-unknown-type', message: `${what}: unknown to this reader, kept and shown raw (the CLI ignores it)` });
  }
}
