// The session version this product writes and the entry types it knows: plain constants, apart
// from the zod schemas (schemas.ts) so that what only needs the names (sniffing a file's format,
// the search index's reader) does not build every schema first.

export const CURRENT_SESSION_VERSION = 3;

/** The entry types of the contract (Part A). */
export const KNOWN_ENTRY_TYPES = [
  'message',
  'model_change',
  'thinking_level_change',
  'compaction',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'ttsr_injection',
  'session_init',
  'mode_change',
] as const;

/** Part B §1: types real files contain beyond the contract. Typed only by their base fields. */
export const EXTRA_ENTRY_TYPES = [
  'context_change',
  'service_tier_change',
  'mcp_tool_selection',
  'session_info',
  'title_change',
  'reset_boundary',
  'model_usage',
  'credential_pin',
  'archive',
] as const;
