// "What the model sees" at a leaf of a Claude Code transcript (claude-code-format.md Part B),
// planned from the records' facts (path.ts, apiMessages.ts) and rendered in windows: only the
// rows a window shows have their bodies read.
//
// A row is one part of an API message: an assistant message (its split lines merged), each
// tool result of a user message (so the display pairs calls and results as it does for xcsh),
// the synthetic result of a call without one, and each user record's other content. The API
// message count is kept beside the rows (ClaudeContextInfo.apiMessageCount). Records after the
// compaction boundary are the messages; those before it on the logical path are the cut band.
import { apiConversation, ClaudeTree, MISSING_RESULT_TEXT, RecordBodies, RecordFlag, type ApiConversation, type BodyRef, type ClaudeRecord, type ClaudeSession, type LeafPath, type Usage } from '../../formats/claude/index';
import type { Translate } from '../../l10n';
import type { ChartView } from '../../../protocol/chartData';
import type { ContextInfo, MessageView } from '../../../protocol/messages';
import { messageRow } from '../xcsh/messageRows';
import { assistantDisplayed, attachmentDisplayed, compactSummaryDisplayed, isTaggedText, missingResultDisplayed, partsOf, recordRow, toolResultDisplayed, userContentDisplayed } from './claudeDisplay';
import { LruMap } from '../../lruMap';

/**
 * ContextInfo with the fields a Claude Code context always has: the "messages only" sentence, the
 * notes (the API message count, recoveries, drops, repairs, other leaf rules) and the number of
 * messages the model receives (B.4; `messageCount` counts rows: a user message's tool results are
 * rows of their own).
 */
export type ClaudeContextInfo = ContextInfo & Required<Pick<ContextInfo, 'notRecorded' | 'notes' | 'apiMessageCount'>>;

export interface RowPlan {
  kind: 'assistant' | 'toolResult' | 'missingResult' | 'content' | 'attachment';
  /** The records shown (an assistant message: its lines; a synthetic result: the line holding the call). */
  recs: number[];
  /** toolResult: which tool_result block of the record. */
  block: number;
  callId: string | null;
  /** Index of its API message. */
  api: number;
  dropTrailing: number;
  placeholder: string | null;
  tokens: number;
  segment: MessageView['segment'];
}

export interface LeafContext {
  leafPos: number;
  path: LeafPath;
  api: ApiConversation;
  rows: RowPlan[];
  cumulative: Float64Array;
  /** First row of each record shown. */
  rowOfPos: Map<number, number>;
  callRow: Map<string, number>;
  resultRow: Map<string, { row: number; isError: boolean }>;
  cutRows: RowPlan[];
  cutCumulative: Float64Array;
  cutRowOfPos: Map<number, number>;
  /** Tool calls a microcompact_boundary on the path cleared (B.4 step 2: shown as recorded, marked). */
  cleared: Set<string>;
  info: ClaudeContextInfo;
}

const CACHED = 4;
const MISSING_TOKENS = Math.ceil(MISSING_RESULT_TEXT.length / 4);

function planRows(records: readonly ClaudeRecord[], api: ApiConversation): RowPlan[] {
  const rows: RowPlan[] = [];
  api.messages.forEach((m, k) => {
    if (m.role === 'assistant') {
      const tokens = m.placeholder !== null ? Math.ceil(m.placeholder.length / 4) : m.records.reduce((s, p) => s + records[p]!.tokens, 0);
      rows.push({ kind: 'assistant', recs: m.records, block: -1, callId: null, api: k, dropTrailing: m.droppedTrailingThinking, placeholder: m.placeholder, tokens, segment: 'plain' });
      return;
    }
    for (const part of m.parts) {
      const base = { api: k, dropTrailing: 0, placeholder: null, segment: 'plain' as const };
      if (part.kind === 'toolResult') rows.push({ ...base, kind: 'toolResult', recs: [part.pos], block: part.block, callId: part.callId, tokens: records[part.pos]!.toolResults![part.block]!.tokens });
      else if (part.kind === 'missingResult') rows.push({ ...base, kind: 'missingResult', recs: [part.callPos], block: -1, callId: part.callId, tokens: MISSING_TOKENS });
      else rows.push({ ...base, kind: part.kind, recs: [part.pos], block: -1, callId: null, tokens: records[part.pos]!.tokens });
    }
  });
  return rows;
}

function cumulativeOf(rows: readonly RowPlan[]): Float64Array {
  const out = new Float64Array(rows.length);
  let sum = 0;
  rows.forEach((r, i) => (out[i] = sum += r.tokens));
  return out;
}

