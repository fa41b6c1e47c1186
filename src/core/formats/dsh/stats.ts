// Per-session figures for a listing row or tooltip: message counts, tool calls, token usage
// (dsh-format.md §4.4: the `usage` chunks of each step, falling back to the step's
// assistant/message.usage), the models used, title and times. One pass over the stored events;
// the synthetic closers are counted apart, never as recorded work.
import type { DshEventStore } from './eventStore';
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

type Counts = Pick<DshSessionStats, 'title' | 'turns' | 'steps' | 'messages' | 'toolCalls' | 'models'>;

/**
 * The stats fold over a log's events in seq order. The reader feeds it each stored event as it is
 * read (a packed row only through `time`: its chunk deltas count for nothing else), so that the
 * stats of a loaded log never rebuild its chunk events.
 */
export class DshStatsFold {
  private readonly counts: Counts = { title: null, turns: 0, steps: 0, messages: { user: 0, injected: 0, assistant: 0, toolResults: 0 }, toolCalls: 0, models: [] };
  private readonly seenModels = new Set<string>();
  // Per step: the usage chunks' sum, else the assistant/message usage (§4.4).
  private readonly chunkUsage = new Map<string, DshTokenUsage>();
  private readonly messageUsage = new Map<string, unknown>();
  private maxTime = -Infinity;

  /** An event's time (every event's, packed members included). */
  time(t: number): void {
    if (t > this.maxTime) this.maxTime = t;
  }

  add(e: DshEvent): void {
    this.time(e.time);
    const stats = this.counts;
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
        this.addModel(source?.provider, source?.model);
        if (d && d.usage !== undefined) this.messageUsage.set(stepKey(d), d.usage);
        break;
      }
      case 'assistant/chunk': {
        const chunk = rec(d?.chunk);
        if (d && chunk?.type === 'usage') {
          const key = stepKey(d);
          let u = this.chunkUsage.get(key);
          if (!u) this.chunkUsage.set(key, (u = zeroUsage()));
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
        this.addModel(config?.provider, config?.model);
        break;
      }
      case 'session/title':
        if (typeof d?.title === 'string') stats.title = d.title;
        break;
    }
  }

  private addModel(provider: unknown, model: unknown): void {
    if (typeof provider !== 'string' || typeof model !== 'string') return;
    const key = `${provider}\u0000${model}`;
    if (this.seenModels.has(key)) return;
    this.seenModels.add(key);
    this.counts.models.push({ provider, model });
  }

  /** The stats of `log`, whose stored events are the ones this fold was fed. */
  stats(log: DshLog): DshSessionStats {
    const usage = zeroUsage();
    for (const u of this.chunkUsage.values()) for (const k of USAGE_KEYS) usage[k] += u[k];
    for (const [key, u] of this.messageUsage) if (!this.chunkUsage.has(key)) addUsage(usage, u);
    const c = this.counts;
    const last = log.events.at(-1);
    return {
      state: log.state,
      title: c.title,
      createdAt: log.header?.createdAt ?? null,
      lastEventTime: last ? last.time : null,
      maxEventTime: Number.isFinite(this.maxTime) ? this.maxTime : null,
      events: log.events.length,
      closers: log.closers.length,
      turns: c.turns,
      steps: c.steps,
      messages: { ...c.messages },
      toolCalls: c.toolCalls,
      usage,
      models: c.models.map((m) => ({ ...m })),
    };
  }
}

const stepKey = (d: Rec): string => `${String(d.turn)}:${String(d.step)}`;

/** The folds the reader ran while reading a log, by its event store. */
const folds = new WeakMap<DshEventStore, DshStatsFold>();

export function rememberStatsFold(events: DshEventStore, fold: DshStatsFold): void {
  folds.set(events, fold);
}

export function dshSessionStats(log: DshLog): DshSessionStats {
  let fold = folds.get(log.events);
  if (!fold) {
    // A log the reader did not build: fold over its events (rebuilding them all).
    fold = new DshStatsFold();
    for (const e of log.events) fold.add(e);
  }
  return fold.stats(log);
}
