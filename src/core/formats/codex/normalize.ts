// The normalisation the CLI applies to a copy of the history before each request (codex-format.md
// B.4; the file is never changed):
// 1. a call without an output gets a synthetic output right after it: `aborted` for function,
//    custom-tool and local-shell calls, an empty completed result for a tool search;
// 2. an output whose call_id has no call is removed;
// 3. for a model without image input, every `input_image` in messages and tool outputs becomes
//    the text "image content omitted because you do not support image input".
import { isObj, str, type HistoryItem, type Obj } from './types';

/** The CLI's placeholder for an image a model without image input is not sent (B.4). */
export const IMAGE_OMITTED_TEXT = 'image content omitted because you do not support image input';
/** The output the CLI supplies for a call that never got one (B.4, Part C §6). */
export const ABORTED_OUTPUT = 'aborted';

export interface NormalizeOptions {
  /** Whether the model takes image input (else images are replaced by IMAGE_OMITTED_TEXT). */
  imageInput: boolean;
}

function syntheticOutputFor(call: Obj): Obj | null {
  const callId = str(call.call_id);
  if (callId === null) return null;
  switch (call.type) {
    case 'function_call':
    case 'local_shell_call':
      return { type: 'function_call_output', call_id: callId, output: ABORTED_OUTPUT };
    case 'custom_tool_call':
      return { type: 'custom_tool_call_output', call_id: callId, output: ABORTED_OUTPUT };
    case 'tool_search_call':
      return { type: 'tool_search_output', call_id: callId, status: 'completed', execution: 'client', tools: [] };
    default:
      return null;
  }
}

/** The output kind that answers a call kind. */
const ANSWERED_BY: Record<string, string> = {
  function_call: 'function_call_output',
  local_shell_call: 'function_call_output',
  custom_tool_call: 'custom_tool_call_output',
  tool_search_call: 'tool_search_output',
};

function stripImagesIn(item: Obj): { item: Obj; count: number } {
  let count = 0;
  const swap = (c: unknown): unknown => {
    if (isObj(c) && c.type === 'input_image') {
      count++;
      return { type: 'input_text', text: IMAGE_OMITTED_TEXT };
    }
    return c;
  };
  if (item.type === 'message' && Array.isArray(item.content)) {
    const content = item.content.map(swap);
    return count > 0 ? { item: { ...item, content }, count } : { item, count };
  }
  if ((item.type === 'function_call_output' || item.type === 'custom_tool_call_output') && Array.isArray(item.output)) {
    const output = item.output.map(swap);
    return count > 0 ? { item: { ...item, output }, count } : { item, count };
  }
  return { item, count };
}

/** The history as one request sends it (B.4), from the replayed history; the input is not changed. */
export function normalizeForModel(history: readonly HistoryItem[], opts: NormalizeOptions): HistoryItem[] {
  const outputs = new Map<string, Set<string>>();
  const calls = new Map<string, Set<string>>();
  const add = (m: Map<string, Set<string>>, kind: string, id: string): void => {
    let s = m.get(kind);
    if (!s) m.set(kind, (s = new Set()));
    s.add(id);
  };
  for (const h of history) {
    const t = String(h.item.type);
    const id = str(h.item.call_id);
    if (id === null) continue;
    if (t in ANSWERED_BY) add(calls, t, id);
    else if (t === 'function_call_output' || t === 'custom_tool_call_output' || t === 'tool_search_output') add(outputs, t, id);
  }
  const has = (m: Map<string, Set<string>>, kind: string, id: string): boolean => m.get(kind)?.has(id) ?? false;
  const out: HistoryItem[] = [];
  for (const h of history) {
    const t = String(h.item.type);
    const id = str(h.item.call_id);
    // 2. orphan outputs
    if (t === 'function_call_output' && id !== null && !has(calls, 'function_call', id) && !has(calls, 'local_shell_call', id)) continue;
    if (t === 'function_call_output' && id === null) continue;
    if (t === 'custom_tool_call_output' && (id === null || !has(calls, 'custom_tool_call', id))) continue;
    if (t === 'tool_search_output' && h.item.execution !== 'server' && id !== null && !has(calls, 'tool_search_call', id)) continue;
    let item = h;
    if (!opts.imageInput) {
      const s = stripImagesIn(h.item);
      if (s.count > 0) item = { ...h, item: s.item, imagesOmitted: s.count };
    }
    out.push(item);
    // 1. unanswered calls
    if (t in ANSWERED_BY && id !== null && !has(outputs, ANSWERED_BY[t]!, id)) {
      const synthetic = syntheticOutputFor(h.item);
      if (synthetic) out.push({ id: `${h.id}~aborted`, line: h.line, item: synthetic, origin: 'synthetic', ...(h.compactionLine !== undefined ? { compactionLine: h.compactionLine } : {}) });
    }
  }
  return out;
}
