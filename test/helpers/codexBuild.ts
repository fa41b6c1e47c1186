// Builders for synthetic Codex rollouts (codex-format.md Part A shapes), for the replay rules the
// real fixtures lack (compaction, rollback, aborted calls, images, forks, compressed files). Each
// builder returns one envelope line `{timestamp, type, payload}`; timestamps count up by a second
// from a fixed start so every file is the same from run to run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Obj = Record<string, unknown>;

let clock = Date.parse('2026-01-02T03:04:05.000Z');
/** Restarts the builders' clock (each test file can start from the same time). */
export function resetClock(): void {
  clock = Date.parse('2026-01-02T03:04:05.000Z');
}
const at = (): string => new Date((clock += 1000)).toISOString();

export const line = (type: string, payload: unknown): Obj => ({ timestamp: at(), type, payload });

export const meta = (o: Obj = {}): Obj => line('session_meta', { id: 'thread-1', timestamp: '2026-01-02T03:04:05.000Z', cwd: '/work', originator: 'codex_cli_rs', cli_version: '0.99.0', model_provider: 'openai', ...o });
export const item = (payload: Obj): Obj => line('response_item', payload);
export const userItem = (text: string): Obj => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
export const user = (text: string): Obj => item(userItem(text));
export const envContext = (cwd = '/work'): Obj => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n</environment_context>` }] });
export const developer = (text: string): Obj => item({ type: 'message', role: 'developer', content: [{ type: 'input_text', text }] });
export const assistant = (text: string, extra: Obj = {}): Obj => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], ...extra });
export const reasoning = (text: string): Obj => item({ type: 'reasoning', summary: [{ type: 'summary_text', text }], content: null, encrypted_content: 'gAAAA' });
export const call = (callId: string, command = ['ls']): Obj => item({ type: 'function_call', name: 'shell', arguments: JSON.stringify({ command }), call_id: callId });
export const output = (callId: string, text: string): Obj => item({ type: 'function_call_output', call_id: callId, output: text });
export const turnContext = (o: Obj = {}): Obj => line('turn_context', { cwd: '/work', approval_policy: 'never', sandbox_policy: { type: 'read-only' }, model: 'gpt-5', summary: 'auto', ...o });
export const event = (type: string, o: Obj = {}): Obj => line('event_msg', { type, ...o });
export const rolledBack = (numTurns: number): Obj => event('thread_rolled_back', { num_turns: numTurns });
export const compacted = (message: string, replacement?: Obj[]): Obj => line('compacted', replacement ? { message, replacement_history: replacement } : { message });
export const usage = (input: number, cached: number, out: number): Obj => ({ input_tokens: input, cached_input_tokens: cached, output_tokens: out, reasoning_output_tokens: 0, total_tokens: input + out });
/** A token_count whose last usage is (input, cached, out) and whose cumulative total is `total`. */
export const tokenCount = (input: number, cached: number, out: number, total: Obj = usage(input, cached, out)): Obj =>
  event('token_count', { info: { total_token_usage: total, last_token_usage: usage(input, cached, out), model_context_window: 272000 }, rate_limits: null });

/** The rollout's text: one JSON line each, newline-terminated. */
export const rolloutText = (lines: readonly Obj[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

/** A fresh folder under the test run's TMPDIR. */
export const tempDir = (prefix = 'loom-codex-'): string => mkdtempSync(join(tmpdir(), prefix));

/** Writes `content` (lines or raw text/bytes) to `dir/name` and returns the path. */
export function writeRollout(dir: string, name: string, content: readonly Obj[] | string | Uint8Array): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' || content instanceof Uint8Array ? content : rolloutText(content));
  return p;
}

/** A 1×1 transparent PNG as a data URL. */
export const PNG_DATA_URL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
