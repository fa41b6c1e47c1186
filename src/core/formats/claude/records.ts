// What the reader keeps of each Claude Code record (claude-code-format.md Part A): the facts the
// tree, the leaf rule, the parallel-result recovery and the API normaliser need, never the body.
// Bodies stay on disk and are read back by byte range for the rows a window shows (bodies.ts):
// a transcript reaches 100+ MB, and a single tool result or `agent_progress` line megabytes.
import { createHash } from 'node:crypto';
import { contentText, oneLine } from '../../tree/treeView';
import { contentPreview, isObj, json, PREVIEW_CHARS, progressPreview, str, systemPreview } from './previews';

type Obj = Record<string, unknown>;
export { isObj, str };
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A.2: the record types that carry `uuid`/`parentUuid` and form the conversation tree. */
export const CHAIN_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);

/** The Task/Agent tool that starts a subagent (A.1: "Task/Agent tool"). */
export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['Task', 'Agent']);

/** A.9: attachment types renamed when a transcript is loaded. */
const LEGACY_ATTACHMENTS: Readonly<Record<string, string>> = { new_file: 'file', new_directory: 'directory' };

/** B.3 step 1: attachment types the CLI never replays to the model (2.1.112). */
export const UNREPLAYED_ATTACHMENTS: ReadonlySet<string> = new Set(['compaction_reminder', 'companion_intro', 'pen_mode_enter', 'pen_mode_exit']);

export const RecordFlag = {
  Sidechain: 1,
  Meta: 2,
  CompactSummary: 4,
  TranscriptOnly: 8,
  /** `isApiErrorMessage` (A.6): a CLI-made error line. */
  ApiError: 16,
  /** `message.model === "<synthetic>"` (A.6): written by the CLI, zero usage. */
  SyntheticModel: 32,
  /** `teamName` is set (the SDK's leaf rule skips such leaves, A.11). */
  Team: 64,
} as const;

/**
 * One content block as a letter (a record's blocks as a short string): t text, w text that is
 * whitespace only, h thinking, r redacted_thinking, u tool_use (and server/MCP tool use), R
 * tool_result, i image, d document, o anything else. A string `content` is one t (or w).
 */
export type BlockCode = 't' | 'w' | 'h' | 'r' | 'u' | 'R' | 'i' | 'd' | 'o';

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ToolUseFact {
  id: string;
  name: string;
  /** `server_tool_use` / `mcp_tool_use`: answered inside the assistant message, never by a user tool_result. */
  server?: true;
  /** Task/Agent calls: a key of `input.prompt` (inline sidechains are matched by it) and the description. */
  promptKey?: string;
  description?: string;
  subagentType?: string;
}

export interface ToolResultFact {
  id: string;
  isError: boolean;
  tokens: number;
  images: number;
}

export interface CompactFacts {
  trigger: string | null;
  preTokens: number | null;
  preserved: { headUuid: string; anchorUuid: string; tailUuid: string } | null;
}

/** A chain record (A.3/A.4) as the reader keeps it. */
export interface ClaudeRecord {
  uuid: string;
  parentUuid: string | null;
  logicalParentUuid: string | null;
  /** `type` as written (user, assistant, system, attachment, progress, or an unknown one with a uuid). */
  type: string;
  /** system `subtype`, progress `data.type`, attachment `attachment.type`. */
  subtype: string | null;
  line: number;
  start: number;
  end: number;
  timestamp: string | null;
  /** `timestamp` in ms (NaN when absent or unparsable). */
  time: number;
  flags: number;
  agentId: string | null;
  sessionId: string | null;
  cwd: string | null;
  version: string | null;
  messageId: string | null;
  model: string | null;
  usage: Usage | null;
  stopReason: string | null;
  blocks: string;
  toolUses: ToolUseFact[] | null;
  toolResults: ToolResultFact[] | null;
  /** Estimated tokens of the content outside tool results (characters / 4, images at a flat rate). */
  tokens: number;
  sourceToolAssistantUUID: string | null;
  /** The one-line text a tree row shows (and what a search without the body falls back to). */
  preview: string;
  compact: CompactFacts | null;
  /** microcompact_boundary: the tool calls whose results it cleared (B.4 step 2). */
  clearedToolIds: string[] | null;
  /** A link from this record to a subagent: `agent_progress` (A.8) or a Task result's `toolUseResult.agentId`. */
  agentLink: { agentId: string; toolUseId: string | null; via: 'agent_progress' | 'toolUseResult' } | null;
  /** The key of a sidechain root's prompt (matched to the Task prompt that started it); null for other records. */
  promptKey: string | null;
  permissionMode: string | null;
  thinking: string | null;
}

