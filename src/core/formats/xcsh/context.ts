// buildSessionContext: what is sent to the model at a given leaf (spec Part A "Context
// reconstruction", Part C §5–§6), plus what a viewer needs to explain it: which entry each
// message came from, and which path entries a compaction cut away.
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
import { EntryKind, entryKind, type TreeIndex } from '../../tree/tree';

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

function isTreeIndex(x: unknown): x is TreeIndex {
  return typeof x === 'object' && x !== null && typeof (x as TreeIndex).pathIndices === 'function';
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

/** Walks leaf → root with a seen-set (Part C §5: stop at the first repeated id), root first. */
function walkPath(leaf: SessionEntry, byId: ReadonlyMap<string, SessionEntry>): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let cur: SessionEntry | undefined = leaf;
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    path.push(cur);
    const pid: unknown = (cur as { parentId?: unknown }).parentId;
    cur = typeof pid === 'string' ? byId.get(pid) : undefined;
  }
  return path.reverse();
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

/**
 * @param leafId `null` → the empty context; a found id → that entry; anything else → the last entry.
 * @param byId an id → entry map, or the session's TreeIndex (faster: its paths are precomputed
 *   acyclic and every entry is already classified, so a 1M-deep path is walked over integers).
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId: string | null | undefined,
  byId?: ReadonlyMap<string, SessionEntry> | TreeIndex,
): SessionContext {
  if (leafId === null || entries.length === 0) return emptyContext();

  if (isTreeIndex(byId)) {
    const leafKey = leafId !== undefined && byId.has(leafId) ? leafId : byId.defaultLeafId;
    if (leafKey === null) return emptyContext();
    const idxs = byId.pathIndices(leafKey);
    if (idxs.length === 0) return fromPath([entries[entries.length - 1]!]);
    const all = byId.entries;
    const kinds = byId.kinds;
    const pathKinds = new Uint8Array(idxs.length);
    for (let k = 0; k < idxs.length; k++) pathKinds[k] = kinds[idxs[k]!]!;
    return fromPath(all, pathKinds, idxs);
  }
  let map = byId;
  if (!map) {
    const m = new Map<string, SessionEntry>();
    for (const e of entries) m.set(e.id, e);
    map = m;
  }
  const leaf = (leafId !== undefined ? map.get(leafId) : undefined) ?? entries[entries.length - 1]!;
  return fromPath(walkPath(leaf, map));
}

/** The entries of a path, read in place: `at(k)` is its k-th entry (root first). */
class PathView {
  constructor(
    private readonly all: readonly SessionEntry[],
    private readonly idxs: Int32Array | null,
  ) {}
  get length(): number {
    return this.idxs === null ? this.all.length : this.idxs.length;
  }
  at(k: number): SessionEntry {
    return this.all[this.idxs === null ? k : this.idxs[k]!]!;
  }
}

/**
 * The context of a root→leaf path: `all` itself, or, with `idxs`, the entries `all[idxs[k]]`
 * (read in place, so a 1M-deep path is not copied into a second array). `kinds[k]` classifies
 * the k-th path entry (computed here when absent).
 */
