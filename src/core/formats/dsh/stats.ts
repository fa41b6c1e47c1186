// Per-session figures for a listing row or tooltip: message counts, tool calls, token usage
// (dsh-format.md §4.4: the `usage` chunks of each step, falling back to the step's
// assistant/message.usage), the models used, title and times. One pass over the stored events;
// the synthetic closers are counted apart, never as recorded work.
import type { DshEvent, DshLog, DshLogState } from './types';

export interface DshTokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

export interface DshSessionStats {
  state: DshLogState;
  title: string | null;
  createdAt: number | null;
  /** The `time` of the last stored event (times are not monotonic in dsh logs), and the largest one. */
  lastEventTime: number | null;
  maxEventTime: number | null;
  events: number;
  closers: number;
  turns: number;
  steps: number;
  messages: {
    /** Human prompts: user/message with source.kind 'user'. */
    user: number;
    /** Injected context: every other user/message (plugins, runtime context, compaction summaries). */
    injected: number;
    assistant: number;
    toolResults: number;
  };
  toolCalls: number;
  usage: DshTokenUsage;
  /** Distinct provider/model pairs, in order of first use. */
  models: Array<{ provider: string; model: string }>;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined);
const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;

function addUsage(into: DshTokenUsage, usage: unknown): void {
  const u = rec(usage);
  if (!u) return;
  for (const k of USAGE_KEYS) {
    const v = u[k];
    if (typeof v === 'number' && Number.isFinite(v)) into[k] += v;
  }
}

const zeroUsage = (): DshTokenUsage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });

export function dshSessionStats(log: DshLog): DshSessionStats {
  const stats: DshSessionStats = {
    state: log.state,
    title: null,
    createdAt: log.header?.createdAt ?? null,
    lastEventTime: null,
    maxEventTime: null,
    events: log.events.length,
    closers: log.closers.length,
    turns: 0,
    steps: 0,
    messages: { user: 0, injected: 0, assistant: 0, toolResults: 0 },
    toolCalls: 0,
    usage: zeroUsage(),
    models: [],
  };
  const seenModels = new Set<string>();
  const addModel = (provider: unknown, model: unknown): void => {
    if (typeof provider !== 'string' || typeof model !== 'string') return;
    const key = `${provider}\u0000${model}`;
    if (seenModels.has(key)) return;
    seenModels.add(key);
    stats.models.push({ provider, model });
  };
  // Per step: the usage chunks' sum, else the assistant/message usage (§4.4).
  const chunkUsage = new Map<string, DshTokenUsage>();
  const messageUsage = new Map<string, unknown>();
  const stepKey = (d: Rec): string => `${String(d.turn)}:${String(d.step)}`;
  let maxTime = -Infinity;
  for (const e of log.events as DshEvent[]) {
    if (e.time > maxTime) maxTime = e.time;
    const d = rec(e.data);
    switch (e.type) {
      case 'turn/start':
        stats.turns++;
        break;
      case 'step/end':
        stats.steps++;
        break;
      case 'user/message':
        if (rec(d?.source)?.kind === 'user') stats.messages.user++;
        else stats.messages.injected++;
        break;
      case 'assistant/message': {
        stats.messages.assistant++;
        const source = rec(rec(d?.message)?.source);
        addModel(source?.provider, source?.model);
        if (d && d.usage !== undefined) messageUsage.set(stepKey(d), d.usage);
        break;
      }
      case 'assistant/chunk': {
        const chunk = rec(d?.chunk);
        if (d && chunk?.type === 'usage') {
          const key = stepKey(d);
          let u = chunkUsage.get(key);
          if (!u) chunkUsage.set(key, (u = zeroUsage()));
          addUsage(u, chunk.usage);
        }
        break;
      }
      case 'tool/call':
        stats.toolCalls++;
        break;
      case 'tool/result':
        stats.messages.toolResults++;
        break;
      case 'request/header': {
        const config = rec(rec(d?.header)?.config);
        addModel(config?.provider, config?.model);
        break;
      }
      case 'session/title':
        if (typeof d?.title === 'string') stats.title = d.title;
        break;
    }
  }
  for (const u of chunkUsage.values()) for (const k of USAGE_KEYS) stats.usage[k] += u[k];
  for (const [key, usage] of messageUsage) if (!chunkUsage.has(key)) addUsage(stats.usage, usage);
  const last = log.events[log.events.length - 1];
  stats.lastEventTime = last ? last.time : null;
  stats.maxEventTime = Number.isFinite(maxTime) ? maxTime : null;
  return stats;
}
