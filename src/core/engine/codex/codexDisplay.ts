// How a Codex response item is shown (codex-format.md A.4): as the display message the editor
// already renders for xcsh and dsh (src/core/engine/xcsh/messageView.ts), so the webview needs no
// Codex knowledge. Content items map 1:1 onto blocks (an image's block index is its index in the
// item's content or output array, which image() reads back). Nothing here changes what the model
// saw — it only names it: reasoning as thinking, calls as tool calls, outputs as tool results,
// contextual messages as injected context, the opaque server-side summary as a compaction.
import { contextualTagOf, contentItems, isContextualUserContent, isRealUserMessage, typedPrompt } from '../../formats/codex/contextual';
import { isObj, num, str, type CodexRecord, type Obj } from '../../formats/codex/types';
import type { CodexUsage } from '../../formats/codex/usage';
import { oneLine } from '../../tree/treeView';

export interface DisplayMessage extends Obj {
  role: string;
}

/** The mime type of a `data:` URL, or null for any other URL. */
export function dataUrlMime(url: string): string | null {
  const m = /^data:([^;,]+)(;[^,]*)?,/i.exec(url);
  return m ? m[1]!.toLowerCase() : null;
}

/** Content items (input_text, output_text, input_image, …) → display blocks, index for index. */
function blocksOf(items: readonly unknown[]): unknown[] {
  return items.map((c) => {
    if (!isObj(c)) return c;
    if ((c.type === 'input_text' || c.type === 'output_text' || c.type === 'text') && typeof c.text === 'string') return { type: 'text', text: c.text };
    if (c.type === 'input_image') {
      const url = str(c.image_url) ?? '';
      return { type: 'image', data: '', mimeType: dataUrlMime(url) ?? 'image/*' };
    }
    return c;
  });
}

/** A tool call's arguments: Codex stores a JSON string (A.4); shown parsed when it parses. */
function parsedArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** A tool output's text and exit status (0.40: JSON `{output, metadata{exit_code}}` in a string; later "Exit code: N …"). */
export function outputFacts(output: unknown): { content: unknown[]; exitCode: number | null; failed: boolean } {
  if (typeof output === 'string') {
    if (output.startsWith('{"output"')) {
      try {
        const o = JSON.parse(output) as unknown;
        if (isObj(o) && typeof o.output === 'string') {
          const exit = isObj(o.metadata) ? num(o.metadata.exit_code) : null;
          return { content: [{ type: 'text', text: o.output }], exitCode: exit, failed: exit !== null && exit !== 0 };
        }
      } catch {
        // shown as stored
      }
    }
    const m = /^Exit code: (-?\d+)/.exec(output);
    const exit = m ? Number(m[1]) : null;
    return { content: [{ type: 'text', text: output }], exitCode: exit, failed: exit !== null && exit !== 0 };
  }
  if (Array.isArray(output)) return { content: blocksOf(output), exitCode: null, failed: false };
  if (isObj(output)) {
    // `{content, success}` (FunctionCallOutputPayload written as an object by some versions)
    const inner = outputFacts(output.content);
    return { ...inner, failed: inner.failed || output.success === false };
  }
  return { content: output === undefined || output === null ? [] : [{ type: 'text', text: JSON.stringify(output) }], exitCode: null, failed: false };
}

const toolName = (item: Obj): string => {
  const name = str(item.name) ?? '?';
  const ns = str(item.namespace);
  return ns ? `${ns}.${name}` : name;
};

/** Response items that call a tool. */
export const CALL_TYPES: ReadonlySet<string> = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'tool_search_call', 'web_search_call', 'image_generation_call']);

/** The tool a call item (with a `call_id`) runs, which names the output answering it; null for any other item. */
export function callToolName(item: Obj): string | null {
  return CALL_TYPES.has(String(item.type)) && typeof item.call_id === 'string' ? (str(item.name) ?? String(item.type).replace(/_call$/, '')) : null;
}

/** The display usage of a response (cached and cache-write tokens are parts of the input, C §4). */
export function displayUsage(u: CodexUsage): { input: number; output: number; cacheRead: number; cacheWrite: number; cost: { total: number } } {
  return { input: Math.max(0, u.input - u.cachedInput - u.cacheWrite), output: u.output, cacheRead: u.cachedInput, cacheWrite: u.cacheWrite, cost: { total: 0 } };
}

export interface DisplayContext {
  /** provider/model of the turn the item was written in. */
  model: string | null;
  usage: CodexUsage | null;
  toolNames: ReadonlyMap<string, string>;
}

