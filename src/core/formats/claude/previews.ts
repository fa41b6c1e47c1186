// The one-line texts of records (a tree row, and what a search without the body falls back to):
// each part of a record's content is cut before the line is made, so a tool result of megabytes
// is never copied whole.
import { oneLine } from '../../tree/treeView';
import type { CompactFacts } from './records';

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Characters a row's text keeps. */
export const PREVIEW_CHARS = 200;

export function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}


function argsPreview(input: unknown): string {
  if (!isObj(input)) return '';
  for (const key of ['command', 'file_path', 'path', 'pattern', 'query', 'url', 'description', 'prompt']) {
    const v = str(input[key]);
    if (v) return v;
  }
  return json(input);
}

/** Text kept per part of a preview before it is made one line (a tool result of megabytes is not copied whole). */
const PREVIEW_PART = 600;

export function contentPreview(content: unknown): string {
  if (typeof content === 'string') return content.slice(0, PREVIEW_PART);
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  let size = 0;
  for (const b of content) {
    if (size > PREVIEW_PART) break;
    if (!isObj(b)) continue;
    switch (b.type) {
      case 'text':
        if (typeof b.text === 'string') parts.push(b.text.slice(0, PREVIEW_PART));
        break;
      case 'thinking':
        parts.push(`(thinking) ${(str(b.thinking) ?? '').slice(0, PREVIEW_PART)}`);
        break;
      case 'redacted_thinking':
        parts.push('(redacted thinking)');
        break;
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use':
        parts.push(`→ ${str(b.name) ?? '?'} ${oneLine(argsPreview(b.input), 60)}`);
        break;
      case 'tool_result':
        parts.push(typeof b.content === 'string' ? b.content.slice(0, PREVIEW_PART) : contentPreview(b.content));
        break;
      case 'image':
        parts.push('[image]');
        break;
      case 'document':
        parts.push('[document]');
        break;
      default:
        parts.push(`[${String(b.type)}]`);
    }
    const last = parts[parts.length - 1];
    if (last !== undefined && last.length > PREVIEW_PART) parts[parts.length - 1] = last.slice(0, PREVIEW_PART);
    size += parts[parts.length - 1]?.length ?? 0;
  }
  return parts.join(' ');
}

/**
 * `n.toLocaleString('en-US')`: digits in groups of three. An integer is grouped here — the first
 * call of toLocaleString loads ICU's number formats (~14 ms of opening a transcript for one
 * compaction's row); anything else goes to it.
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 || Object.is(n, -0) ? '-' + out : out;
}

export function systemPreview(r: Obj, subtype: string | null, compact: CompactFacts | null): string {
  if (compact) {
    const parts = [compact.trigger, compact.preTokens !== null ? `${grouped(compact.preTokens)} tokens before` : null].filter(Boolean);
    return `compacted${parts.length ? ` (${parts.join(', ')})` : ''}`;
  }
  const content = str(r.content);
  return `${subtype ?? 'system'}${content ? `: ${content}` : ''}`;
}

export function progressPreview(data: Obj): string {
  const type = str(data.type) ?? 'progress';
  const what = str(data.hookName) ?? str(data.hookEvent) ?? str(data.taskDescription) ?? str(data.agentId) ?? str(data.output) ?? '';
  return `${type}${what ? ` ${what}` : ''}`;
}

/** The one-line text of a side record's row. */
export function sidePreview(r: Obj): string {
  const type = str(r.type) ?? '?';
  const value =
    str(r.summary) ?? str(r.customTitle) ?? str(r.aiTitle) ?? str(r.lastPrompt) ?? str(r.tag) ?? str(r.operation) ?? str(r.mode) ?? str(r.permissionMode) ?? str(r.prUrl) ?? str(r.messageId) ?? '';
  return oneLine(`${type}${value ? `: ${value}` : ''}`, PREVIEW_CHARS);
}
