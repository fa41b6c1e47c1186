// Claude Code transcripts in the search index (issue 24). A transcript is read with the Claude
// reader (src/core/formats/claude: facts and byte ranges of every record), the bodies of the
// records that carry conversation — `user` (prompts, tool results, compaction summaries, meta
// text), `assistant` (text and tool calls; thinking is not indexed, as for xcsh) and `system`
// text — are read back by range (bodies.ts, which checks each is still the record it was), and
// each becomes a row: the text of the display messages the editor shows for it (claudeDisplay.ts),
// its uuid (the id the editor's tree and `--leaf` use), its time, its line's bytes. Progress
// lines (hook and subagent progress, mostly copies), attachments and side records are not rows;
// a record whose uuid a later line took over is not either (the later one is the tree's).
// The title row is the last `custom-title` (else `ai-title`, else the `summary` of a leaf in this
// file) line, as the model titles the session. A changed transcript is read again whole (tail_ok
// false): a tool result's row needs the call before it, and a record can be taken over later.
import { RecordBodies, type BodyRef } from '../formats/claude/bodies';
import { readClaudeTranscript } from '../formats/claude/read';
import { chainFacts, RecordFlag, str, type ClaudeRecord } from '../formats/claude/records';
import { assistantDisplayed, compactSummaryDisplayed, recordKind, toolResultDisplayed, userContentDisplayed } from '../engine/claude/claudeDisplay';
import type { IndexRow, WholeFileRows } from './indexRead';
import { recordOfLine, wholeReadRows } from './wholeRows';
import { messagesSearchFields, type EntrySearchFields } from './searchText';

type Obj = Record<string, unknown>;

/** The record types that are rows. */
const INDEXED_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system']);
/** The side records that title a session, the strongest first. */
const TITLE_TYPES = ['custom-title', 'ai-title'] as const;
/** Bodies read back together (bounded memory on a transcript of 100+ MB). */
const READ_BATCH = 1000;

/** The display messages of a record the editor shows (claudeDisplay.ts). */
function displayedMessages(body: Obj, r: ClaudeRecord, toolNames: ReadonlyMap<string, string>): Obj[] {
  if (r.type === 'assistant') return [assistantDisplayed([body], [r], 0, null, null).m];
  if (r.type === 'system') {
    const content = str(body.content);
    return content !== null ? [{ role: 'system', content }] : [];
  }
  if ((r.flags & RecordFlag.CompactSummary) !== 0) return [compactSummaryDisplayed(body, null).m];
  const out: Obj[] = [userContentDisplayed(body).m];
  (r.toolResults ?? []).forEach((t, k) => out.push(toolResultDisplayed(body, k, toolNames.get(t.id) ?? null).m));
  return out;
}

/**
 * The index row of a Claude Code record (`body` as parsed, `r` its facts); null for a record that is
 * no row. `toolNames` (tool_use id → tool) names the tool a result answers, for `tool:`.
 */
export function claudeSearchFields(body: Obj, r: ClaudeRecord, toolNames: ReadonlyMap<string, string> = new Map()): EntrySearchFields | null {
  if (!INDEXED_TYPES.has(r.type)) return null;
  const kind = recordKind(r);
  return messagesSearchFields(displayedMessages(body, r, toolNames), [r.type, r.subtype ?? ''], kind, r.uuid, Number.isFinite(r.time) ? r.time : null);
}

/** The title a title row's line holds ('' for none). */
function titleOfLine(v: Obj): string {
  return str(v.customTitle) ?? str(v.aiTitle) ?? str(v.summary) ?? '';
}

/** The searchable text of a Claude row's bytes (its record's line; '' when they no longer read as one). */
export function claudeRowText(buf: Buffer, isTitle: boolean): string {
  const v = recordOfLine(buf);
  if (!v) return '';
  if (isTitle) return titleOfLine(v);
  const facts = chainFacts(v, 0, 0, buf.length);
  return facts ? (claudeSearchFields(v, facts)?.body ?? '') : '';
}

/** A transcript as the index stores it: one row per conversation record, the title row, the `files` columns. */
export async function readClaudeFileRows(path: string, maxRows: number): Promise<WholeFileRows> {
  const t = await readClaudeTranscript(path);
  const toolNames = new Map<string, string>();
  for (const r of t.records) for (const u of r.toolUses ?? []) toolNames.set(u.id, u.name);
  const picked = t.records.filter((r, i) => !t.shadowed.has(i) && INDEXED_TYPES.has(r.type)).slice(0, Math.max(0, maxRows - 1));
  const bodies = new RecordBodies(path);
  const rows: IndexRow[] = [];
  for (let k = 0; k < picked.length; k += READ_BATCH) {
    const batch = picked.slice(k, k + READ_BATCH);
    const refs: BodyRef[] = batch.map((r) => ({ line: r.line, start: r.start, end: r.end, uuid: r.uuid }));
    const values = await bodies.read(refs);
    bodies.clear();
    batch.forEach((r, j) => {
      const f = claudeSearchFields(values[j]!, r, toolNames);
      if (f) rows.push({ body: f.body, meta: f.meta, eid: f.openId, ts: f.time, off: r.start, len: r.end - r.start });
    });
  }
  // The title: the last line of the strongest kind there is (the reader's customTitle / aiTitle),
  // else the last summary whose leaf is in this file.
  let titleLine: { line: number; start: number; end: number; text: string } | null = null;
  for (const type of TITLE_TYPES) {
    const text = type === 'custom-title' ? t.customTitle : t.aiTitle;
    const side = t.side.filter((s) => s.type === type).pop();
    if (text !== null && text.trim() !== '' && side) {
      titleLine = { ...side, text };
      break;
    }
  }
  if (!titleLine) {
    const own = t.summaries.filter((s) => t.byUuid.has(s.leafUuid) && s.summary.trim() !== '').pop();
    const side = own ? t.side.find((s) => s.line === own.line) : undefined;
    if (own && side) titleLine = { ...side, text: own.summary };
  }
  const firstTime = t.records.find((r) => Number.isFinite(r.time))?.time;
  const created = firstTime ?? null;
  return wholeReadRows(t.size, rows, {
    title: titleLine ? { body: titleLine.text, meta: 'session title', eid: '', ts: created, off: titleLine.start, len: titleLine.end - titleLine.start } : null,
    cwd: t.cwd,
    titleText: titleLine?.text ?? null,
    created,
    agent: 'claude',
  });
}
