// How Claude Code records are shown: each part of an API message (claude-code-format.md B.4) in
// the display shape xcsh messages take, so src/core/engine/xcsh/messageView.ts renders them
// (text → text, thinking → thinking, redacted_thinking → redacted thinking, tool_use → toolCall,
// tool_result → a toolResult message, image → image), and the one-line row of a record in the
// tree. Images are named by their place in the record (the n-th image, tool results included:
// formats/claude/bodies.ts nthImage); their bytes are sent only when the webview asks for one.
// Nothing here changes what the model saw — it only names it for display.
import { isObj, RecordFlag, str, type ClaudeRecord, type SideRecord, type Usage } from '../../formats/claude/records';
import { messageParts, type MessageParts } from '../xcsh/messageView';

type Obj = Record<string, unknown>;

/** The kind a tree row shows (an icon in the webview) and its text. */
export interface RowDisplay {
  kind: string;
  text: string;
  label: string | null;
}

/** Text the CLI or an IDE injects in tags: shown verbatim (the markdown renderer would eat the tags). */
const TAGGED = /^\s*<(command-|local-command-|ide_|system-reminder|user-prompt-submit-hook|bash-)/;

/** What a tree row calls a record. */
export function recordKind(r: ClaudeRecord): string {
  switch (r.type) {
    case 'user':
      if (r.toolResults !== null) return 'toolResult';
      if ((r.flags & RecordFlag.CompactSummary) !== 0) return 'compaction';
      return (r.flags & RecordFlag.Meta) !== 0 ? 'custom' : 'user';
    case 'assistant':
      return 'assistant';
    case 'system':
      return r.subtype === 'compact_boundary' ? 'compaction' : 'system';
    case 'attachment':
      return 'custom';
    default:
      return r.type;
  }
}

/**
 * The role a Sessions row's icon is chosen by (the display message's role: a tool result, a meta
 * text shown as custom), null for a record that is no message (its kind names it).
 */
export function recordRole(r: ClaudeRecord): string | null {
  const kind = recordKind(r);
  return kind === 'user' || kind === 'assistant' || kind === 'toolResult' || kind === 'custom' ? kind : null;
}

/** An assistant line holding a tool call (its row's icon says so). */
export function callsTools(r: ClaudeRecord): boolean {
  return r.type === 'assistant' && r.blocks.includes('u');
}

export function recordRow(r: ClaudeRecord, toolNames: ReadonlyMap<string, string>, label: string | null): RowDisplay {
  let text = r.preview;
  if (r.type === 'user' && r.toolResults !== null) {
    const name = toolNames.get(r.toolResults[0]!.id) ?? 'tool';
    text = `${name}: ${text}`;
  } else if ((r.flags & RecordFlag.CompactSummary) !== 0) text = `compaction summary: ${text}`;
  if (text === '') text = `(empty ${r.type})`;
  return { kind: recordKind(r), text, label };
}

export function sideRow(s: SideRecord): RowDisplay {
  return { kind: s.type, text: s.preview, label: null };
}

/** A display message and the image ordinal of each image block it holds (by the block's index in `content`). */
export interface Displayed {
  m: Obj;
  imageOrd: number[];
}

/** Claude content blocks → display blocks; image ordinals counted from `base` (tool result contents included). */
function mapBlocks(content: unknown, base: { n: number }, imageOrd: number[]): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out: unknown[] = [];
  for (const b of content) {
    if (!isObj(b)) continue;
    switch (b.type) {
      case 'text':
        out.push({ type: 'text', text: str(b.text) ?? '' });
        break;
      case 'thinking':
        out.push({ type: 'thinking', thinking: str(b.thinking) ?? '' });
        break;
      case 'redacted_thinking':
        out.push({ type: 'redactedThinking' });
        break;
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use':
        out.push({ type: 'toolCall', id: str(b.id) ?? '', name: str(b.name) ?? '?', arguments: b.input ?? {} });
        break;
      case 'image': {
        const src = isObj(b.source) ? b.source : {};
        imageOrd[out.length] = base.n++;
        // `data` stays empty: the bytes are fetched by ordinal when the image is shown
        out.push({ type: 'image', data: '', mimeType: str(src.media_type) ?? 'image/png' });
        break;
      }
      case 'tool_result':
        // counted for the ordinals of later images; shown as its own toolResult row
        countImages(b.content, base);
        break;
      default: {
        const { type, ...rest } = b;
        out.push({ type, ...rest });
      }
    }
  }
  return out;
}

function countImages(content: unknown, base: { n: number }): void {
  if (!Array.isArray(content)) return;
  for (const b of content) if (isObj(b) && b.type === 'image') base.n++;
}

const messageOf = (body: Obj): Obj => (isObj(body.message) ? body.message : {});

/** Claude's stop reasons in the words the display's badges skip (end_turn and tool_use are ordinary). */
function stopReason(s: string | null): string | undefined {
  if (s === null) return undefined;
  if (s === 'tool_use') return 'toolUse';
  if (s === 'stop_sequence') return 'stop';
  return s;
}

