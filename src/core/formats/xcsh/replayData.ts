// Load-time rewrite of OpenAI replay data (spec Part B §15), done in memory on every load as
// the real agent does: an assistant message whose `providerPayload.type` is
// "openaiResponsesHistory" loses that payload, and its thinking blocks lose
// `thinkingSignature`, so the model never sees them after a reload. The file keeps them: the
// entry is copied, never edited in place, and is not marked changed (a rewrite copies its
// original bytes).
import type { SessionEntry } from './schemas';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The entry as the agent holds it after a load: the same object when nothing applies. */
export function withoutReplayData(entry: SessionEntry): SessionEntry {
  if (entry.type !== 'message') return entry;
  const m = (entry as { message?: unknown }).message;
  if (!isObj(m) || m.role !== 'assistant' || !isObj(m.providerPayload) || m.providerPayload.type !== 'openaiResponsesHistory') return entry;
  const message: Obj = { ...m };
  delete message.providerPayload;
  if (Array.isArray(m.content)) {
    message.content = m.content.map((b: unknown) => {
      if (!isObj(b) || b.type !== 'thinking' || !('thinkingSignature' in b)) return b;
      const copy = { ...b };
      delete copy.thinkingSignature;
      return copy;
    });
  }
  return { ...entry, message } as SessionEntry;
}

/** Applies withoutReplayData to `entries[from…]` in place (the array, not the entries). */
export function stripReplayData(entries: SessionEntry[], from = 0): void {
  for (let i = from; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.type === 'message') entries[i] = withoutReplayData(e);
  }
}
