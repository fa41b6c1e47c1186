// How a dsh event is shown: its message in the display shape the editor renders (the same one
// xcsh messages take, so src/core/engine/xcsh/messageView.ts renders both), and the one-line
// preview a tree row shows. dsh messages are `{id, role, content, source}` with content blocks
// `text`, `reasoning`, `image` (an attachment), `tool-call` (arguments as a JSON string) and
// `tool-result` (dsh-format.md §2): they map onto text, thinking, image, toolCall and the
// toolResult role. Nothing here changes what the model saw — it only names it for display.
import { oneLine } from '../../tree/treeView';
import type { DshEvent } from '../../formats/dsh/types';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A tool-call's arguments: dsh stores the raw JSON string; shown parsed when it parses. */
function argumentsOf(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** dsh content blocks → display blocks (text, thinking, image, toolCall; others as they are). */
function blocksOf(content: unknown): unknown[] {
  if (!Array.isArray(content)) return [];
  return content.map((b: unknown) => {
    if (!isObj(b)) return b;
    switch (b.type) {
      case 'reasoning':
        return { type: 'thinking', thinking: str(b.text) ?? '' };
      case 'tool-call':
        return { type: 'toolCall', id: str(b.id) ?? '', name: str(b.name) ?? '?', arguments: argumentsOf(b.arguments) };
      case 'image': {
        const a = isObj(b.attachment) ? b.attachment : {};
        // `data` carries the attachment id: the model resolves it from the attachment store.
        return { type: 'image', data: str(a.attachmentId) ?? '', mimeType: str(a.mediaType) ?? 'image/png' };
      }
      default:
        return b;
    }
  });
}

/** The tool-result block of a tool/result message (its first `tool-result` block). */
function toolResultBlock(m: Obj): Obj | undefined {
  return Array.isArray(m.content) ? (m.content.find((b) => isObj(b) && b.type === 'tool-result') as Obj | undefined) : undefined;
}

export interface DisplayMessage extends Obj {
  role: string;
}

/**
 * The display message of a projected dsh Message (as stored). `event` is its surface event, for
 * what the message itself does not carry (usage, an interrupted stream); `toolNames` names the
 * calls (callId → tool name) so a result can say which tool it answers.
 */
export function displayMessage(message: unknown, event: DshEvent | undefined, toolNames: ReadonlyMap<string, string>): DisplayMessage {
  const m = isObj(message) ? message : {};
  const source = isObj(m.source) ? m.source : {};
  const data = isObj(event?.data) ? event.data : {};
  if (m.role === 'assistant') {
    const usage = isObj(data.usage) ? data.usage : undefined;
    return {
      role: 'assistant',
      ...(str(source.provider) ? { provider: source.provider } : {}),
      ...(str(source.model) ? { model: source.model } : {}),
      content: blocksOf(m.content),
      ...(usage ? { usage: { input: num(usage.inputTokens), output: num(usage.outputTokens), cacheRead: num(usage.cacheReadTokens), cacheWrite: num(usage.cacheWriteTokens) } } : {}),
      ...(data.interrupted === true ? { stopReason: 'aborted' } : {}),
    };
  }
  if (source.kind === 'tool') {
    const r = toolResultBlock(m) ?? {};
    const callId = str(r.toolCallId) ?? str(source.callId) ?? '';
    return { role: 'toolResult', toolCallId: callId, toolName: toolNames.get(callId), isError: r.isError === true, content: blocksOf(r.content) };
  }
  if (source.kind === 'user' || source.kind === undefined) return { role: 'user', content: blocksOf(m.content) };
  // Injected context (a plugin's instructions or snapshot, a compaction summary, a subagent report…):
  // sent to the model, not typed by the user.
  const plugin = str(source.plugin);
  const form = str(source.form);
  const what = [plugin ?? String(source.kind), form].filter(Boolean).join(' · ');
  return { role: 'custom', customType: what, content: blocksOf(m.content) };
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) {
    if (!isObj(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'tool-call') parts.push(`→ ${str(b.name) ?? '?'} ${oneLine(str(b.arguments) ?? '', 60)}`);
    else if (b.type === 'tool-result') parts.push(textOf(b.content));
  }
  return parts.join(' ');
}

/** The kind a tree row shows for an event (an icon and a class in the webview). */
export function eventKind(e: DshEvent): string {
  switch (e.type) {
    case 'user/message': {
      const src = isObj(e.data) && isObj(e.data.source) ? e.data.source : {};
      return src.kind === 'user' || src.kind === undefined ? 'user' : 'custom';
    }
    case 'assistant/message':
      return 'assistant';
    case 'tool/result':
      return 'toolResult';
    case 'tool/call':
      return 'toolCall';
    case 'assistant/chunk':
      return 'chunk';
    default:
      return e.type.startsWith('compaction/') ? 'compaction' : 'event';
  }
}

/** The one-line text of an event's row. */
export function eventPreview(e: DshEvent, max = 140): string {
  const d = isObj(e.data) ? e.data : {};
  switch (e.type) {
    case 'user/message':
      return oneLine(textOf(d.content), max);
    case 'assistant/message':
    case 'tool/result': {
      const m = isObj(d.message) ? d.message : {};
      const text = oneLine(textOf(m.content), max);
      return text === '' ? `(empty ${e.type === 'tool/result' ? 'tool result' : 'assistant message'})` : text;
    }
    case 'tool/call':
      return oneLine(`→ ${str(d.name) ?? '?'} ${str(d.arguments) ?? ''}`, max);
    case 'assistant/chunk': {
      const c = isObj(d.chunk) ? d.chunk : {};
      return oneLine(`${str(c.type) ?? 'chunk'} ${str(c.text) ?? str(c.argumentsDelta) ?? ''}`, max);
    }
    case 'session/title':
      return oneLine(`title: ${str(d.title) ?? ''}`, max);
    case 'compaction/summary':
      return oneLine(`compaction summary: ${textOf(d.summary)}`, max);
    case 'turn/end': {
      const r = isObj(d.reason) ? d.reason : {};
      return `turn end: ${str(r.kind) ?? '?'}`;
    }
    default: {
      let json = '';
      try {
        json = JSON.stringify(e.data) ?? '';
      } catch {
        json = '';
      }
      return oneLine(`${e.type} ${json === '{}' ? '' : json}`, max);
    }
  }
}
