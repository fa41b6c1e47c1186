// What the search index knows of one entry: its searchable text (user and assistant text, tool
// names and arguments, tool output, summaries, labels, titles — not thinking blocks, which the
// tree and the context preview show collapsed, nor signatures, ids, usage or image data), the
// words of its role and type (plain words match them, as the Sessions view's search always did),
// and the tokens the query language's filters use (`role:`, `tool:`, `agent:`). Codex and Claude
// Code records are indexed through the display messages their models show (messagesSearchFields),
// so their text is what the editor shows, read by the same rules.
import { contentText, roleOf, type ViewEntry } from '../tree/treeView';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Filter tokens: a prefix no word of a session plausibly has, so `role:user` cannot match a text
 * that says "user". FTS5's unicode61 tokenizer keeps letters and digits together, so each of
 * these is one token.
 */
export const ROLE_TOKEN = 'zzslrole';
export const TOOL_TOKEN = 'zzsltool';
/** The agent that wrote the session (xcsh, dsh, codex, claude): on every row of a file, title included. */
export const AGENT_TOKEN = 'zzslagent';

/** A role or tool name as a filter token (letters and digits only, lower-cased). */
export function filterToken(prefix: string, name: string): string {
  return prefix + name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

export interface EntrySearchFields {
  /** The searchable text. */
  body: string;
  /** Role / type words and filter tokens. */
  meta: string;
  /** The entry to open for this row: its own id, or the target of a label. */
  openId: string;
  /** Epoch ms of the entry, when it has a readable timestamp. */
  time: number | null;
}

function argumentsText(args: unknown): string {
  if (args === undefined) return '';
  if (typeof args === 'string') return args;
  try {
    return JSON.stringify(args);
  } catch {
    return '';
  }
}

/** Tool output and other text-like fields of a message: text blocks, a bash/python run's command and output. */
function messageBody(m: Obj, tools: string[]): string {
  const role = str(m.role);
  const parts: string[] = [];
  if (role === 'bashExecution') parts.push(str(m.command) ?? '', str(m.output) ?? '');
  else if (role === 'pythonExecution') parts.push(str(m.code) ?? '', str(m.output) ?? '');
  else if (role === 'branchSummary' || role === 'compactionSummary') parts.push(str(m.summary) ?? '');
  if (role === 'toolResult' && str(m.toolName)) tools.push(str(m.toolName)!);
  const content = m.content;
  if (typeof content === 'string') parts.push(content);
  else if (Array.isArray(content)) {
    for (const b of content) {
      if (!isObj(b)) continue;
      if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
      else if (b.type === 'toolCall') {
        const name = str(b.name) ?? '';
        if (name) tools.push(name);
        parts.push(name, argumentsText(b.arguments));
      }
    }
  }
  return parts.filter((p) => p !== '').join('\n');
}

/** The time of an entry (its own ISO or epoch timestamp, else its message's). */
export function entryTime(e: ViewEntry): number | null {
  const t = e.timestamp;
  if (typeof t === 'number' && Number.isFinite(t)) return t;
  if (typeof t === 'string') {
    const ms = Date.parse(t);
    if (Number.isFinite(ms)) return ms;
  }
  const m = e.message;
  if (isObj(m) && typeof m.timestamp === 'number' && Number.isFinite(m.timestamp)) return m.timestamp;
  return null;
}

/** The index row of an entry; null for an entry that cannot be opened (no id). */
export function entrySearchFields(e: ViewEntry): EntrySearchFields | null {
  if (typeof e.id !== 'string') return null;
  const tools: string[] = [];
  const role = roleOf(e);
  let body: string;
  let openId = e.id;
  const m = isObj(e.message) ? e.message : undefined;
  if (m) body = messageBody(m, tools);
  else {
    switch (e.type) {
      case 'label':
        body = str(e.label) ?? '';
        openId = str(e.targetId) ?? e.id;
        break;
      case 'compaction':
        body = [str(e.shortSummary), str(e.summary)].filter(Boolean).join('\n');
        break;
      case 'branch_summary':
        body = str(e.summary) ?? '';
        break;
      case 'custom_message':
        body = [str(e.customType) ?? '', contentText(e.content)].join('\n');
        break;
      case 'session_init':
        body = str(e.task) ?? '';
        break;
      case 'session_info':
        body = str(e.name) ?? '';
        break;
      case 'title_change':
        body = str(e.title) ?? '';
        break;
      case 'model_change':
        body = str(e.model) ?? [str(e.provider), str(e.modelId)].filter(Boolean).join('/');
        break;
      case 'mode_change':
        body = str(e.mode) ?? '';
        break;
      default:
        body = '';
    }
  }
  const meta = [e.type, role ?? '', role ? filterToken(ROLE_TOKEN, role) : filterToken(ROLE_TOKEN, e.type), ...tools.map((t) => filterToken(TOOL_TOKEN, t))].filter((s) => s !== '').join(' ');
  return { body, meta, openId, time: entryTime(e) };
}

/**
 * The index row of a record another agent wrote, from the display messages its model shows for it
 * (the xcsh message shape: codexDisplay.ts, claudeDisplay.ts): their text by the rules above,
 * `role` as the `role:` token, the tools they call or answer as `tool:` tokens, and `words` (the
 * record's type and kind) as plain meta words.
 */
export function messagesSearchFields(messages: readonly unknown[], words: readonly string[], role: string, openId: string, time: number | null): EntrySearchFields {
  const tools: string[] = [];
  const body = messages
    .filter(isObj)
    .map((m) => messageBody(m, tools))
    .filter((p) => p !== '')
    .join('\n');
  const meta = [...words, role, filterToken(ROLE_TOKEN, role), ...tools.map((t) => filterToken(TOOL_TOKEN, t))].filter((s) => s !== '').join(' ');
  return { body, meta, openId, time };
}
