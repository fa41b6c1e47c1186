// The context at a leaf as buildSessionContext (test/reference/context.ts) gives it (the raw messages sent to the model, not
// the viewer's rows), from the lazy index (issue 11: `session-loom context` on a session too big
// to hold). The plan — path, sources, runtime, compaction cut — is LazyContexts'; the messages are
// read back by byte range a window at a time and handed on, so memory is one window.
import type { ContextMessage, SessionContext } from '../../../formats/xcsh/context';
import { BodyReader } from './bodyReader';
import { contextMessageAt, type LeafPlan } from './lazyContext';
import type { LazyIndexData } from './lazyIndex';
import type { LazyTree } from './lazyTree';

/** A window's bodies: at most this many bytes on disk (or one entry, however long) ... */
const WINDOW_BYTES = 4 << 20;
/** ... and at most this many entries. */
const WINDOW_ENTRIES = 512;

/** Everything of the SessionContext but its messages (those are streamed). */
export function rawContextHead(ix: LazyIndexData, tree: LazyTree, plan: LeafPlan): Omit<SessionContext, 'messages'> {
  const { runtime, compaction } = plan.info;
  const cutEntryIds = new Array<string>(plan.cutCount);
  for (let k = 0; k < plan.cutCount; k++) cutEntryIds[k] = tree.idAt(plan.path[k]!);
  const payload = plan.compactionPos === -1 ? undefined : ix.payloads.get(plan.compactionPos);
  return {
    leafId: plan.leafPos === -1 ? null : tree.idAt(plan.leafPos),
    thinkingLevel: runtime.thinkingLevel,
    models: runtime.models,
    injectedTtsrRules: runtime.injectedTtsrRules,
    mode: runtime.mode,
    modeData: plan.modeData,
    ...plan.extras,
    messageSources: Array.from(plan.sources, (p) => tree.idAt(p)),
    cutEntryIds,
    compaction:
      compaction === null
        ? null
        : { id: compaction.id, firstKeptEntryId: compaction.firstKeptEntryId, keptFound: compaction.keptFound, remote: payload?.kind === 'compaction' && payload.remote },
  };
}

/** Calls `visit` with the context's messages in order, a window at a time (each read once, nothing kept). */
export async function streamRawMessages(ix: LazyIndexData, plan: LeafPlan, visit: (messages: ContextMessage[]) => Promise<void> | void, windowBytes = WINDOW_BYTES): Promise<void> {
  const m = plan.sources.length;
  let i = 0;
  while (i < m) {
    let j = i;
    let bytes = ix.lengths[plan.sources[i]!]!;
    while (j + 1 < m && j + 1 - i < WINDOW_ENTRIES && bytes + ix.lengths[plan.sources[j + 1]!]! <= windowBytes) bytes += ix.lengths[plan.sources[++j]!]!;
    // A reader per window: its cache goes with it, so nothing outlives the window.
    const bodies = await new BodyReader(ix).read(Array.from(plan.sources.subarray(i, j + 1)));
    const out: ContextMessage[] = [];
    for (let k = i; k <= j; k++) {
      const msg = contextMessageAt(ix, plan, k, bodies[k - i]!);
      if (msg) out.push(msg);
    }
    await visit(out);
    i = j + 1;
  }
}
