// Which messages are the user's and which are context Codex injects (codex-format.md A.4, B.2):
// a `user` or `developer` message whose text starts with one of the known tags is *contextual* —
// sent to the model, but no user turn. The tag lists follow the CLI's own (event_mapping.rs and
// the contextual-fragment registry); matching is on the start of a text item, case-insensitive,
// after leading whitespace.
import { isObj, type Obj } from './types';

/** Tags that make a `user` message contextual (environment, AGENTS.md, skills, shell notes…). */
const CONTEXTUAL_USER_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# agents.md instructions for ',
  '<skill>',
  '<user_shell_command>',
  '<turn_aborted>',
  '<subagents>',
  '<subagent_notification>',
  '<hook_prompt',
];

/** Tags that make a `developer` message contextual (trimmed above a rollback cut, B.2). */
const CONTEXTUAL_DEVELOPER_PREFIXES = [
  '<permissions instructions>',
  '<model_switch>',
  '<collaboration_mode',
  '<multi_agent_mode',
  '<realtime_conversation',
  '<skills_instructions',
  '<personality_spec>',
  '<token_budget',
  '<rollout_budget>',
  '<context_window',
  '<recommended_plugins>',
];

function startsWithAny(text: string, prefixes: readonly string[]): string | null {
  const head = text.trimStart().slice(0, 64).toLowerCase();
  for (const p of prefixes) if (head.startsWith(p)) return p;
  return null;
}

/** The content items of a message payload (an array; anything else holds none). */
export function contentItems(item: Obj): Obj[] {
  return Array.isArray(item.content) ? item.content.filter(isObj) : [];
}

/** The tag a contextual fragment starts with (without its brackets), or null. */
export function contextualTagOf(text: string, role: 'user' | 'developer'): string | null {
  const p = startsWithAny(text, role === 'user' ? CONTEXTUAL_USER_PREFIXES : CONTEXTUAL_DEVELOPER_PREFIXES);
  if (p === null) return null;
  return p.startsWith('#') ? 'AGENTS.md' : p.replace(/^</, '').replace(/>$/, '');
}

/** Whether a user message's content is contextual: any of its text items is a contextual fragment (A.4). */
export function isContextualUserContent(content: readonly Obj[]): boolean {
  return content.some((c) => c.type === 'input_text' && typeof c.text === 'string' && contextualTagOf(c.text, 'user') !== null);
}

/** Whether a developer message's content holds a contextual fragment. */
export function isContextualDeveloperContent(content: readonly Obj[]): boolean {
  return content.some((c) => c.type === 'input_text' && typeof c.text === 'string' && contextualTagOf(c.text, 'developer') !== null);
}

/** A `message` item of role user whose content is not contextual: a real user prompt. */
export function isRealUserMessage(item: Obj): boolean {
  return item.type === 'message' && item.role === 'user' && !isContextualUserContent(contentItems(item));
}

/**
 * A user-turn boundary (B.2): a real user message or an `agent_message` item. (The CLI also counts
 * an assistant message that carries an inter-agent instruction; that content's shape is not
 * specified (A.2 lists inter-agent communication as unverified), so it is not recognised here.)
 */
export function isUserTurnBoundary(item: Obj): boolean {
  return item.type === 'agent_message' || isRealUserMessage(item);
}

/** A contextual message (user or developer) of the kind a rollback trims above its cut. */
export function isContextualMessage(item: Obj): boolean {
  if (item.type !== 'message') return false;
  if (item.role === 'user') return isContextualUserContent(contentItems(item));
  if (item.role === 'developer') return isContextualDeveloperContent(contentItems(item));
  return false;
}

const IDE_REQUEST = '## My request for Codex:';

/**
 * What the user typed, from a prompt: older VS Code sessions wrap it in "# Context from my IDE
 * setup: … ## My request for Codex:" (A.4), and the part after the marker is the request.
 */
export function typedPrompt(text: string): string {
  const at = text.indexOf(IDE_REQUEST);
  if (at === -1 || !text.trimStart().startsWith('# Context from my IDE setup')) return text;
  return text.slice(at + IDE_REQUEST.length).trim();
}
