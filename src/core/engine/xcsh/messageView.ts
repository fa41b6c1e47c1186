// Turns one context message (or cut entry) into the display blocks the webview renders. The
// webview knows nothing of the session format: it gets text to escape, markdown to sanitise,
// JSON to show, and references to images it can ask for.
import { parseBlobRef } from '../../formats/xcsh/blobs';
import type { Block, MessageView } from '../../../protocol/messages';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Longest text sent for one block; the rest stays in the file (the raw editor shows it). */
export const MAX_BLOCK_CHARS = 40_000;
/** What one image costs in the token estimate (providers bill roughly a thousand for a screenshot). */
export const IMAGE_TOKENS_EST = 1_000;

export function clip(text: string, max = MAX_BLOCK_CHARS): { text: string; truncatedFrom?: number } {
  return text.length > max ? { text: text.slice(0, max), truncatedFrom: text.length } : { text };
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The parts of a message the rest of the editor needs besides its blocks. */
export type MessageParts = Pick<MessageView, 'role' | 'subtitle' | 'badges' | 'usage' | 'hiddenFromUser' | 'blocks'> & {
  toolCallIds: string[];
  toolResult: { callId: string; toolName: string | null; isError: boolean } | null;
};

function contentBlocks(content: unknown, entryId: string, textKind: 'markdown' | 'text'): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ kind: textKind, ...clip(content) }];
  if (!Array.isArray(content)) return content === undefined || content === null ? [] : [{ kind: 'json', label: 'content', json: json(content) }];
  const blocks: Block[] = [];
  content.forEach((b, blockIndex) => {
    if (!isObj(b)) return;
    switch (b.type) {
      case 'text':
        if (typeof b.text === 'string' && b.text !== '') blocks.push({ kind: textKind, ...clip(b.text) });
        break;
      case 'thinking':
        blocks.push({ kind: 'thinking', text: clip(str(b.thinking) ?? '').text, redacted: false });
        break;
      case 'redactedThinking':
        blocks.push({ kind: 'thinking', text: '', redacted: true });
        break;
      case 'image':
        blocks.push({ kind: 'image', entryId, blockIndex, mimeType: str(b.mimeType) ?? 'image/png', blobHash: parseBlobRef(b.data) });
        break;
      case 'toolCall':
        blocks.push({
          kind: 'toolCall',
          callId: str(b.id) ?? '',
          name: str(b.name) ?? '?',
          argsJson: clip(json(b.arguments ?? {})).text,
          resultIndex: null,
          resultIsError: false,
        });
        break;
      default:
        blocks.push({ kind: 'json', label: `${String(b.type)} block`, json: clip(json(b)).text });
    }
  });
  return blocks;
}

function usageOf(m: Obj): MessageView['usage'] {
  const u = m.usage;
  if (!isObj(u)) return null;
  const cost = isObj(u.cost) ? num(u.cost.total) : 0;
  return { input: num(u.input), output: num(u.output), cacheRead: num(u.cacheRead), cacheWrite: num(u.cacheWrite), cost };
}

/** What the context chart reads of an assistant message: its model as the row's subtitle, and its usage. */
export function assistantChartFacts(m: Obj): Pick<MessageView, 'subtitle' | 'usage'> {
  const provider = str(m.provider);
  const model = str(m.model);
  return { subtitle: model ? (provider ? `${provider}/${model}` : model) : null, usage: usageOf(m) };
}

