// The message array Claude Code sends when it resumes at a leaf (claude-code-format.md B.3 and
// B.4), computed from the records' facts alone — no body is read, so a context of any length
// costs its record count, and the display reads bodies only for the rows a window shows.
//
// Implemented, in this order, on the records after the cut (path.ts):
// - B.3 step 3: drop assistant lines all of whose tool_use blocks have no tool_result — looked for
//   among all records of the file, not only the path (a choice, see apiConversation);
// - B.3 step 4: drop thinking-only lines whose message.id has no non-thinking line;
// - B.3 step 5: drop whitespace-only assistant lines;
// - B.4 step 3: drop progress, system and unknown records, and CLI-made API-error lines;
// - B.4 step 4/5: attachments become meta user parts, moved up to follow the nearest earlier
//   assistant line or tool-result user line (types never replayed are dropped, B.3 step 1);
// - B.4 step 5: consecutive user records merge into one message (tool results first); an
//   assistant line joins the earlier message with its message.id when only tool-result user
//   records lie between them;
// - B.4 step 6: trailing thinking off the last assistant message ("[No message content]" when
//   nothing is left), thinking-only and whitespace-only messages removed, "(no content)" for
//   other empty ones;
// - B.4 step 8: a tool_use without a result in the next user message gets the synthetic
//   "[Tool result missing due to internal error]"; a result without its tool_use before it is removed.
// Not reproduced (nothing in the file says what they would do): B.3 steps 6–8 (the lines a
// resume appends), B.4 step 2 (microcompaction of a large context: the originals are shown and
// the cleared calls marked), step 7 (tool_reference pruning needs the tool list) and step 9 (the
// user context is not recorded).
import { isThinkingOnly, isToolResultUser, isWhitespaceOnly, RecordFlag, UNREPLAYED_ATTACHMENTS, type ClaudeRecord } from './records';

export const MISSING_RESULT_TEXT = '[Tool result missing due to internal error]';
export const NO_CONTENT_LAST = '[No message content]';
export const NO_CONTENT = '(no content)';

export type UserPart =
  | { kind: 'toolResult'; pos: number; block: number; callId: string }
  | { kind: 'missingResult'; callId: string; callPos: number }
  | { kind: 'content'; pos: number }
  | { kind: 'attachment'; pos: number };

export interface ApiMessage {
  role: 'user' | 'assistant';
  /** The records it is made of, in order (assistant: its lines; user: its records). */
  records: number[];
  messageId: string | null;
  /** User messages: tool results first (synthetic ones after the recorded ones), then the other parts. */
  parts: UserPart[];
  /** Assistant messages: how many trailing thinking blocks are not sent (B.4 step 6, last message only). */
  droppedTrailingThinking: number;
  /** Assistant messages whose blocks are all gone: the text the CLI sends instead. */
  placeholder: string | null;
}

export interface DroppedRecord {
  pos: number;
  why: 'no-result' | 'thinking-only' | 'whitespace-only' | 'api-error' | 'unreplayed-attachment';
}

export interface ApiConversation {
  messages: ApiMessage[];
  /** Records of the path that carry content but are not sent, and why (progress and system records are not listed). */
  dropped: DroppedRecord[];
  /** Synthetic "missing" results added by the pairing repair. */
  missingResults: number;
  /** Recorded results removed because their tool_use is not in the message before them. */
  orphanResults: { pos: number; callId: string }[];
}

const pairedUses = (r: ClaudeRecord): string[] => (r.toolUses ?? []).filter((u) => !u.server).map((u) => u.id);

/**
 * The API messages of the records `visible` (oldest first). `answered`: the tool_use ids that have
 * a tool_result anywhere in the file. B.3 step 3 says "on the path"; read that way, a parallel
 * call whose result is off the path would be dropped together with its line, and the older CLI
 * would lose nothing visible — but the spec counts 5 calls of spotter/258c7280… that 2.1.39
 * answers with the synthetic "missing" result, and the fixture README one in short.jsonl. Looking
 * in the loaded records (the whole file) gives exactly those counts, so that reading is the one
 * implemented [unverified].
 */
