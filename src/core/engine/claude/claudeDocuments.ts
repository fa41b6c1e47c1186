// The command-line documents of a Claude Code transcript (documents.ts; issue 24), from its
// model: the messages the model receives at a leaf (claude-code-format.md B.4) in the Anthropic
// Messages shape, each with the records it comes from; every line as written; the tree as the
// `all` filter lays it out; the reader's findings. Arrays are streamed in windows: bodies are read
// a window at a time, never the whole file at once. Read-only, as the model is.
import { severityOf } from '../../diagnostics';
import { isObj, MISSING_RESULT_TEXT, type ApiMessage, type BodyRef } from '../../formats/claude/index';
import { TargetError, type DoctorReport, type JsonAnswer, type OptionValues, type SessionDocuments, type TreeLine, type TreeTextAnswer } from '../documents';
import type { ClaudeModel } from './claudeModel';

const WINDOW = 200;

type Obj = Record<string, unknown>;

const contentOf = (body: Obj): unknown => (isObj(body.message) ? body.message.content : undefined);
const asBlocks = (c: unknown): unknown[] => (typeof c === 'string' ? [{ type: 'text', text: c }] : Array.isArray(c) ? c : []);

/** One API message as the CLI sends it, from its records' bodies. */
function apiMessageJson(m: ApiMessage, bodies: ReadonlyMap<number, Obj>): Obj {
  if (m.role === 'assistant') {
    let content = m.records.flatMap((p) => asBlocks(contentOf(bodies.get(p)!)));
    if (m.droppedTrailingThinking > 0) content = content.slice(0, content.length - m.droppedTrailingThinking);
    if (m.placeholder !== null) content = [{ type: 'text', text: m.placeholder }];
    return { role: 'assistant', content };
  }
  const content: unknown[] = [];
  for (const part of m.parts) {
    if (part.kind === 'missingResult') content.push({ type: 'tool_result', tool_use_id: part.callId, content: MISSING_RESULT_TEXT, is_error: true });
    else if (part.kind === 'toolResult') content.push(asBlocks(contentOf(bodies.get(part.pos)!)).filter((b) => isObj(b) && b.type === 'tool_result')[part.block]);
    else if (part.kind === 'content') content.push(...asBlocks(contentOf(bodies.get(part.pos)!)).filter((b) => !(isObj(b) && b.type === 'tool_result')));
    else {
      // the CLI's wording of an attachment is not recorded: its fields, as meta text
      const a = bodies.get(part.pos)!.attachment;
      content.push({ type: 'text', text: isObj(a) && typeof a.content === 'string' ? a.content : JSON.stringify(a) });
    }
  }
  return { role: 'user', content };
}

/** Options: `--leaf <uuid>` (a record of the transcript; the default: the 2.1.112 default leaf). */
export class ClaudeDocuments implements SessionDocuments {
  constructor(private readonly model: ClaudeModel) {}

