// One line of a rollout → one record (codex-format.md A.2, Part C §1). Both eras are read:
// - the envelope `{"timestamp","type","payload"}` (since ~Sept 2025; newer files add `ordinal`);
// - the older bare lines: a session object `{id,timestamp,instructions,git}` first, then bare
//   response items (`{"type":"message",…}`) and `{"record_type":"state"}` sentinels.
// Bare lines are normalised to the envelope's shape (type + payload), so the replay and the model
// never branch on the era. Unknown types are kept (the spec: "Readers must keep unknown types").
import { isObj, str, type CodexRecord, type CodexRecordType, type Obj } from './types';

/** The RolloutItem variants (A.2) this reader understands or knowingly passes through. */
export const ENVELOPE_TYPES: ReadonlySet<string> = new Set([
  'session_meta',
  'response_item',
  'compacted',
  'turn_context',
  'event_msg',
  // Persisted by newer versions; shapes unverified (A.2): kept and shown raw, never replayed.
  'inter_agent_communication',
  'world_state',
  'token_usage_record',
]);

/** ResponseItem variants (A.4), the legacy ones included. */
export const RESPONSE_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'image_generation_call',
  'tool_search_call',
  'tool_search_output',
  'agent_message',
  'additional_tools',
  'compaction',
  'compaction_summary',
  'context_compaction',
  'compaction_trigger',
  'ghost_snapshot',
]);

/** A bare-era first line: the session object, without a `type` (3p readers; no collected file has one). */
function isBareSession(r: Obj): boolean {
  return r.type === undefined && typeof r.id === 'string' && typeof r.timestamp === 'string' && ('instructions' in r || 'git' in r);
}

/**
 * The record of one parsed line (`value` is a JSON object). `first`: no record was read before it
 * (only then can a bare session object be the session_meta).
 */
export function recordOf(value: Obj, line: number, first: boolean): CodexRecord | null {
  if (typeof value.type === 'string' && 'payload' in value) {
    const rec: CodexRecord = { line, type: value.type as CodexRecordType, timestamp: str(value.timestamp), payload: value.payload, era: 'envelope' };
    if (typeof value.ordinal === 'number' && Number.isFinite(value.ordinal)) rec.ordinal = value.ordinal;
    return rec;
  }
  if (first && isBareSession(value)) return { line, type: 'session_meta', timestamp: str(value.timestamp), payload: value, era: 'bare' };
  if (value.type === undefined && 'record_type' in value) return { line, type: 'state', timestamp: null, payload: value, era: 'bare' };
  if (typeof value.type === 'string') {
    // A bare response item; an unknown `type` without a payload is kept the same way (shown raw).
    return { line, type: RESPONSE_ITEM_TYPES.has(value.type) ? 'response_item' : value.type, timestamp: str(value.timestamp), payload: value, era: 'bare' };
  }
  return null;
}

/**
 * Whether a file's first record (parsed JSON) is a Codex rollout's: an envelope `session_meta`
 * whose payload has a string `id`, any other envelope line of a known RolloutItem type (a rollout
 * whose first line was lost), or a bare-era session object. Decided by content only.
 */
export function isCodexRollout(firstRecord: unknown): boolean {
  if (!isObj(firstRecord)) return false;
  const r = firstRecord;
  if (typeof r.type === 'string' && 'payload' in r) {
    if (r.type === 'session_meta') return isObj(r.payload) && typeof r.payload.id === 'string';
    return ENVELOPE_TYPES.has(r.type) && typeof r.timestamp === 'string' && isObj(r.payload);
  }
  return isBareSession(r);
}