function firstRows(rows: readonly RowPlan[]): Map<number, number> {
  const out = new Map<number, number>();
  rows.forEach((r, i) => {
    if (r.kind === 'missingResult') return;
    for (const p of r.recs) if (!out.has(p)) out.set(p, i);
  });
  return out;
}

export interface ContextDeps {
  session: ClaudeSession;
  bodies: RecordBodies;
  toolNames: ReadonlyMap<string, string>;
  /** Usage of each API response, counted once (A.6: input/cache from any line, output the largest). */
  usageOf: (messageId: string) => Usage | null;
  /** Labels of records (summary titles, subagents). */
  labelOf: (pos: number) => string | null;
  /** Badge of a Task call linked to a subagent ("subagent a881341"). */
  subagentBadge: (callId: string) => string | null;
  l10nT: Translate;
  revision: number;
}

export class ClaudeContexts {
  readonly #cache = new LruMap<number, LeafContext>(CACHED);

  constructor(private readonly d: ContextDeps) {}

  get tree(): ClaudeTree {
    return this.d.session.tree;
  }

  /** The position of the leaf a request means (null or unknown: the default leaf); -1 for an empty transcript. */
  resolveLeaf(leafId: string | null): number {
    const t = this.d.session.transcript;
    const p = leafId === null ? undefined : t.byUuid.get(leafId);
    return p !== undefined ? p : this.tree.defaultLeaf;
  }

  plan(leafId: string | null): LeafContext {
    const leafPos = this.resolveLeaf(leafId);
    return this.#cache.getOrMake(leafPos, () => this.#compute(leafPos));
  }

  #compute(leafPos: number): LeafContext {
    const { session, l10nT: t } = this.d;
    const { transcript, tree, paths } = session;
    const recs = transcript.records;
    const path: LeafPath =
      leafPos >= 0
        ? paths.pathTo(leafPos)
        : { leaf: -1, visible: [], boundary: -1, cut: [], recoveredVisible: [], recoveredCut: [], fallbacks: [], stop: 'root', orphan: -1, preserved: null };
    const api = apiConversation(recs, path.visible, tree.answered);
    const rows = planRows(recs, api);
    const boundary = path.boundary >= 0 ? recs[path.boundary]! : null;
    let summaryIndex = -1;
    rows.forEach((r, i) => {
      if (!boundary) return;
      const rec = recs[r.recs[0]!]!;
      if (r.kind === 'content' && (rec.flags & RecordFlag.CompactSummary) !== 0 && summaryIndex === -1) {
        r.segment = 'summary';
        summaryIndex = i;
      } else r.segment = path.preserved?.run.has(r.recs[0]!) ? 'kept' : 'after';
    });
    let keptEnd = summaryIndex + 1;
    while (summaryIndex >= 0 && keptEnd < rows.length && rows[keptEnd]!.segment === 'kept') keptEnd++;
    const cutApi = apiConversation(recs, path.cut, tree.answered, 'history');
    const cutRows = planRows(recs, cutApi).map((r) => ({ ...r, segment: 'cut' as const }));

    const callRow = new Map<string, number>();
    const resultRow = new Map<string, { row: number; isError: boolean }>();
    rows.forEach((r, i) => {
      if (r.kind === 'assistant') for (const p of r.recs) for (const u of recs[p]!.toolUses ?? []) callRow.set(u.id, i);
      else if (r.kind === 'toolResult') resultRow.set(r.callId!, { row: i, isError: recs[r.recs[0]!]!.toolResults![r.block]!.isError });
      else if (r.kind === 'missingResult') resultRow.set(r.callId!, { row: i, isError: true });
    });
    const cleared = new Set<string>();
    for (const p of [...path.cut, ...path.visible]) for (const id of recs[p]!.clearedToolIds ?? []) cleared.add(id);
    const cumulative = cumulativeOf(rows);

    // runtime facts from the path, newest wins
    let thinking: string | null = null;
    let mode: string | null = null;
    let model: string | null = null;
    for (const p of [...path.cut, ...path.visible]) {
      const r = recs[p]!;
      if (r.thinking !== null) thinking = r.thinking;
      if (r.permissionMode !== null) mode = r.permissionMode;
      if (r.type === 'assistant' && r.model !== null && r.model !== '<synthetic>') model = r.model;
    }

