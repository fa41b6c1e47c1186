// The command-line documents of a Codex rollout (documents.ts; issue 24), from its model: the
// model's history at a node as the replay rebuilds it, the records as read, the turns → records
// outline, and the reader's findings. Read-only, as the model is.
import { severityOf } from '../../diagnostics';
import { TargetError, type DoctorReport, type JsonAnswer, type OptionValues, type SessionDocuments, type TreeTextAnswer } from '../documents';
import type { CodexModel } from './codexModel';

/** Options: `--leaf <node id>` (a turn `T<line>` or a record `L<line>`; the default: the last record). */
export class CodexDocuments implements SessionDocuments {
  constructor(private readonly model: CodexModel) {}

  #findings(): JsonAnswer['warnings'] {
    return this.model.rollout.diagnostics;
  }

  async context(options: OptionValues): Promise<JsonAnswer> {
    const leaf = typeof options.leaf === 'string' ? options.leaf : null;
    const h = this.model.history(leaf);
    if (!h) throw new TargetError(`no turn or record with id "${leaf}" (turns are T<line>, records L<line>)`);
    return {
      warnings: this.#findings(),
      members: [
        ['format', 'codex'],
        ['leafId', h.nodeId],
        // what the model is sent at this node, item by item (B.2–B.4), and where each comes from
        ['items', h.items.map((i) => i.item)],
        ['itemSources', h.items.map((i) => i.id)],
        // what a compaction replaced (the preview's cut entries)
        ['cutItemIds', h.cut.map((i) => i.id)],
        ['notRecorded', h.notRecorded],
      ],
    };
  }

  async records(): Promise<JsonAnswer> {
    const r = this.model.rollout;
    const records = { stream: async (emit: (items: readonly unknown[]) => void | Promise<void>) => emit(r.records) };
    return {
      warnings: this.#findings(),
      members: [
        ['format', 'codex'],
        ['encoding', r.encoding],
        ['meta', r.meta],
        ['records', records],
        ['diagnostics', r.diagnostics],
        ['leafId', await this.model.defaultLeaf()],
      ],
    };
  }

  async treeJson(pretty: boolean, write: (json: string) => void): Promise<void> {
    const rows = this.model.outlineRows().map((r) => ({ id: r.id, depth: r.depth, kind: r.kind, text: r.text, ...(r.label ? { label: r.label } : {}) }));
    write(JSON.stringify({ format: 'codex', defaultLeafId: await this.model.defaultLeaf(), rows }, null, pretty ? 2 : undefined) + '\n');
  }

  async treeText(): Promise<TreeTextAnswer> {
    const leaf = await this.model.defaultLeaf();
    const rows = this.model.outlineRows();
    return {
      warnings: this.#findings(),
      notes: [],
      lines: async (emit) =>
        emit(rows.map((r) => ({ lead: '  '.repeat(r.depth), id: r.id, preview: `${r.kind}: ${r.text}`, ...(r.label ? { label: r.label } : {}), ...(r.id === leaf ? { leaf: true as const } : {}) }))),
    };
  }

  async doctor(): Promise<DoctorReport> {
    const r = this.model.rollout;
    const diagnostics = r.diagnostics.map((d) => ({ ...d, severity: severityOf(d.kind) }));
    const findings = diagnostics.filter((d) => d.severity !== 'info').length;
    const version = r.meta?.cliVersion ?? null;
    return {
      json: { file: this.model.path, format: 'codex', encoding: r.encoding, cliVersion: version, records: r.records.length, findings, diagnostics },
      diagnostics,
      verdict: `Codex rollout${version ? ` (CLI ${version})` : ''}, ${r.encoding}; ${r.records.length} records; ${findings === 0 ? 'no findings' : `${findings} finding${findings === 1 ? '' : 's'}`}`,
      exitCode: findings === 0 ? 0 : 1,
    };
  }
}
