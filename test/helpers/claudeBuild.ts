// Small synthetic Claude Code transcripts for the shapes the real fixtures lack (a rewind, two
// compactions, a preserved segment, damaged lines…): records shaped as claude-code-format.md
// Part A describes them, written to a temp file. Uuids are readable names ("u1", "a2"); every
// record is one second after the previous one unless it says otherwise.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type Rec = Record<string, unknown>;

export const SESSION = '11111111-2222-4333-8444-555555555555';
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** A clock for a transcript: each call is one second later (or `at` seconds after T0). */
export class Clock {
  #s = 0;
  next(at?: number): string {
    if (at !== undefined) this.#s = at;
    else this.#s++;
    return new Date(T0 + this.#s * 1000).toISOString();
  }
}

export interface Common {
  at?: number;
  sidechain?: boolean;
  extra?: Rec;
}

export class Build {
  readonly clock = new Clock();

  envelope(type: string, uuid: string, parent: string | null, o: Common = {}): Rec {
    return { parentUuid: parent, isSidechain: o.sidechain ?? false, userType: 'external', cwd: '/work/app', sessionId: SESSION, version: '2.1.39', type, uuid, timestamp: this.clock.next(o.at), ...o.extra };
  }

  user(uuid: string, parent: string | null, content: unknown, o: Common = {}): Rec {
    return { ...this.envelope('user', uuid, parent, o), message: { role: 'user', content } };
  }

  /** One line of an assistant response (A.6: one block a line; lines of a response share message.id). */
  assistant(uuid: string, parent: string | null, messageId: string, block: Rec, o: Common & { output?: number; model?: string } = {}): Rec {
    return {
      ...this.envelope('assistant', uuid, parent, o),
      requestId: `req_${messageId}`,
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model: o.model ?? 'claude-test-1',
        content: [block],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: o.output ?? 5 },
      },
    };
  }

  /** A tool result line (2.1.x: parented to the assistant line holding the call, `sourceToolAssistantUUID`). */
  result(uuid: string, parent: string, callId: string, content: unknown, o: Common & { error?: boolean; source?: string } = {}): Rec {
    return {
      ...this.user(uuid, parent, [{ type: 'tool_result', tool_use_id: callId, content, ...(o.error ? { is_error: true } : {}) }], o),
      ...(o.source !== undefined ? { sourceToolAssistantUUID: o.source } : {}),
    };
  }

  boundary(uuid: string, logicalParent: string | null, o: Common & { preTokens?: number; preserved?: Rec } = {}): Rec {
    return {
      ...this.envelope('system', uuid, null, o),
      logicalParentUuid: logicalParent,
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      compactMetadata: { trigger: 'auto', preTokens: o.preTokens ?? 1000, ...(o.preserved ? { preservedSegment: o.preserved } : {}) },
    };
  }

  summary(uuid: string, parent: string, text: string, o: Common = {}): Rec {
    return { ...this.user(uuid, parent, text, o), isCompactSummary: true, isVisibleInTranscriptOnly: true };
  }

  progress(uuid: string, parent: string | null, o: Common = {}): Rec {
    return { ...this.envelope('progress', uuid, parent, o), data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Bash' }, toolUseID: 'toolu_x', parentToolUseID: 'toolu_x' };
  }

  system(uuid: string, parent: string | null, subtype: string, o: Common = {}): Rec {
    return { ...this.envelope('system', uuid, parent, o), subtype, content: subtype, level: 'info', isMeta: false };
  }
}

export const text = (t: string): Rec => ({ type: 'text', text: t });
export const thinking = (t: string): Rec => ({ type: 'thinking', thinking: t, signature: 'sig' });
export const toolUse = (id: string, name = 'Bash', input: Rec = { command: 'ls' }): Rec => ({ type: 'tool_use', id, name, input });
export const image = (data = 'iVBORw0KGgo=', mediaType = 'image/png'): Rec => ({ type: 'image', source: { type: 'base64', media_type: mediaType, data } });

/** The text of a transcript: one line a record (raw strings as they are), `\n` after each but, when `torn`, the last. */
export function transcriptText(lines: readonly (Rec | string)[], torn = false): string {
  return lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + (torn ? '' : '\n');
}

/** Writes lines (records, or raw strings for damage) to `<tmp>/<rel>` (or `<dir>/<rel>`); returns its path. */
export function writeLines(lines: readonly (Rec | string)[], rel = 'session.jsonl', dir?: string, torn = false): string {
  const root = dir ?? mkdtempSync(join(tmpdir(), 'loom-claude-'));
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, transcriptText(lines, torn));
  return path;
}

/**
 * A rewind whose old branch gets the last line (a hook line with an older timestamp, C.11): the
 * three leaf rules of A.11 step 4 disagree on it — 2.1.112 picks a2, 2.1.39 and the SDK a2b.
 */
export function disagreeingLeaves(b: Build): Rec[] {
  return [
    b.user('u1', null, 'first', { at: 1 }),
    b.assistant('a1', 'u1', 'm1', text('one'), { at: 2 }),
    b.user('u2', 'a1', 'second', { at: 3 }),
    b.assistant('a2', 'u2', 'm2', text('two'), { at: 4 }),
    b.user('u2b', 'a1', 'second, edited', { at: 10 }),
    b.assistant('a2b', 'u2b', 'm3', text('two again'), { at: 11 }),
    b.progress('p1', 'a2', { at: 5 }),
  ];
}

