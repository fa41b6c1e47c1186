// What an untitled session is called: its first prompt that says what it is about (issue 14).
// Sessions often start with a slash command ("/mode", "/model opus") or a pasted id; as a row
// label those made sessions indistinguishable, so they are skipped.

import { contentText } from '../formats/xcsh/stats';

const SLASH_COMMAND = /^\/[A-Za-z][\w:.-]*(?:\s+\S+){0,2}$/;
const BARE_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,64})$/i;

/** Whether a user prompt names what a session is about: not empty, not a bare slash command, not a bare id. */
export function isMeaningfulPrompt(text: string): boolean {
  const t = text.trim();
  if (t === '') return false;
  if (!t.includes('\n') && t.length <= 60 && SLASH_COMMAND.test(t)) return false;
  return !BARE_ID.test(t);
}

/** The first meaningful user prompt of a session's entries (the editor's header names an untitled session by it). */
export function firstMeaningfulPrompt(entries: readonly { type: string }[]): string | null {
  for (const e of entries) {
    if (e.type !== 'message') continue;
    const m = (e as { message?: { role?: unknown; content?: unknown } }).message;
    if (!m || m.role !== 'user') continue;
    const t = contentText(m.content).trim();
    if (isMeaningfulPrompt(t)) return t;
  }
  return null;
}