/** The display message of one response item. */
export function displayMessage(item: Obj, ctx: DisplayContext): DisplayMessage {
  const assistant = (content: unknown[]): DisplayMessage => ({ role: 'assistant', ...(ctx.model ? { model: ctx.model } : {}), content, ...(ctx.usage ? { usage: displayUsage(ctx.usage) } : {}) });
  switch (item.type) {
    case 'message': {
      const content = blocksOf(contentItems(item));
      if (item.role === 'assistant') return assistant(content);
      if (item.role === 'user' && isContextualUserContent(contentItems(item))) {
        const tag = contentItems(item)
          .map((c) => (typeof c.text === 'string' ? contextualTagOf(c.text, 'user') : null))
          .find((x) => x !== null);
        return { role: 'custom', customType: `context · ${tag ?? '?'}`, content };
      }
      return { role: str(item.role) ?? 'user', content };
    }
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? item.summary.filter(isObj).map((s) => str(s.text) ?? '') : [];
      const raw = Array.isArray(item.content) ? item.content.filter(isObj).map((s) => str(s.text) ?? '') : [];
      const blocks: unknown[] = [];
      if (summary.some((s) => s !== '')) blocks.push({ type: 'thinking', thinking: summary.join('\n\n') });
      if (raw.some((s) => s !== '')) blocks.push({ type: 'thinking', thinking: raw.join('\n\n') });
      if (blocks.length === 0) blocks.push({ type: 'redactedThinking' });
      return assistant(blocks);
    }
    case 'function_call':
      return assistant([{ type: 'toolCall', id: str(item.call_id) ?? '', name: toolName(item), arguments: parsedArguments(item.arguments) }]);
    case 'custom_tool_call':
      return assistant([{ type: 'toolCall', id: str(item.call_id) ?? '', name: toolName(item), arguments: { input: str(item.input) ?? '' } }]);
    case 'local_shell_call':
      return assistant([{ type: 'toolCall', id: str(item.call_id) ?? '', name: 'local_shell', arguments: item.action ?? {} }]);
    case 'tool_search_call':
      return assistant([{ type: 'toolCall', id: str(item.call_id) ?? '', name: 'tool_search', arguments: parsedArguments(item.arguments) }]);
    case 'web_search_call':
      return assistant([{ type: 'toolCall', id: str(item.id) ?? '', name: 'web_search', arguments: item.action ?? {} }]);
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = str(item.call_id) ?? '';
      const f = outputFacts(item.output);
      return { role: 'toolResult', toolCallId: callId, toolName: ctx.toolNames.get(callId) ?? str(item.name), isError: f.failed, content: f.content, ...(f.exitCode !== null ? { exitCode: f.exitCode } : {}) };
    }
    case 'tool_search_output': {
      const callId = str(item.call_id) ?? '';
      return { role: 'toolResult', toolCallId: callId, toolName: 'tool_search', isError: false, content: [{ type: 'text', text: JSON.stringify(item.tools ?? [], null, 2) }] };
    }
    case 'compaction':
    case 'compaction_summary':
    case 'context_compaction': {
      const enc = str(item.encrypted_content);
      return { role: 'compactionSummary', summary: enc !== null ? `(server-side compaction summary: ${enc.length} characters, encrypted — not readable)` : JSON.stringify(item) };
    }
    default:
      // agent_message, image_generation_call and anything newer: shown as stored
      return { role: `item:${String(item.type)}`, content: [] };
  }
}

/** Extra tokens an encrypted item costs the model (history.rs estimate: ¾ of its length − 650 bytes, ≈4 bytes a token). */
export function encryptedTokens(item: Obj): number {
  const enc = str(item.encrypted_content);
  if (enc === null) return 0;
  return Math.ceil(Math.max(0, Math.floor((enc.length * 3) / 4) - 650) / 4);
}

/** One line of a response item for a tree row (and the search). */
export function itemPreview(item: Obj, max = 140): string {
  switch (item.type) {
    case 'message': {
      const text = contentItems(item)
        .map((c) => (typeof c.text === 'string' ? c.text : c.type === 'input_image' ? '[image]' : ''))
        .join(' ');
      // A prompt shows what the user typed (older VS Code sessions wrap it in IDE context, A.4).
      return oneLine(isRealUserMessage(item) ? typedPrompt(text) : text, max) || `(empty ${String(item.role)} message)`;
    }
    case 'reasoning': {
      const s = Array.isArray(item.summary) ? item.summary.filter(isObj).map((x) => str(x.text) ?? '').join(' ') : '';
      return oneLine(s, max) || '(reasoning, encrypted)';
    }
    case 'function_call':
    case 'tool_search_call': {
      const args = parsedArguments(item.arguments);
      const cmd = isObj(args) && Array.isArray(args.command) ? args.command.map(String).join(' ') : typeof args === 'string' ? args : JSON.stringify(args);
      return oneLine(`→ ${toolName(item)} ${cmd}`, max);
    }
    case 'custom_tool_call':
      return oneLine(`→ ${toolName(item)} ${str(item.input) ?? ''}`, max);
    case 'local_shell_call': {
      const a = isObj(item.action) ? item.action : {};
      return oneLine(`→ local_shell ${Array.isArray(a.command) ? a.command.map(String).join(' ') : ''}`, max);
    }
    case 'web_search_call': {
      const a = isObj(item.action) ? item.action : {};
      return oneLine(`→ web_search ${str(a.query) ?? str(a.url) ?? str(a.pattern) ?? ''}`, max);
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const f = outputFacts(item.output);
      const text = f.content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).join(' ');
      return oneLine(`${f.exitCode !== null ? `exit ${f.exitCode} · ` : ''}${text}`, max) || '(empty output)';
    }
    case 'compaction':
    case 'compaction_summary':
    case 'context_compaction':
      return 'server-side compaction summary (encrypted)';
    default:
      return oneLine(`${String(item.type)} ${JSON.stringify(item)}`, max);
  }
}