/** A side record (A.3): no place in the tree, kept and shown. */
export interface SideRecord {
  type: string;
  line: number;
  start: number;
  end: number;
  preview: string;
}

/** The key a prompt text is matched by (a hash: Task prompts can be long). */
export function promptKeyOf(text: string): string {
  return createHash('sha256').update(text.trim()).digest('base64url').slice(0, 22);
}

function timeOf(ts: string | null): number {
  return ts === null ? NaN : Date.parse(ts);
}

const NON_SPACE = /\S/;

function blockCode(b: unknown): BlockCode {
  if (!isObj(b)) return 'o';
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' && NON_SPACE.test(b.text) ? 't' : 'w';
    case 'thinking':
      return 'h';
    case 'redacted_thinking':
      return 'r';
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return 'u';
    case 'tool_result':
      return 'R';
    case 'image':
      return 'i';
    case 'document':
      return 'd';
    default:
      return 'o';
  }
}

/** Characters and images of blocks as the model gets them (the token estimate's input). */
function measure(content: unknown): { chars: number; images: number } {
  if (typeof content === 'string') return { chars: content.length, images: 0 };
  if (!Array.isArray(content)) return { chars: 0, images: 0 };
  let chars = 0;
  let images = 0;
  for (const b of content) {
    if (!isObj(b)) continue;
    switch (b.type) {
      case 'text':
        chars += str(b.text)?.length ?? 0;
        break;
      case 'thinking':
        chars += str(b.thinking)?.length ?? 0;
        break;
      case 'image':
        images++;
        break;
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use':
        chars += (str(b.name)?.length ?? 0) + json(b.input ?? {}).length;
        break;
      case 'tool_result':
        break;
      default:
        chars += json(b).length;
    }
  }
  return { chars, images };
}

/** What one image costs in the estimate: the display's flat rate (engine/xcsh/messageView.ts IMAGE_TOKENS_EST). */
const IMAGE_TOKENS = 1_000;

const estimate = (m: { chars: number; images: number }): number => Math.ceil(m.chars / 4) + m.images * IMAGE_TOKENS;

function usageOf(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  return { input: num(u.input_tokens), output: num(u.output_tokens), cacheRead: num(u.cache_read_input_tokens), cacheWrite: num(u.cache_creation_input_tokens) };
}

function thinkingOf(meta: unknown): string | null {
  if (!isObj(meta)) return null;
  if (meta.disabled === true) return 'off';
  if (typeof meta.level === 'string') return meta.level;
  if (typeof meta.maxThinkingTokens === 'number') return `max ${meta.maxThinkingTokens} tokens`;
  return null;
}

function compactFacts(r: Obj): CompactFacts {
  const m = isObj(r.compactMetadata) ? r.compactMetadata : {};
  const seg = isObj(m.preservedSegment) ? m.preservedSegment : null;
  const head = seg ? str(seg.headUuid) : null;
  const anchor = seg ? str(seg.anchorUuid) : null;
  const tail = seg ? str(seg.tailUuid) : null;
  return {
    trigger: str(m.trigger),
    preTokens: typeof m.preTokens === 'number' ? m.preTokens : null,
    preserved: head && anchor && tail ? { headUuid: head, anchorUuid: anchor, tailUuid: tail } : null,
  };
}

