// A message row of the context preview, as every session model shapes it: a message's parts plus
// where it sits (kept, summary or cut), a cut entry that is no message, an entry's timestamp and
// the image at one of its blocks.
import type { SessionEntry } from '../../formats/xcsh/schemas';
import type { MessageView } from '../../../protocol/messages';
import type { MessageParts } from './messageView';

type Obj = Record<string, unknown>;

export function entryTimestamp(e: SessionEntry | undefined, m?: Obj): string | null {
  const ts = (e as { timestamp?: unknown } | undefined)?.timestamp;
  if (typeof ts === 'string') return ts;
  const mt = m?.timestamp;
  return typeof mt === 'number' && Number.isFinite(mt) ? new Date(mt).toISOString() : null;
}

/** A message row of the preview (kept, summary or cut): the message's parts plus where it sits. */
export function messageRow(
  parts: MessageParts,
  at: Pick<MessageView, 'index' | 'entryId' | 'timestamp' | 'tokensEst' | 'cumulativeTokensEst' | 'segment'>,
  callIndex: number | null,
): MessageView {
  return {
    index: at.index,
    entryId: at.entryId,
    role: parts.role,
    subtitle: parts.subtitle,
    badges: parts.badges,
    timestamp: at.timestamp,
    tokensEst: at.tokensEst,
    cumulativeTokensEst: at.cumulativeTokensEst,
    segment: at.segment,
    toolResult: parts.toolResult ? { ...parts.toolResult, callIndex } : null,
    usage: parts.usage,
    hiddenFromUser: parts.hiddenFromUser,
    blocks: parts.blocks,
  };
}

/** The image at a block of an entry that holds images (message or custom_message). */
export function imageIn(entry: SessionEntry | undefined, blockIndex: number): { data: string; mimeType: string } | null {
    const e = entry as Obj | undefined;
    if (!e) return null;
    const content = e.type === 'message' && e.message && typeof e.message === 'object' ? (e.message as Obj).content : e.content;
    if (!Array.isArray(content)) return null;
    const b = content[blockIndex] as Obj | undefined;
    if (!b || b.type !== 'image' || typeof b.data !== 'string') return null;
    return { data: b.data, mimeType: typeof b.mimeType === 'string' ? b.mimeType : 'image/png' };
  }

/** A cut entry that is no message (a label, a model change…): its fields as JSON, in the cut band. */
export function cutEntryRow(entry: SessionEntry | undefined, entryId: string, index: number, running: number): MessageView {
  const { id: _id, parentId: _p, type, timestamp: _t, ...rest } = (entry ?? { type: 'missing' }) as unknown as Obj;
  return {
    index,
    entryId,
    role: `entry:${String(type)}`,
    subtitle: null,
    badges: [],
    timestamp: entryTimestamp(entry),
    tokensEst: 0,
    cumulativeTokensEst: running,
    segment: 'cut',
    toolResult: null,
    usage: null,
    hiddenFromUser: false,
    blocks: Object.keys(rest).length > 0 ? [{ kind: 'json', label: String(type), json: JSON.stringify(rest, null, 2).slice(0, 20_000) }] : [],
  };
}
