// What is sent to the model at a given leaf (spec Part A "Context reconstruction", Part C §5–§6),
// the parts the session engine (src/core/engine/xcsh/lazy/lazyContext.ts) builds a context from:
// the message each entry contributes, a compaction's summary, and the runtime state the path
// carries. The whole-path fold over them (buildSessionContext) is the test reference
// (test/reference/context.ts) the engine is checked against.
//
// Edge behaviour confirmed against the upstream implementations (pi-mono / oh-my-pi):
// - an explicit leafId that is not found falls back to the last entry;
// - only the LAST compaction on the path counts; a firstKeptEntryId that is not on the path
//   before it keeps nothing before the compaction;
// - a branch_summary with an empty summary emits no message;
// - v1 `model_change` entries ({provider, modelId}, no `model`) contribute nothing.
// - Part B §22: the last `service_tier_change` (serviceTier), `context_change` (the active
//   context: contextName, tenant, namespace) and `mcp_tool_selection` (selectedToolNames) on the
//   path are carried as the agent does; absent when the path has none.
import type { CompactionEntry, SessionEntry } from './schemas';
import { entryIs } from './schemas';

/** A message as sent to the model. `message` entries pass through as stored. */
export type ContextMessage = Record<string, unknown> & { role: string };

export interface SessionContext {
  /** The leaf actually used (after fallback), or null for the empty context. */
  leafId: string | null;
  messages: ContextMessage[];
  thinkingLevel: string;
  models: Record<string, string>;
  injectedTtsrRules: string[];
  mode: string;
  modeData: unknown;
  // ---- Part B §22 (set only when such an entry is on the path) ----
  /** The last service_tier_change's `serviceTier`, as stored (a tier name, a per-family map, null when cleared). */
  serviceTier?: unknown;
  /** The last context_change's `contextName` / `tenant` / `namespace` (null when it has none). */
  activeContextName?: string | null;
  activeContextTenant?: string | null;
  activeContextNamespace?: string | null;
  /** The last mcp_tool_selection's `selectedToolNames`; hasPersistedMCPToolSelection is then true. */
  selectedMCPToolNames?: string[];
  hasPersistedMCPToolSelection?: boolean;
  // ---- viewer extras ----
  /** messageSources[i] is the id of the entry messages[i] came from. */
  messageSources: string[];
  /**
   * Ids of the path entries (root→leaf order) not sent: the ones the compaction in effect
   * (`compaction.id`) cut. Only the last compaction on a path counts, so one id names the cause
   * for all of them; a list of ids, not of objects, because on a 1M-entry path it is 1M long.
   */
  cutEntryIds: string[];
  /** The compaction in effect on this path, if any. */
  compaction: { id: string; firstKeptEntryId: string | null; keptFound: boolean; remote: boolean } | null;
}

export function emptyContext(): SessionContext {
  return {
    leafId: null,
    messages: [],
    thinkingLevel: 'off',
    models: {},
    injectedTtsrRules: [],
    mode: 'none',
    modeData: undefined,
    messageSources: [],
    cutEntryIds: [],
    compaction: null,
  };
}

/** The Part B §22 state of a context (the optional fields of SessionContext). */
export type ContextRuntimeExtras = Pick<SessionContext, 'serviceTier' | 'activeContextName' | 'activeContextTenant' | 'activeContextNamespace' | 'selectedMCPToolNames' | 'hasPersistedMCPToolSelection'>;

/** The entry types whose last one on the path sets Part B §22 state. */
export const RUNTIME_EXTRA_TYPES: ReadonlySet<string> = new Set(['service_tier_change', 'context_change', 'mcp_tool_selection']);

const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * Applies one path entry to the Part B §22 state (entries in path order: the last of each type
 * wins). An entry of another type changes nothing.
 */
export function applyRuntimeExtra(x: ContextRuntimeExtras, e: { type?: unknown }): void {
  const r = e as Record<string, unknown>;
  switch (e.type) {
    case 'service_tier_change':
      x.serviceTier = r.serviceTier === undefined ? null : r.serviceTier;
      break;
    case 'context_change':
      x.activeContextName = strOrNull(r.contextName);
      x.activeContextTenant = strOrNull(r.tenant);
      x.activeContextNamespace = strOrNull(r.namespace);
      break;
    case 'mcp_tool_selection':
      x.selectedMCPToolNames = Array.isArray(r.selectedToolNames) ? r.selectedToolNames.filter((t): t is string => typeof t === 'string') : [];
      x.hasPersistedMCPToolSelection = true;
      break;
    default:
      break;
  }
}

