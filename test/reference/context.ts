// The reference (test-only, issue 23): buildSessionContext, what is sent to the model at a given
// leaf (spec Part A "Context reconstruction", Part C §5–§6) folded over the whole path, plus what
// a viewer needs to explain it: which entry each message came from, and which path entries a
// compaction cut away. The session engine builds the same context from its index
// (src/core/engine/xcsh/lazy/lazyContext.ts) and is checked against this
// (test/unit/lazyModel.test.ts, through the reference model).
//
// The edge behaviour it follows is listed in src/core/formats/xcsh/context.ts.
import type { CompactionEntry, SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { EntryKind, entryKind, type TreeIndex } from '../../src/core/tree/tree';
import { applyRuntimeExtra, compactionSummaryMessage, emptyContext, entryToMessage, orderedExtras, remoteCompactionOf, type ContextMessage, type ContextRuntimeExtras, type SessionContext } from '../../src/core/formats/xcsh/context';

export type { SessionContext } from '../../src/core/formats/xcsh/context';

function isTreeIndex(x: unknown): x is TreeIndex {
  return typeof x === 'object' && x !== null && typeof (x as TreeIndex).pathIndices === 'function';
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