  #findings(): JsonAnswer['warnings'] {
    const { transcript, tree } = this.model.session;
    return [...transcript.diagnostics, ...tree.diagnostics].sort((a, b) => a.line - b.line);
  }

  #ref(pos: number): BodyRef {
    const r = this.model.session.transcript.records[pos]!;
    return { line: r.line, start: r.start, end: r.end, uuid: r.uuid };
  }

  async context(options: OptionValues): Promise<JsonAnswer> {
    const leaf = typeof options.leaf === 'string' && options.leaf !== 'null' ? options.leaf : null;
    const { transcript: t } = this.model.session;
    if (leaf !== null && !t.byUuid.has(leaf)) throw new TargetError(`no record with uuid "${leaf}"`);
    const nc = this.model.contexts.plan(leaf);
    const recs = t.records;
    const messages = {
      stream: async (emit: (items: readonly unknown[]) => void | Promise<void>) => {
        for (let k = 0; k < nc.api.messages.length; k += WINDOW) {
          const window = nc.api.messages.slice(k, k + WINDOW);
          const positions = [...new Set(window.flatMap((m) => m.records))];
          const read = await this.model.bodies.read(positions.map((p) => this.#ref(p)));
          const bodies = new Map(positions.map((p, i) => [p, read[i]!]));
          await emit(window.map((m) => apiMessageJson(m, bodies)));
        }
      },
    };
    return {
      warnings: this.#findings(),
      members: [
        ['format', 'claude'],
        ['leafId', nc.info.leafId],
        // what the model is sent at this leaf (B.4), and the records each message comes from
        ['messages', messages],
        ['messageSources', nc.api.messages.map((m) => m.records.map((p) => recs[p]!.uuid))],
        ['compactBoundary', nc.path.boundary >= 0 ? recs[nc.path.boundary]!.uuid : null],
        // the records before the boundary on the logical path (the preview's cut band)
        ['cutRecordIds', nc.path.cut.map((p) => recs[p]!.uuid)],
        ['recoveredRecordIds', nc.path.recoveredVisible.map((p) => recs[p]!.uuid)],
        ['notRecorded', nc.info.notRecorded],
        ['notes', nc.info.notes],
      ],
    };
  }

  async records(): Promise<JsonAnswer> {
    const { transcript: t, tree } = this.model.session;
    const refs: BodyRef[] = [...t.records.map((_, p) => this.#ref(p)), ...t.side.map((s) => ({ line: s.line, start: s.start, end: s.end, type: s.type }))].sort((a, b) => a.start - b.start);
    const records = {
      stream: async (emit: (items: readonly unknown[]) => void | Promise<void>) => {
        for (let k = 0; k < refs.length; k += WINDOW) await emit(await this.model.bodies.read(refs.slice(k, k + WINDOW)));
      },
    };
    return {
      warnings: this.#findings(),
      members: [
        ['format', 'claude'],
        ['sessionId', t.sessionId],
        ['records', records],
        ['summaries', t.summaries],
        ['diagnostics', this.#findings()],
        ['leafId', tree.defaultLeaf >= 0 ? t.records[tree.defaultLeaf]!.uuid : null],
      ],
    };
  }

  /** Every row of the `all` filter, a page at a time. */
  async #rows(visit: (rows: { id: string; depth: number; kind: string; text: string; label: string | null; leaf: boolean }[]) => void): Promise<void> {
    for (let start = 0; ; start += 1000) {
      const page = await this.model.tree({ filter: 'all', search: '', leafId: null, focusEntryId: null, start, count: 1000 });
      visit(page.rows.map((r) => ({ id: r.entryId, depth: r.depth, kind: r.kind, text: r.text, label: r.label, leaf: r.isDefaultLeaf })));
      if (start + 1000 >= page.total) break;
    }
  }

  async treeJson(pretty: boolean, write: (json: string) => void): Promise<void> {
    const rows: unknown[] = [];
    await this.#rows((page) => rows.push(...page.map((r) => ({ id: r.id, depth: r.depth, kind: r.kind, text: r.text, ...(r.label ? { label: r.label } : {}) }))));
    write(JSON.stringify({ format: 'claude', defaultLeafId: await this.model.defaultLeaf(), rows }, null, pretty ? 2 : undefined) + '\n');
  }

  async treeText(): Promise<TreeTextAnswer> {
    return {
      warnings: this.#findings(),
      notes: [],
      lines: async (emit) =>
        this.#rows((page) => emit(page.map((r): TreeLine => ({ lead: '  '.repeat(r.depth), id: r.id, preview: `${r.kind}: ${r.text}`, ...(r.label ? { label: r.label } : {}), ...(r.leaf ? { leaf: true as const } : {}) })))),
    };
  }

  async doctor(): Promise<DoctorReport> {
    const { transcript: t, tree } = this.model.session;
    const diagnostics = this.#findings().map((d) => ({ ...d, severity: severityOf(d.kind) }));
    const findings = diagnostics.filter((d) => d.severity !== 'info').length;
    const version = t.lastVersion;
    return {
      json: { file: this.model.path, format: 'claude', cliVersion: version, chainRecords: t.records.length, sideRecords: t.side.length, leaves: tree.cliLeaves.length, findings, diagnostics },
      diagnostics,
      verdict: `Claude Code transcript${version ? ` (CLI ${version})` : ''}; ${t.records.length + t.side.length} records; ${findings === 0 ? 'no findings' : `${findings} finding${findings === 1 ? '' : 's'}`}`,
      exitCode: findings === 0 ? 0 : 1,
    };
  }
}