export function apiConversation(records: readonly ClaudeRecord[], visible: readonly number[], answered: ReadonlySet<string>, mode: 'resume' | 'history' = 'resume'): ApiConversation {
  const dropped: DroppedRecord[] = [];
  // 'history' (the cut band: what was sent before the compaction, shown for reference): the
  // merges only — no resume-time drops, no trimming of the last message, no pairing repair.
  const resume = mode === 'resume';
  const resultIds = answered;

  // B.3 steps 3–5 and B.4 step 3
  let kept: number[] = [];
  for (const i of visible) {
    const r = records[i]!;
    if (r.type === 'assistant') {
      if ((r.flags & RecordFlag.ApiError) !== 0 && (r.flags & RecordFlag.SyntheticModel) !== 0) {
        dropped.push({ pos: i, why: 'api-error' });
        continue;
      }
      const uses = pairedUses(r);
      if (resume && uses.length > 0 && uses.every((id) => !resultIds.has(id))) {
        dropped.push({ pos: i, why: 'no-result' });
        continue;
      }
      kept.push(i);
    } else if (r.type === 'user') kept.push(i);
    else if (r.type === 'attachment') {
      if (r.subtype !== null && UNREPLAYED_ATTACHMENTS.has(r.subtype)) dropped.push({ pos: i, why: 'unreplayed-attachment' });
      else kept.push(i);
    }
  }
  const substantive = new Set<string>();
  for (const i of kept) {
    const r = records[i]!;
    if (r.type === 'assistant' && r.messageId !== null && !isThinkingOnly(r)) substantive.add(r.messageId);
  }
  kept = kept.filter((i) => {
    const r = records[i]!;
    if (r.type !== 'assistant' || !resume) return true;
    if (isThinkingOnly(r) && (r.messageId === null || !substantive.has(r.messageId))) {
      dropped.push({ pos: i, why: 'thinking-only' });
      return false;
    }
    if (isWhitespaceOnly(r)) {
      dropped.push({ pos: i, why: 'whitespace-only' });
      return false;
    }
    return true;
  });

  // B.4 step 5: attachments move up behind the nearest assistant line or tool-result user line.
  const ordered: number[] = [];
  for (const i of kept) {
    if (records[i]!.type !== 'attachment') {
      ordered.push(i);
      continue;
    }
    let j = ordered.length - 1;
    while (j >= 0 && !(records[ordered[j]!]!.type === 'assistant' || isToolResultUser(records[ordered[j]!]!))) j--;
    if (j === -1) {
      // nothing to follow (the first turn): left where it is [unverified]
      ordered.push(i);
      continue;
    }
    let at = j + 1;
    while (at < ordered.length && records[ordered[at]!]!.type === 'attachment') at++;
    ordered.splice(at, 0, i);
  }

  // B.4 step 5: merge.
  let messages: ApiMessage[] = [];
  const onlyResults = (m: ApiMessage): boolean => m.records.every((p) => isToolResultUser(records[p]!));
  for (const i of ordered) {
    const r = records[i]!;
    if (r.type === 'assistant') {
      let target: ApiMessage | null = null;
      for (let k = messages.length - 1; k >= 0; k--) {
        const m = messages[k]!;
        if (m.role === 'assistant') {
          if (m.messageId !== null && m.messageId === r.messageId) target = m;
          break;
        }
        if (!onlyResults(m)) break;
      }
      if (target) target.records.push(i);
      else messages.push({ role: 'assistant', records: [i], messageId: r.messageId, parts: [], droppedTrailingThinking: 0, placeholder: null });
      continue;
    }
    const last = messages[messages.length - 1];
    if (last?.role === 'user') last.records.push(i);
    else messages.push({ role: 'user', records: [i], messageId: null, parts: [], droppedTrailingThinking: 0, placeholder: null });
  }

  // B.4 step 6
  const codes = (m: ApiMessage): string => m.records.map((p) => records[p]!.blocks).join('');
  let lastAssistant = -1;
  for (let k = messages.length - 1; k >= 0; k--) {
    if (messages[k]!.role === 'assistant') {
      lastAssistant = k;
      break;
    }
  }
  if (lastAssistant >= 0 && resume) {
    const m = messages[lastAssistant]!;
    const c = codes(m);
    let n = 0;
    while (n < c.length && /[hr]/.test(c[c.length - 1 - n]!)) n++;
    m.droppedTrailingThinking = n;
    if (n === c.length) m.placeholder = NO_CONTENT_LAST;
  }
  messages = messages.filter((m, k) => {
    if (m.role !== 'assistant' || k === lastAssistant) return true;
    const c = codes(m);
    if (c !== '' && /^[hr]+$/.test(c)) return false;
    if (c !== '' && /^w+$/.test(c)) return false;
    if (c === '') m.placeholder = NO_CONTENT;
    return true;
  });
  messages = mergeUsers(messages);

  // user parts (tool results first), then B.4 step 8
  for (const m of messages) if (m.role === 'user') m.parts = userParts(records, m.records);
  let missingResults = 0;
  const orphanResults: ApiConversation['orphanResults'] = [];
  for (let k = 0; k < messages.length && resume; k++) {
    const m = messages[k]!;
    if (m.role !== 'assistant') continue;
    const calls: { id: string; pos: number }[] = [];
    for (const p of m.records) for (const id of pairedUses(records[p]!)) calls.push({ id, pos: p });
    if (calls.length === 0) continue;
    let next = messages[k + 1];
    const have = new Set(next?.role === 'user' ? next.parts.flatMap((x) => (x.kind === 'toolResult' ? [x.callId] : [])) : []);
    const missing = calls.filter((c) => !have.has(c.id));
    if (missing.length === 0) continue;
    if (next?.role !== 'user') {
      next = { role: 'user', records: [], messageId: null, parts: [], droppedTrailingThinking: 0, placeholder: null };
      messages.splice(k + 1, 0, next);
    }
    const firstOther = next.parts.findIndex((x) => x.kind !== 'toolResult');
    next.parts.splice(firstOther === -1 ? next.parts.length : firstOther, 0, ...missing.map((c): UserPart => ({ kind: 'missingResult', callId: c.id, callPos: c.pos })));
    missingResults += missing.length;
  }
  for (let k = 0; k < messages.length && resume; k++) {
    const m = messages[k]!;
    if (m.role !== 'user') continue;
    const prev = messages[k - 1];
    const allowed = new Set(prev?.role === 'assistant' ? prev.records.flatMap((p) => pairedUses(records[p]!)) : []);
    m.parts = m.parts.filter((x) => {
      if (x.kind !== 'toolResult' || allowed.has(x.callId)) return true;
      orphanResults.push({ pos: x.pos, callId: x.callId });
      return false;
    });
  }
  messages = mergeUsers(messages.filter((m) => m.role === 'assistant' || m.parts.length > 0));
  for (const m of messages) if (m.role === 'user') m.records = [...new Set(m.parts.flatMap((x) => (x.kind === 'missingResult' ? [] : [x.pos])))];
  return { messages, dropped, missingResults, orphanResults };
}