    const notes = this.#notes(leafPos, path, api, cleared);
    const leaf = leafPos >= 0 ? recs[leafPos]! : null;
    const info: ClaudeContextInfo = {
      revision: this.d.revision,
      leafId: leaf?.uuid ?? null,
      messageCount: rows.length,
      totalTokensEst: rows.length > 0 ? cumulative[rows.length - 1]! : 0,
      runtime: {
        thinkingLevel: thinking ?? t('default'),
        models: model ? { default: model } : {},
        mode: mode ?? 'default',
        modeDataJson: null,
        injectedTtsrRules: [],
        modeLabel: t('Permission mode:'),
      },
      compaction: boundary
        ? {
            id: boundary.uuid,
            timestamp: boundary.timestamp,
            tokensBefore: boundary.compact?.preTokens ?? null,
            firstKeptEntryId: path.preserved ? recs[path.preserved.head]!.uuid : null,
            keptFound: path.preserved !== null,
            cutCount: cutRows.length,
            keptEnd: Math.max(0, keptEnd),
            ...(summaryIndex >= 0 ? { summaryIndex } : {}),
          }
        : null,
      pathLength: path.cut.length + path.visible.length + (boundary ? 1 : 0),
      leaf: leaf ? recordRow(leaf, this.d.toolNames, this.d.labelOf(leafPos)) : null,
      notRecorded: this.d.l10nT('messages only — system prompt and tools are not recorded by this agent'),
      notes,
      apiMessageCount: api.messages.length,
    };
    return { leafPos, path, api, rows, cumulative, rowOfPos: firstRows(rows), callRow, resultRow, cutRows, cutCumulative: cumulativeOf(cutRows), cutRowOfPos: firstRows(cutRows), cleared, info };
  }

  #notes(leafPos: number, path: LeafPath, api: ApiConversation, cleared: ReadonlySet<string>): string[] {
    const t = this.d.l10nT;
    const { transcript, tree, paths } = this.d.session;
    const recs = transcript.records;
    const notes: string[] = [];
    if (leafPos < 0) return notes;
    notes.push(api.messages.length === 1 ? t('The model receives {0} message (split lines merged, consecutive user records joined).', 1) : t('The model receives {0} messages (split lines merged, consecutive user records joined).', api.messages.length));
    if (path.recoveredVisible.length > 0) {
      const older = apiConversation(recs, paths.visibleWithoutRecovery(leafPos), tree.answered).missingResults;
      const n = path.recoveredVisible.length;
      notes.push(
        n === 1
          ? t('1 record off the walked line is recovered by the parallel tool-result rule of Claude Code 2.1.112; Claude Code 2.1.39 and the Agent SDK lose it.')
          : t('{0} records off the walked line are recovered by the parallel tool-result rule of Claude Code 2.1.112; Claude Code 2.1.39 and the Agent SDK lose them.', n),
      );
      if (older > 0) notes.push(older === 1 ? t('Without it, 1 tool call gets "{0}".', MISSING_RESULT_TEXT) : t('Without it, {0} tool calls get "{1}".', older, MISSING_RESULT_TEXT));
    }
    if (api.missingResults > 0) {
      notes.push(api.missingResults === 1 ? t('1 tool call has no result on this path: the CLI sends "{0}" for it.', MISSING_RESULT_TEXT) : t('{0} tool calls have no result on this path: the CLI sends "{1}" for them.', api.missingResults, MISSING_RESULT_TEXT));
    }
    if (api.orphanResults.length > 0) {
      notes.push(api.orphanResults.length === 1 ? t('1 tool result is not sent: its call is not in the message before it.') : t('{0} tool results are not sent: their call is not in the message before them.', api.orphanResults.length));
    }
    const dropped = new Map<string, number>();
    for (const d of api.dropped) dropped.set(d.why, (dropped.get(d.why) ?? 0) + 1);
    if (dropped.size > 0) notes.push(t('Recorded lines not sent: {0}.', [...dropped].map(([why, n]) => `${n} ${why}`).join(', ')));
    for (const f of path.fallbacks) notes.push(t('The parent of {0} is not in this file: the walk continues with {1}, the latest record at most 5 s older (Claude Code 2.1.112).', recs[f.pos]!.uuid, recs[f.to]!.uuid));
    if (path.stop === 'missing-parent') notes.push(t('The walk stops at {0}: its parent {1} is not in this file.', recs[path.orphan]!.uuid, recs[path.orphan]!.parentUuid ?? '?'));
    if (path.stop === 'cycle') notes.push(t('The parent links loop: the walk stops where they do.'));
    if (path.preserved) notes.push(t('Partial compaction: records kept from before the boundary after the summary, their usage not counted: {0}.', path.preserved.run.size));
    if (cleared.size > 0) notes.push(t('Tool results cleared by microcompaction during the session: {0}; they are shown as recorded (whether a resume clears them again is not known).', cleared.size));
    if ((recs[leafPos]!.flags & RecordFlag.Sidechain) !== 0 && tree.hasMainRecords) notes.push(t("A subagent's conversation (sidechain): its parent session sees only the Task call's result."));
    if (leafPos === tree.defaultLeaf) {
      const { cli2139, sdk } = tree.leafRules;
      if (cli2139 >= 0 && cli2139 !== leafPos) notes.push(t('Claude Code 2.1.39 would resume at {0} instead (the newest record by timestamp).', recs[cli2139]!.uuid));
      if (sdk >= 0 && sdk !== leafPos) notes.push(t('The Agent SDK would read the conversation ending at {0} (the latest leaf in file order).', recs[sdk]!.uuid));
    }
    return notes;
  }

  async views(nc: LeafContext, cut: boolean, start: number, count: number): Promise<MessageView[]> {
    const rows = cut ? nc.cutRows : nc.rows;
    const cumulative = cut ? nc.cutCumulative : nc.cumulative;
    const end = Math.min(rows.length, start + count);
    if (start >= end) return [];
    const recs = this.d.session.transcript.records;
    const want = new Set<number>();
    for (let i = start; i < end; i++) if (rows[i]!.kind !== 'missingResult') for (const p of rows[i]!.recs) want.add(p);
    const positions = [...want];
    const refs: BodyRef[] = positions.map((p) => ({ line: recs[p]!.line, start: recs[p]!.start, end: recs[p]!.end, uuid: recs[p]!.uuid }));
    const bodies = new Map<number, Record<string, unknown>>();
    (await this.d.bodies.read(refs)).forEach((b, k) => bodies.set(positions[k]!, b));
    const recovered = new Set(cut ? nc.path.recoveredCut : nc.path.recoveredVisible);
    const out: MessageView[] = [];
    for (let i = start; i < end; i++) out.push(this.#view(nc, rows[i]!, i, cumulative[i]!, bodies, cut, recovered));
    return out;
  }

  #view(nc: LeafContext, row: RowPlan, index: number, cumulative: number, bodies: ReadonlyMap<number, Record<string, unknown>>, cut: boolean, recovered: ReadonlySet<number>): MessageView {
    const t = this.d.l10nT;
    const recs = this.d.session.transcript.records;
    const first = recs[row.recs[0]!]!;
    const badges: string[] = [];
    let hidden = false;
    let callIndex: number | null = null;
    let entryId = first.uuid;
    let parts;
    switch (row.kind) {
      case 'assistant': {
        const lines = row.recs.map((p) => recs[p]!);
        const kept = nc.path.preserved?.run.has(row.recs[0]!) === true;
        const usage = kept || first.messageId === null ? null : this.d.usageOf(first.messageId);
        parts = partsOf(assistantDisplayed(row.recs.map((p) => bodies.get(p)!), lines, row.dropTrailing, row.placeholder, usage), entryId, false);
        if (!cut) {
          for (const b of parts.blocks) {
            if (b.kind !== 'toolCall') continue;
            const r = nc.resultRow.get(b.callId);
            if (r) {
              b.resultIndex = r.row;
              b.resultIsError = r.isError;
            }
            const sub = this.d.subagentBadge(b.callId);
            if (sub) badges.push(sub);
          }
        }
        if (lines.length > 1) badges.push(t('{0} lines', lines.length));
        if (row.dropTrailing > 0) badges.push(t('trailing thinking not sent'));
        if (lines.some((l) => (l.flags & RecordFlag.SyntheticModel) !== 0)) badges.push(t('synthetic'));
        if (row.recs.some((p) => recovered.has(p))) badges.push(t('recovered'));
        break;
      }
      case 'toolResult': {
        const callId = row.callId!;
        parts = partsOf(toolResultDisplayed(bodies.get(row.recs[0]!)!, row.block, this.d.toolNames.get(callId) ?? null), entryId, false);
        callIndex = cut ? null : (nc.callRow.get(callId) ?? null);
        if (recovered.has(row.recs[0]!)) badges.push(t('recovered'));
        if (nc.cleared.has(callId)) badges.push(t('cleared by microcompaction'));
        break;
      }
      case 'missingResult': {
        const callId = row.callId!;
        entryId = `${first.uuid}#missing-result:${callId}`;
        parts = partsOf(missingResultDisplayed(callId, this.d.toolNames.get(callId) ?? null, MISSING_RESULT_TEXT), entryId, false);
        callIndex = nc.callRow.get(callId) ?? null;
        badges.push(t('synthetic'));
        break;
      }
      case 'attachment': {
        parts = partsOf(attachmentDisplayed(bodies.get(row.recs[0]!)!), entryId, false);
        hidden = true;
        badges.push(t('meta'));
        break;
      }
      case 'content': {
        const body = bodies.get(row.recs[0]!)!;
        if ((first.flags & RecordFlag.CompactSummary) !== 0) {
          const boundary = nc.path.boundary >= 0 && !cut ? recs[nc.path.boundary]! : null;
          parts = partsOf(compactSummaryDisplayed(body, boundary?.compact?.preTokens ?? null), entryId, false);
          badges.push(t('compact summary'));
        } else parts = partsOf(userContentDisplayed(body), entryId, isTaggedText(body));
        if ((first.flags & RecordFlag.Meta) !== 0) {
          hidden = true;
          badges.push(t('meta'));
        }
        if ((first.flags & RecordFlag.TranscriptOnly) !== 0) {
          hidden = true;
          badges.push(t('transcript only'));
        }
        if (recovered.has(row.recs[0]!)) badges.push(t('recovered'));
        break;
      }
    }
    if ((first.flags & RecordFlag.Sidechain) !== 0 && this.tree.hasMainRecords) badges.push(t('sidechain'));
    const view = messageRow(parts, { index, entryId, timestamp: first.timestamp, tokensEst: row.tokens, cumulativeTokensEst: cumulative, segment: row.segment }, callIndex);
    view.badges = [...parts.badges, ...badges];
    view.hiddenFromUser = parts.hiddenFromUser || hidden;
    return view;
  }

  /**
   * What the context chart reads of each row, from the facts alone (no body is read): the
   * assistant rows' model and usage (A.6: counted once per response; a preserved run's not at all).
   */
  chartViews(nc: LeafContext): { messages: ChartView[]; cut: ChartView[] } {
    const recs = this.d.session.transcript.records;
    const views = (rows: readonly RowPlan[], cut: boolean): ChartView[] =>
      rows.flatMap((r, index) => {
        if (r.kind !== 'assistant') return [];
        const first = recs[r.recs[0]!]!;
        const kept = nc.path.preserved?.run.has(r.recs[0]!) === true;
        const u = kept || first.messageId === null ? null : this.d.usageOf(first.messageId);
        const model = r.recs.map((p) => recs[p]!.model).find((m) => m !== null && m !== '<synthetic>') ?? null;
        return [{ index, entryId: first.uuid, role: 'assistant', subtitle: model, usage: u ? { ...u, cost: 0 } : null, segment: cut ? 'cut' : r.segment }];
      });
    return { messages: views(nc.rows, false), cut: views(nc.cutRows, true) };
  }

  /** An entry's place among the messages (or the cut band): its row, or the row of the nearest record before it on the path that has one. */
  locate(leafId: string | null, entryId: string): { messageIndex: number | null; cutIndex: number | null } {
    const nc = this.plan(leafId);
    const pos = this.d.session.transcript.byUuid.get(entryId);
    if (pos === undefined) return { messageIndex: null, cutIndex: null };
    const near = (chain: readonly number[], rowOf: ReadonlyMap<number, number>): number | null => {
      const direct = rowOf.get(pos);
      if (direct !== undefined) return direct;
      const k = chain.indexOf(pos);
      if (k === -1) return null;
      for (let j = k; j >= 0; j--) {
        const r = rowOf.get(chain[j]!);
        if (r !== undefined) return r;
      }
      for (let j = k + 1; j < chain.length; j++) {
        const r = rowOf.get(chain[j]!);
        if (r !== undefined) return r;
      }
      return null;
    };
    if (pos === nc.path.boundary) return { messageIndex: nc.info.compaction?.summaryIndex ?? (nc.rows.length > 0 ? 0 : null), cutIndex: null };
    const messageIndex = near(nc.path.visible, nc.rowOfPos);
    if (messageIndex !== null) return { messageIndex, cutIndex: null };
    return { messageIndex: null, cutIndex: near(nc.path.cut, nc.cutRowOfPos) };
  }
}