/** The Part B §22 state with its keys in one order (eager and lazy contexts print the same JSON). */
export function orderedExtras(x: ContextRuntimeExtras): ContextRuntimeExtras {
  const out: ContextRuntimeExtras = {};
  if ('serviceTier' in x) out.serviceTier = x.serviceTier;
  if ('activeContextName' in x) {
    out.activeContextName = x.activeContextName ?? null;
    out.activeContextTenant = x.activeContextTenant ?? null;
    out.activeContextNamespace = x.activeContextNamespace ?? null;
  }
  if (x.hasPersistedMCPToolSelection) {
    out.selectedMCPToolNames = x.selectedMCPToolNames ?? [];
    out.hasPersistedMCPToolSelection = true;
  }
  return out;
}

/** A service tier as one line: a name, or a per-family map as "family tier, …"; null when cleared. */
export function serviceTierText(tier: unknown): string | null {
  if (typeof tier === 'string') return tier;
  if (tier && typeof tier === 'object' && !Array.isArray(tier)) {
    const parts = Object.entries(tier as Record<string, unknown>).map(([family, t]) => `${family} ${typeof t === 'string' ? t : JSON.stringify(t)}`);
    return parts.length > 0 ? parts.join(', ') : null;
  }
  return null;
}

/**
 * The Part B §22 state as the preview's runtime fields (ContextInfo.runtime, protocol/messages.ts):
 * only the fields whose entry is on the path.
 */
export function runtimeExtrasView(x: ContextRuntimeExtras): {
  serviceTier?: string | null;
  activeContext?: { name: string | null; tenant: string | null; namespace: string | null };
  selectedMCPToolNames?: string[];
  hasPersistedMCPToolSelection?: boolean;
} {
  return {
    ...('serviceTier' in x ? { serviceTier: serviceTierText(x.serviceTier) } : {}),
    ...('activeContextName' in x ? { activeContext: { name: x.activeContextName ?? null, tenant: x.activeContextTenant ?? null, namespace: x.activeContextNamespace ?? null } } : {}),
    ...(x.hasPersistedMCPToolSelection ? { selectedMCPToolNames: x.selectedMCPToolNames ?? [], hasPersistedMCPToolSelection: true } : {}),
  };
}

/**
 * An entry's timestamp in epoch ms, as upstream's `new Date(ts).getTime()`: an ISO string is
 * parsed, a number is taken as epoch ms as it is (Part B §14), and anything else is coerced as
 * JavaScript coerces it (Part B §20: `null` → 0, `true` → 1, `[1]` → the date parsed from "1",
 * an object or a missing timestamp → NaN, which JSON prints as null, as upstream's does).
 */
export function epochMs(ts: unknown): number {
  if (ts === undefined) return NaN;
  return new Date(ts as string | number).getTime();
}

/** The message an entry contributes to the context, or null. */
export function entryToMessage(entry: SessionEntry): ContextMessage | null {
  if (entryIs(entry, 'message')) {
    const m = entry.message as unknown;
    return typeof m === 'object' && m !== null ? (m as ContextMessage) : null;
  }
  if (entryIs(entry, 'custom_message')) {
    // Part B §14: `details` and `attribution` are copied when the entry has them (real files
    // carry `attribution: "agent"`).
    const m: ContextMessage = { role: 'custom', customType: entry.customType, content: entry.content, display: entry.display };
    if ('details' in entry) m.details = entry.details;
    if ('attribution' in entry) m.attribution = (entry as { attribution?: unknown }).attribution;
    m.timestamp = epochMs(entry.timestamp);
    return m;
  }
  if (entryIs(entry, 'branch_summary')) {
    if (!entry.summary) return null;
    return { role: 'branchSummary', summary: entry.summary, fromId: entry.fromId, timestamp: epochMs(entry.timestamp) };
  }
  return null;
}

/**
 * Part B §16: a compaction done remotely by OpenAI keeps the provider's replacement history in
 * `preserveData.openaiRemoteCompaction`; when it names a provider and holds an array, that
 * history replaces everything before the compaction.
 */
export function remoteCompactionOf(c: CompactionEntry): { provider: string; items: unknown[] } | null {
  const pd = (c as { preserveData?: unknown }).preserveData;
  if (!pd || typeof pd !== 'object') return null;
  const r = (pd as { openaiRemoteCompaction?: unknown }).openaiRemoteCompaction;
  if (!r || typeof r !== 'object') return null;
  const { provider, replacementHistory } = r as { provider?: unknown; replacementHistory?: unknown };
  return typeof provider === 'string' && provider !== '' && Array.isArray(replacementHistory) ? { provider, items: replacementHistory } : null;
}

export function compactionSummaryMessage(c: CompactionEntry): ContextMessage {
  const m: ContextMessage = { role: 'compactionSummary', summary: c.summary, shortSummary: c.shortSummary, tokensBefore: c.tokensBefore };
  const remote = remoteCompactionOf(c);
  if (remote) m.providerPayload = { type: 'openaiResponsesHistory', provider: remote.provider, items: remote.items };
  m.timestamp = epochMs(c.timestamp);
  return m;
}