/** The kind a tree row shows for a record (an icon in the webview), and whether it is a real user prompt. */
export function recordKind(rec: CodexRecord): string {
  const p = isObj(rec.payload) ? rec.payload : {};
  switch (rec.type) {
    case 'response_item':
      switch (p.type) {
        case 'message':
          if (p.role === 'user') return isContextualUserContent(contentItems(p)) ? 'custom' : 'user';
          return p.role === 'assistant' ? 'assistant' : p.role === 'developer' ? 'developer' : `message:${String(p.role)}`;
        case 'reasoning':
          return 'assistant';
        case 'function_call':
        case 'custom_tool_call':
        case 'local_shell_call':
        case 'tool_search_call':
        case 'web_search_call':
          return 'toolCall';
        case 'function_call_output':
        case 'custom_tool_call_output':
        case 'tool_search_output':
          return 'toolResult';
        case 'compaction':
        case 'compaction_summary':
        case 'context_compaction':
          return 'compaction';
        default:
          return String(p.type ?? 'response_item');
      }
    case 'compacted':
      return 'compaction';
    case 'session_meta':
      return 'session_init';
    case 'event_msg':
      return `event:${String(p.type ?? '?')}`;
    default:
      return rec.type;
  }
}

/**
 * A Sessions row's icon facts: the display role of a record's message (a tool call is the
 * assistant's, calling a tool), null for a record that is no message (its kind names it).
 */
export function recordIconFacts(rec: CodexRecord): { role: string | null; callsTools: boolean } {
  const kind = recordKind(rec);
  if (kind === 'toolCall') return { role: 'assistant', callsTools: true };
  return { role: ['user', 'assistant', 'developer', 'toolResult', 'custom'].includes(kind) ? kind : null, callsTools: false };
}

function json(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

/** One line of a record for a tree row. */
export function recordPreview(rec: CodexRecord, max = 140): string {
  const p = isObj(rec.payload) ? rec.payload : {};
  switch (rec.type) {
    case 'response_item':
      return itemPreview(p, max);
    case 'session_meta':
      return oneLine(`session ${str(p.id) ?? '?'} · ${str(p.cwd) ?? ''}${str(p.cli_version) ? ` · codex ${str(p.cli_version)}` : ''}`, max);
    case 'turn_context':
      return oneLine(`turn context: ${[str(p.model), str(p.effort), str(p.approval_policy)].filter(Boolean).join(' · ')}`, max);
    case 'compacted':
      return oneLine(`compaction: ${str(p.message) ?? ''}`, max) || 'compaction';
    case 'event_msg':
      switch (p.type) {
        case 'thread_rolled_back':
          return `rolled back ${num(p.num_turns) ?? '?'} turn(s)`;
        case 'turn_aborted':
          return `turn aborted: ${str(p.reason) ?? '?'}`;
        case 'user_message':
        case 'agent_message':
          return oneLine(`${String(p.type)}: ${str(p.message) ?? ''}`, max);
        case 'agent_reasoning':
          return oneLine(`agent_reasoning: ${str(p.text) ?? ''}`, max);
        case 'token_count': {
          const info = isObj(p.info) ? p.info : null;
          const last = info && isObj(info.last_token_usage) ? info.last_token_usage : null;
          return last ? `tokens: in ${num(last.input_tokens) ?? 0} (cached ${num(last.cached_input_tokens) ?? 0}) · out ${num(last.output_tokens) ?? 0}` : 'tokens: unknown';
        }
        default: {
          const { type: _t, ...rest } = p;
          const r = json(rest);
          return oneLine(`${String(p.type)}${r === '{}' ? '' : ` ${r}`}`, max);
        }
      }
    default:
      return oneLine(`${rec.type} ${json(rec.payload)}`, max);
  }
}
