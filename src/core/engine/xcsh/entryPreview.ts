// The one-line preview `session-loom tree` shows of an entry (the eager and the lazy tree print
// the same), and the row each tree entry is in its JSON form.
import type { SessionEntry } from '../../formats/xcsh/schemas';
import { contentText } from '../../formats/xcsh/stats';
import { flatten } from '../../tree/treeView';

export interface TreeRowJson {
  id: string;
  type: string;
  line: number;
  preview: string;
  label?: string;
  leaf?: true;
}

/** A field's value as preview text: nothing when it is absent or null. */
const shown = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

export function entryPreview(e: SessionEntry): string {
  let kind: string = e.type;
  let text = '';
  const x = e as Record<string, unknown>;
  if (e.type === 'message') {
    const m = (x.message ?? {}) as Record<string, unknown>;
    kind = typeof m.role === 'string' ? m.role : 'message';
    text = contentText(m.content);
    if (!text && Array.isArray(m.content)) {
      const call = (m.content as { type?: unknown; name?: unknown }[]).find((b) => b?.type === 'toolCall');
      if (call) text = `→ ${String(call.name)}`;
    }
    if (!text && typeof m.command === 'string') text = `$ ${m.command}`;
  } else if (e.type === 'custom_message') text = contentText(x.content);
  else if (e.type === 'branch_summary' || e.type === 'compaction') text = typeof x.summary === 'string' ? x.summary : '';
  else if (e.type === 'model_change') text = typeof x.model === 'string' ? x.model : `${String(x.provider)}/${String(x.modelId)}`;
  else if (e.type === 'thinking_level_change') text = shown(x.thinkingLevel);
  else if (e.type === 'label') text = `${shown(x.targetId) || '?'} ← ${typeof x.label === 'string' ? JSON.stringify(x.label) : '(cleared)'}`;
  // (a field the entry lacks shows as nothing, not as "undefined")
  else if (e.type === 'mode_change') text = shown(x.mode);
  text = flatten(text);
  if (text.length > 72) text = text.slice(0, 71) + '…';
  return text ? `${kind}: ${text}` : kind;
}
