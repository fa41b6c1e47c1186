// Token usage per model response (codex-format.md A.7 `token_count`, Part C §4). A token_count
// event carries `info.last_token_usage` (the usage of one request) and `info.total_token_usage`
// (cumulative for the thread); `info` may be null (usage unknown). Nothing links an event to the
// items of its response, and versions write it on either side of them: 0.40 writes token_count
// BEFORE the response's items (after the turn_context that opens the request), 2026 files after
// them. So the rule: a response is a run of model-written items (reasoning, assistant message,
// calls) between inputs (user and tool outputs, turn_context); a token_count that arrives while a
// run without usage is open belongs to that run, else to the next run. Its usage is shown on the
// run's last item. A token_count repeating the previous cumulative total is a re-emission (rate
// limits changed), not a new request, and is skipped.
import { isObj, num, type CodexRecord, type Obj } from './types';

export interface CodexUsage {
  /** Prompt tokens, cached ones included (`input_tokens`). */
  input: number;
  /** The cached part of `input` (`cached_input_tokens`, a subset, C §4). */
  cachedInput: number;
  /** 2026: `cache_write_input_tokens` (unverified: read as a part of `input`, like the cached part). */
  cacheWrite: number;
  output: number;
  reasoningOutput: number;
  total: number;
}

/** The usage object of a token_count (`last_token_usage` / `total_token_usage`), or null. */
export function usageOf(u: unknown): CodexUsage | null {
  if (!isObj(u)) return null;
  const input = num(u.input_tokens) ?? 0;
  const output = num(u.output_tokens) ?? 0;
  return {
    input,
    cachedInput: num(u.cached_input_tokens) ?? 0,
    cacheWrite: num(u.cache_write_input_tokens) ?? 0,
    output,
    reasoningOutput: num(u.reasoning_output_tokens) ?? 0,
    total: num(u.total_tokens) ?? input + output,
  };
}

/** Items the model writes (history.rs `is_model_generated_item`). */
export function isModelOutput(item: Obj): boolean {
  switch (item.type) {
    case 'message':
      return item.role === 'assistant';
    case 'reasoning':
    case 'function_call':
    case 'tool_search_call':
    case 'web_search_call':
    case 'image_generation_call':
    case 'custom_tool_call':
    case 'local_shell_call':
    case 'compaction':
    case 'context_compaction':
      return true;
    default:
      return false;
  }
}

export interface UsageIndex {
  /** The usage of each response, by the line of its last item. */
  byLine: Map<number, CodexUsage>;
  /** [line, usage] of each attributed response, in file order. */
  ordered: Array<{ line: number; usage: CodexUsage }>;
  /** The newest cumulative usage of the thread (`total_token_usage`), or null when none was recorded. */
  total: CodexUsage | null;
  /** How many token_count events had usage (re-emissions excluded). */
  requests: number;
  /** The newest `model_context_window`. */
  contextWindow: number | null;
}

export function attributeUsage(records: readonly CodexRecord[]): UsageIndex {
  const byLine = new Map<number, CodexUsage>();
  const ordered: UsageIndex['ordered'] = [];
  let total: CodexUsage | null = null;
  let lastTotal: number | null = null;
  let requests = 0;
  let contextWindow: number | null = null;
  let run: { last: number; usage: CodexUsage | null } | null = null;
  let pending: CodexUsage | null = null;
  const close = (): void => {
    if (run?.usage) {
      byLine.set(run.last, run.usage);
      ordered.push({ line: run.last, usage: run.usage });
    }
    run = null;
  };
  for (const rec of records) {
    const p = rec.payload;
    if (!isObj(p)) continue;
    if (rec.type === 'response_item') {
      if (isModelOutput(p)) {
        if (run) run.last = rec.line;
        else {
          run = { last: rec.line, usage: pending };
          pending = null;
        }
      } else close();
    } else if (rec.type === 'turn_context') close();
    else if (rec.type === 'compacted') {
      close();
      pending = null;
    } else if (rec.type === 'event_msg' && p.type === 'token_count' && isObj(p.info)) {
      const info = p.info;
      contextWindow = num(info.model_context_window) ?? contextWindow;
      const cumulative = usageOf(info.total_token_usage);
      if (cumulative) {
        if (lastTotal !== null && cumulative.total === lastTotal) continue;
        lastTotal = cumulative.total;
        total = cumulative;
      }
      const last = usageOf(info.last_token_usage);
      if (!last) continue;
      requests++;
      const open = run as { last: number; usage: CodexUsage | null } | null;
      if (open && !open.usage) open.usage = last;
      else pending = last;
    }
  }
  close();
  return { byLine, ordered, total, requests, contextWindow };
}

/** The usage of the newest response that ended before `line` (the context size before it), or null. */
export function usageBefore(index: UsageIndex, line: number): CodexUsage | null {
  let lo = 0;
  let hi = index.ordered.length - 1;
  let found: CodexUsage | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (index.ordered[mid]!.line < line) {
      found = index.ordered[mid]!.usage;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