export function messageParts(m: Obj, entryId: string): MessageParts {
  const role = str(m.role) ?? '?';
  const base: MessageParts = { role, subtitle: null, badges: [], usage: null, hiddenFromUser: false, blocks: [], toolCallIds: [], toolResult: null };
  switch (role) {
    case 'user':
    case 'developer':
      return { ...base, blocks: contentBlocks(m.content, entryId, 'markdown') };
    case 'assistant': {
      const blocks = contentBlocks(m.content, entryId, 'markdown');
      const stop = str(m.stopReason);
      const err = str(m.errorMessage);
      if (err || stop === 'error' || stop === 'aborted') blocks.push({ kind: 'error', text: err ?? `stopped: ${stop}` });
      const toolCallIds = blocks.flatMap((b) => (b.kind === 'toolCall' && b.callId ? [b.callId] : []));
      return {
        ...base,
        ...assistantChartFacts(m),
        badges: stop && stop !== 'stop' && stop !== 'toolUse' && stop !== 'end_turn' ? [stop] : [],
        blocks,
        toolCallIds,
      };
    }
    case 'toolResult': {
      const isError = m.isError === true;
      const toolName = str(m.toolName);
      return {
        ...base,
        subtitle: toolName,
        badges: isError ? ['error'] : [],
        blocks: contentBlocks(m.content, entryId, 'text'),
        toolResult: { callId: str(m.toolCallId) ?? '', toolName, isError },
      };
    }
    case 'bashExecution':
    case 'pythonExecution': {
      const bash = role === 'bashExecution';
      const exitCode = typeof m.exitCode === 'number' ? m.exitCode : null;
      return {
        ...base,
        badges: exitCode !== null && exitCode !== 0 ? [`exit ${exitCode}`] : [],
        blocks: [
          {
            kind: 'exec',
            language: bash ? 'bash' : 'python',
            command: clip(str(bash ? m.command : m.code) ?? '').text,
            output: clip(str(m.output) ?? '').text,
            exitCode,
            cancelled: m.cancelled === true,
            truncated: m.truncated === true,
            fullOutputPath: str(m.fullOutputPath),
          },
        ],
      };
    }
    case 'custom':
    case 'hookMessage': {
      const hidden = m.display === false;
      const blocks = contentBlocks(m.content, entryId, 'markdown');
      if (m.details !== undefined) blocks.push({ kind: 'json', label: 'details', json: clip(json(m.details)).text });
      return { ...base, subtitle: str(m.customType), badges: hidden ? ['display: false'] : [], hiddenFromUser: hidden, blocks };
    }
    case 'branchSummary':
      return { ...base, blocks: [{ kind: 'branchSummary', summary: clip(str(m.summary) ?? '').text, fromId: str(m.fromId) }] };
    case 'compactionSummary':
      return {
        ...base,
        blocks: [
          {
            kind: 'compaction',
            summary: clip(str(m.summary) ?? '').text,
            shortSummary: str(m.shortSummary),
            tokensBefore: typeof m.tokensBefore === 'number' ? m.tokensBefore : null,
            timestamp: null,
          },
        ],
      };
    default:
      return { ...base, blocks: [{ kind: 'json', label: role, json: clip(json(m)).text }] };
  }
}

function contentChars(content: unknown): { chars: number; images: number } {
  if (typeof content === 'string') return { chars: content.length, images: 0 };
  if (!Array.isArray(content)) return { chars: 0, images: 0 };
  let chars = 0;
  let images = 0;
  for (const b of content) {
    if (!isObj(b)) continue;
    if (b.type === 'text') chars += str(b.text)?.length ?? 0;
    else if (b.type === 'thinking') chars += str(b.thinking)?.length ?? 0;
    else if (b.type === 'image') images++;
    else if (b.type === 'toolCall') chars += (str(b.name)?.length ?? 0) + json(b.arguments ?? {}).length;
  }
  return { chars, images };
}

/**
 * Estimated tokens of one message: characters / 4, plus a flat cost per image. An estimate,
 * labelled as such in the UI; real counts depend on the model's tokenizer.
 */
export function estimateTokens(m: Obj): number {
  let chars = 0;
  let images = 0;
  const add = (c: { chars: number; images: number }): void => {
    chars += c.chars;
    images += c.images;
  };
  add(contentChars(m.content));
  for (const k of ['command', 'code', 'output', 'summary'] as const) chars += str(m[k])?.length ?? 0;
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS_EST;
}