/**
 * An assistant message: its lines' blocks in order, less `dropTrailing` trailing thinking blocks
 * the CLI does not send; `placeholder` when nothing is left. `usage`: the response's usage,
 * counted once (A.6).
 */
export function assistantDisplayed(lines: readonly Obj[], facts: readonly ClaudeRecord[], dropTrailing: number, placeholder: string | null, usage: Usage | null): Displayed {
  const imageOrd: number[] = [];
  let content: unknown[] = [];
  for (const body of lines) content.push(...mapBlocks(messageOf(body).content, { n: 0 }, []));
  if (dropTrailing > 0) content = content.slice(0, Math.max(0, content.length - dropTrailing));
  if (placeholder !== null) content = [{ type: 'text', text: placeholder }];
  const model = facts.map((f) => f.model).find((x) => x !== null && x !== '<synthetic>') ?? facts.find((f) => f.model !== null)?.model ?? null;
  let stop: string | null = null;
  for (const f of facts) if (f.stopReason !== null) stop = f.stopReason;
  const error = facts.some((f) => (f.flags & RecordFlag.ApiError) !== 0);
  const m: Obj = { role: 'assistant', content, ...(model ? { model } : {}), ...(usage ? { usage } : {}) };
  const sr = stopReason(stop);
  if (sr !== undefined) m.stopReason = sr;
  if (error) m.errorMessage = textOfBlocks(content) || 'API error';
  return { m, imageOrd };
}

function textOfBlocks(content: readonly unknown[]): string {
  return content.flatMap((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n');
}

/** The part of a user record that is not a tool result (text, images, documents). */
export function userContentDisplayed(body: Obj): Displayed {
  const imageOrd: number[] = [];
  const raw = messageOf(body).content;
  const content = mapBlocks(raw, { n: 0 }, imageOrd);
  return { m: { role: 'user', content }, imageOrd };
}

/** Whether a user text is CLI- or IDE-injected tagged text (shown verbatim rather than as markdown). */
export function isTaggedText(body: Obj): boolean {
  const c = messageOf(body).content;
  const first = typeof c === 'string' ? c : Array.isArray(c) ? (c.find((b) => isObj(b) && b.type === 'text') as Obj | undefined)?.text : undefined;
  return typeof first === 'string' && TAGGED.test(first);
}

/** The compaction summary (isCompactSummary): shown as the compaction it stands for. */
export function compactSummaryDisplayed(body: Obj, tokensBefore: number | null): Displayed {
  const c = messageOf(body).content;
  const text = typeof c === 'string' ? c : textOfBlocks(Array.isArray(c) ? c : []);
  return { m: { role: 'compactionSummary', summary: text, tokensBefore }, imageOrd: [] };
}

/** The `block`-th tool_result of a user record as a toolResult message. */
export function toolResultDisplayed(body: Obj, block: number, toolName: string | null): Displayed {
  const raw = messageOf(body).content;
  const imageOrd: number[] = [];
  const base = { n: 0 };
  let k = 0;
  let found: Obj | null = null;
  if (Array.isArray(raw)) {
    for (const b of raw) {
      if (!isObj(b)) continue;
      if (b.type === 'image') base.n++;
      else if (b.type === 'tool_result') {
        if (k++ === block) {
          found = b;
          break;
        }
        countImages(b.content, base);
      }
    }
  }
  const r = found ?? {};
  const content = mapBlocks(r.content, base, imageOrd);
  return { m: { role: 'toolResult', toolCallId: str(r.tool_use_id) ?? '', toolName, isError: r.is_error === true, content }, imageOrd };
}

/** An attachment record (A.9): sent as meta user text; shown with its fields, since the CLI's wording is not recorded. */
export function attachmentDisplayed(body: Obj): Displayed {
  const a = isObj(body.attachment) ? body.attachment : {};
  const text = str(a.content);
  return { m: { role: 'custom', customType: `attachment · ${str(a.type) ?? '?'}`, content: text ?? '', details: a }, imageOrd: [] };
}

/** B.4 step 8: the result the CLI makes up for a call without one. */
export function missingResultDisplayed(callId: string, toolName: string | null, text: string): Displayed {
  return { m: { role: 'toolResult', toolCallId: callId, toolName, isError: true, content: text }, imageOrd: [] };
}

/** messageParts over a displayed message, its image blocks renamed to their ordinals in the record. */
export function partsOf(d: Displayed, entryId: string, verbatim: boolean): MessageParts {
  const parts = messageParts(d.m, entryId);
  for (const b of parts.blocks) {
    if (b.kind === 'image') b.blockIndex = d.imageOrd[b.blockIndex] ?? b.blockIndex;
    else if (verbatim && b.kind === 'markdown') (b as { kind: string }).kind = 'text';
  }
  return parts;
}