function fromPath(all: readonly SessionEntry[], kinds?: Uint8Array, idxs: Int32Array | null = null): SessionContext {
  const path = new PathView(all, idxs);
  const n = path.length;
  if (!kinds) {
    kinds = new Uint8Array(n);
    for (let k = 0; k < n; k++) kinds[k] = entryKind(path.at(k));
  }

  // Runtime state along the path (only classified entries are touched).
  let thinkingLevel = 'off';
  const models: Record<string, string> = {};
  let explicitDefault = false;
  let lastAssistant = -1;
  const rules = new Set<string>();
  let mode = 'none';
  let modeData: unknown = undefined;
  let compactionIdx = -1;
  const extras: ContextRuntimeExtras = {};
  for (let i = 0; i < n; i++) {
    const kind = kinds[i]!;
    if (kind === EntryKind.RuntimeExtra) {
      // Part B §22: the index classified these by type; only they are read here.
      applyRuntimeExtra(extras, path.at(i));
      continue;
    }
    if (kind <= EntryKind.Message) continue;
    const e = path.at(i);
    switch (kind) {
      case EntryKind.AssistantMessage:
        lastAssistant = i;
        break;
      case EntryKind.Compaction:
        compactionIdx = i;
        break;
      case EntryKind.ThinkingLevel: {
        // Part C §11: a level that is not a string is ignored (an invalid-field diagnostic says so).
        const lvl = (e as { thinkingLevel?: unknown }).thinkingLevel;
        if (typeof lvl === 'string') thinkingLevel = lvl;
        break;
      }
      case EntryKind.ModelChange: {
        const model = (e as { model?: unknown }).model;
        if (typeof model === 'string' && model) {
          const role = (e as { role?: unknown }).role;
          const r = typeof role === 'string' ? role : 'default';
          models[r] = model;
          if (r === 'default') explicitDefault = true;
        }
        break;
      }
      case EntryKind.TtsrInjection: {
        const r = (e as { injectedRules?: unknown }).injectedRules;
        if (Array.isArray(r)) for (const x of r) if (typeof x === 'string') rules.add(x);
        break;
      }
      case EntryKind.ModeChange: {
        // Part C §11: a mode_change without a string mode is ignored, its data with it.
        const md = (e as { mode?: unknown }).mode;
        if (typeof md === 'string') {
          mode = md;
          modeData = (e as { data?: unknown }).data;
        }
        break;
      }
      default:
        break;
    }
  }
  // Part C §6: an explicit default model_change on the path wins; else the LAST assistant
  // message that names its provider and model.
  if (!explicitDefault) {
    for (let i = lastAssistant; i >= 0; i--) {
      if (kinds[i] !== EntryKind.AssistantMessage) continue;
      const m = (path.at(i) as { message: { provider?: unknown; model?: unknown } }).message;
      if (typeof m.provider === 'string' && typeof m.model === 'string') {
        models.default = `${m.provider}/${m.model}`;
        break;
      }
    }
  }

  const messages: ContextMessage[] = [];
  const messageSources: string[] = [];
  let cutEntryIds: string[] = [];
  const emitRange = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const kind = kinds[i]!;
      if (kind === EntryKind.Other) continue;
      const e = path.at(i);
      let m: ContextMessage | null;
      if (kind <= EntryKind.AssistantMessage) {
        const raw = (e as { message?: unknown }).message;
        m = typeof raw === 'object' && raw !== null ? (raw as ContextMessage) : null;
      } else if (kind === EntryKind.CustomMessage || kind === EntryKind.BranchSummary) {
        m = entryToMessage(e);
      } else {
        continue;
      }
      if (m) {
        messages.push(m);
        messageSources.push(e.id);
      }
    }
  };

  let compaction: SessionContext['compaction'] = null;
  if (compactionIdx >= 0) {
    const c = path.at(compactionIdx) as CompactionEntry;
    const firstKept = typeof c.firstKeptEntryId === 'string' ? c.firstKeptEntryId : null;
    let keptFrom = compactionIdx; // nothing kept unless found before the compaction
    // Part B §16: a remote compaction's history replaces the kept messages too.
    if (firstKept !== null && remoteCompactionOf(c) === null) {
      // Search backwards: the kept region is normally a short tail before the compaction.
      for (let i = compactionIdx - 1; i >= 0; i--) {
        if (path.at(i).id === firstKept) {
          keptFrom = i;
          break;
        }
      }
    }
    compaction = { id: c.id, firstKeptEntryId: firstKept, keptFound: keptFrom < compactionIdx, remote: remoteCompactionOf(c) !== null };
    messages.push(compactionSummaryMessage(c));
    messageSources.push(c.id);
    cutEntryIds = new Array<string>(keptFrom);
    for (let i = 0; i < keptFrom; i++) cutEntryIds[i] = path.at(i).id;
    emitRange(keptFrom, compactionIdx);
    emitRange(compactionIdx + 1, n);
  } else {
    emitRange(0, n);
  }

  return {
    leafId: path.at(n - 1).id,
    messages,
    thinkingLevel,
    models,
    injectedTtsrRules: [...rules],
    mode,
    modeData,
    ...orderedExtras(extras),
    messageSources,
    cutEntryIds,
    compaction,
  };
}