/** The facts of a chain record; null when the value is not one (no string uuid, or a side type). */
/**
 * The chain types as the constants of this module: a parsed record's `type` is a string of its
 * own, and the tree and the context compare every record's type many times (isMessage…) — against
 * the constant they compare by identity.
 */
function chainType(type: string): string {
  switch (type) {
    case 'user':
      return 'user';
    case 'assistant':
      return 'assistant';
    case 'progress':
      return 'progress';
    case 'system':
      return 'system';
    case 'attachment':
      return 'attachment';
    default:
      return type;
  }
}

export function chainFacts(r: Obj, line: number, start: number, end: number): ClaudeRecord | null {
  const written = str(r.type);
  const uuid = str(r.uuid);
  if (written === null || uuid === null) return null;
  const type = chainType(written);
  // A.2: side records carry no uuid; an unknown type that does carry uuid/parentUuid is kept in the tree.
  if (!CHAIN_TYPES.has(type) && !('parentUuid' in r)) return null;
  const timestamp = str(r.timestamp);
  const msg = isObj(r.message) ? r.message : null;
  const content = msg ? msg.content : undefined;
  let flags = 0;
  if (r.isSidechain === true) flags |= RecordFlag.Sidechain;
  if (r.isMeta === true) flags |= RecordFlag.Meta;
  if (r.isCompactSummary === true) flags |= RecordFlag.CompactSummary;
  if (r.isVisibleInTranscriptOnly === true) flags |= RecordFlag.TranscriptOnly;
  if (r.isApiErrorMessage === true) flags |= RecordFlag.ApiError;
  if (msg && msg.model === '<synthetic>') flags |= RecordFlag.SyntheticModel;
  if (typeof r.teamName === 'string') flags |= RecordFlag.Team;

  let blocks = '';
  let toolUses: ToolUseFact[] | null = null;
  let toolResults: ToolResultFact[] | null = null;
  let tokens = 0;
  let subtype: string | null = null;
  let preview = '';
  let compact: CompactFacts | null = null;
  let clearedToolIds: string[] | null = null;
  let agentLink: ClaudeRecord['agentLink'] = null;
  let promptKey: string | null = null;

  if (type === 'user' || type === 'assistant') {
    if (typeof content === 'string') blocks = NON_SPACE.test(content) ? 't' : 'w';
    else if (Array.isArray(content)) for (const b of content) blocks += blockCode(b);
    tokens = estimate(measure(content));
    preview = contentPreview(content);
    if (Array.isArray(content)) {
      for (const b of content) {
        if (!isObj(b)) continue;
        if (b.type === 'tool_use' || b.type === 'server_tool_use' || b.type === 'mcp_tool_use') {
          const fact: ToolUseFact = { id: str(b.id) ?? '', name: str(b.name) ?? '?' };
          if (b.type !== 'tool_use') fact.server = true;
          if (SUBAGENT_TOOLS.has(fact.name) && isObj(b.input)) {
            const prompt = str(b.input.prompt);
            if (prompt !== null) fact.promptKey = promptKeyOf(prompt);
            const d = str(b.input.description);
            if (d !== null) fact.description = d;
            const st = str(b.input.subagent_type);
            if (st !== null) fact.subagentType = st;
          }
          (toolUses ??= []).push(fact);
        } else if (b.type === 'tool_result') {
          const m = measure(typeof b.content === 'string' ? b.content : Array.isArray(b.content) ? b.content : '');
          (toolResults ??= []).push({ id: str(b.tool_use_id) ?? '', isError: b.is_error === true, tokens: estimate(m), images: m.images });
        }
      }
    }
    if (type === 'user') {
      // only a sidechain's first prompt is ever matched (to the Task call that started it, B.5)
      if (r.isSidechain === true && r.parentUuid === null && toolResults === null) {
        const text = contentText(content);
        if (text !== '') promptKey = promptKeyOf(text);
      }
      const tur = r.toolUseResult;
      if (isObj(tur) && typeof tur.agentId === 'string' && toolResults !== null) agentLink = { agentId: tur.agentId, toolUseId: toolResults[0]!.id, via: 'toolUseResult' };
    }
  } else if (type === 'system') {
    subtype = str(r.subtype);
    if (subtype === 'compact_boundary') compact = compactFacts(r);
    if (subtype === 'microcompact_boundary' && isObj(r.microcompactMetadata) && Array.isArray(r.microcompactMetadata.compactedToolIds)) {
      clearedToolIds = r.microcompactMetadata.compactedToolIds.filter((x): x is string => typeof x === 'string');
    }
    preview = systemPreview(r, subtype, compact);
  } else if (type === 'progress') {
    const data = isObj(r.data) ? r.data : {};
    subtype = str(data.type);
    preview = progressPreview(data);
    if (subtype === 'agent_progress' && typeof data.agentId === 'string') agentLink = { agentId: data.agentId, toolUseId: str(r.parentToolUseID), via: 'agent_progress' };
  } else if (type === 'attachment') {
    const a = isObj(r.attachment) ? r.attachment : {};
    // A.9: legacy types are renamed on load
    subtype = LEGACY_ATTACHMENTS[str(a.type) ?? ''] ?? str(a.type);
    const body = str(a.content) ?? str(a.prompt) ?? str(a.filename) ?? '';
    tokens = estimate({ chars: body.length || json(a).length, images: 0 });
    preview = `attachment ${subtype ?? '?'}${body ? `: ${body}` : ''}`;
  } else {
    preview = type;
  }

  return {
    uuid,
    parentUuid: str(r.parentUuid),
    logicalParentUuid: str(r.logicalParentUuid),
    type,
    subtype,
    line,
    start,
    end,
    timestamp,
    time: timeOf(timestamp),
    flags,
    agentId: str(r.agentId),
    sessionId: str(r.sessionId),
    cwd: str(r.cwd),
    version: str(r.version),
    messageId: msg && type === 'assistant' ? str(msg.id) : null,
    model: msg ? str(msg.model) : null,
    usage: type === 'assistant' && msg ? usageOf(msg.usage) : null,
    stopReason: msg ? str(msg.stop_reason) : null,
    blocks,
    toolUses,
    toolResults,
    tokens,
    sourceToolAssistantUUID: str(r.sourceToolAssistantUUID),
    preview: oneLine(preview, PREVIEW_CHARS),
    compact,
    clearedToolIds,
    agentLink,
    promptKey,
    permissionMode: str(r.permissionMode),
    thinking: thinkingOf(r.thinkingMetadata),
  };
}

export const hasFlag = (r: ClaudeRecord, f: number): boolean => (r.flags & f) !== 0;
export const isSidechain = (r: ClaudeRecord): boolean => (r.flags & RecordFlag.Sidechain) !== 0;
export const isMessage = (r: ClaudeRecord): boolean => r.type === 'user' || r.type === 'assistant';
export const isBoundary = (r: ClaudeRecord): boolean => r.type === 'system' && r.subtype === 'compact_boundary';
export const isToolResultUser = (r: ClaudeRecord): boolean => r.type === 'user' && r.toolResults !== null;
/** B.3 step 4: an assistant line holding only thinking blocks. */
export const isThinkingOnly = (r: ClaudeRecord): boolean => r.blocks !== '' && /^[hr]+$/.test(r.blocks);
/** B.3 step 5: an assistant line whose content is only whitespace text. */
export const isWhitespaceOnly = (r: ClaudeRecord): boolean => r.blocks !== '' && /^w+$/.test(r.blocks);
