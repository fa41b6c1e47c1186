// The command-line documents of a deepseek-harness log (documents.ts; issue 10's `events` and the
// dsh side of `context`, `tree` and `doctor`), from its model. Read-only, as the model is.
import { severityOf, type Diagnostic } from '../../diagnostics';
import type { DshDiagnostic } from '../../formats/dsh/types';
import { dshContextAt, eventsWithClosers } from '../../formats/dsh/index';
import { TargetError, type DoctorReport, type JsonAnswer, type OptionValues, type SessionDocuments, type TreeTextAnswer } from '../documents';
import type { DshModel } from './dshModel';

/** Where a finding is beyond its line: its byte offset and seq, when the reader knows them. */
function whereInLog(diagnostic: Diagnostic): string {
  const d = diagnostic as DshDiagnostic;
  // (what the message says already is not said again)
  const byte = d.offset !== undefined && !d.message.includes(`byte ${d.offset}`) ? `byte ${d.offset}` : null;
  const seq = d.seq !== undefined && !d.message.includes(`seq ${d.seq}`) ? `seq ${d.seq}` : null;
  return [byte, seq].filter(Boolean).join(', ');
}

/** Options: `--at <seq>` for the context (the default: the last event). */
export class DshDocuments implements SessionDocuments {
  constructor(private readonly model: DshModel) {}

  async context(options: OptionValues): Promise<JsonAnswer> {
    const log = this.model.log;
    const last = log.events.length + log.closers.length - 1;
    let seq: number | undefined;
    if (options.at !== undefined) {
      seq = Number(options.at);
      if (!Number.isInteger(seq) || seq < 0 || seq > last) throw new TargetError(`no event with seq ${JSON.stringify(options.at)} (the log has seqs 0–${last})`);
    }
    const ctx = dshContextAt(log, seq);
    return {
      warnings: log.diagnostics,
      members: [
        ['format', 'dsh'],
        ['at', ctx.at],
        ['messages', ctx.messages],
        ['system', ctx.system],
        ['tools', ctx.tools],
        ['model', ctx.model],
      ],
    };
  }

  /** The events, the closers of an interrupted turn applied in memory (never written). */
  async records(): Promise<JsonAnswer> {
    const log = this.model.log;
    return {
      warnings: log.diagnostics,
      members: [
        ['format', 'dsh'],
        ['header', log.header],
        ['state', log.state],
        ['events', eventsWithClosers(log)],
        ['closers', log.closers.length],
        ['diagnostics', log.diagnostics],
      ],
    };
  }

  /** Turns → steps → events, a run of streamed chunks as one row. */
  async #rows() {
    const { rows } = await this.model.tree({ filter: 'all', search: '', leafId: null, focusEntryId: null, start: 0, count: Number.MAX_SAFE_INTEGER });
    return rows.filter((r) => r.kind !== 'chunk');
  }

  async treeJson(pretty: boolean, write: (json: string) => void): Promise<void> {
    const rows = (await this.#rows()).map((r) => ({ id: r.entryId, depth: r.depth, kind: r.kind, text: r.text, ...(r.label ? { label: r.label } : {}) }));
    write(JSON.stringify({ format: 'dsh', state: this.model.log.state, rows }, null, pretty ? 2 : undefined) + '\n');
  }

  async treeText(): Promise<TreeTextAnswer> {
    const rows = await this.#rows();
    return {
      warnings: this.model.log.diagnostics,
      notes: [],
      lines: async (emit) => emit(rows.map((r) => ({ lead: '  '.repeat(r.depth), id: r.entryId, preview: `${r.kind}: ${r.text}`, ...(r.label ? { label: r.label } : {}) }))),
    };
  }

  /** Every diagnostic with its line, byte offset or seq; exit 1 on a torn or corrupt log (or any finding). */
  async doctor(): Promise<DoctorReport> {
    const log = this.model.log;
    const diagnostics = log.diagnostics.map((d) => ({ ...d, severity: severityOf(d.kind) }));
    const findings = diagnostics.filter((d) => d.severity !== 'info').length;
    const bad = log.state === 'torn' || log.state === 'corrupt';
    return {
      json: { file: this.model.path, format: 'dsh', state: log.state, events: log.events.length, closers: log.closers.length, findings, diagnostics },
      diagnostics,
      where: whereInLog,
      verdict: `dsh log, ${log.state}; ${log.events.length} events${log.closers.length ? ` + ${log.closers.length} closers in memory` : ''}; ${findings === 0 ? 'no findings' : `${findings} finding${findings === 1 ? '' : 's'}`}`,
      exitCode: findings === 0 && !bad ? 0 : 1,
    };
  }
}