function mergeUsers(messages: ApiMessage[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    if (m.role === 'user' && last?.role === 'user') {
      last.records.push(...m.records);
      // once parts exist (after the pairing repair), the merged message lists tool results first again
      if (last.parts.length > 0 || m.parts.length > 0) {
        const both = [...last.parts, ...m.parts];
        last.parts = [...both.filter((x) => x.kind === 'toolResult' || x.kind === 'missingResult'), ...both.filter((x) => x.kind !== 'toolResult' && x.kind !== 'missingResult')];
      }
    } else out.push(m);
  }
  return out;
}

/** A user message's parts: every tool_result block (record order), then each record's other content. */
function userParts(records: readonly ClaudeRecord[], members: readonly number[]): UserPart[] {
  const results: UserPart[] = [];
  const others: UserPart[] = [];
  for (const p of members) {
    const r = records[p]!;
    if (r.type === 'attachment') {
      others.push({ kind: 'attachment', pos: p });
      continue;
    }
    (r.toolResults ?? []).forEach((tr, block) => results.push({ kind: 'toolResult', pos: p, block, callId: tr.id }));
    if (r.blocks.replace(/R/g, '') !== '' || r.toolResults === null) others.push({ kind: 'content', pos: p });
  }
  return [...results, ...others];
}
