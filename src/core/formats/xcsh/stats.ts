// Per-session totals for a viewer (session list tooltips, the editor's header), in one pass.
import type { SessionEntry, SessionHeader } from './schemas';

export interface SessionStats {
  entries: number;
  entriesByType: Record<string, number>;
  messagesByRole: Record<string, number>;
  toolCalls: number;
  toolResults: number;
  toolErrors: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  /** `provider/model` strings in first-seen order, from assistant messages and model_change entries. */
  models: string[];
  compactions: number;
  branchSummaries: number;
  labels: number;
  /** The text of the first user message in file order, or null. */
  firstUserMessage: string | null;
  title: string | null;
  /** ISO timestamps of the first and last entries that carry one. */
  firstTimestamp: string | null;
  lastTimestamp: string | null;
}

function num(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : 0;
}

/** Text of a message's content: a string, or its text blocks joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) {
    if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text') {
      const t = (b as { text?: unknown }).text;
      if (typeof t === 'string') parts.push(t);
    }
  }
  return parts.join('\n');
}

export function computeSessionStats(entries: readonly SessionEntry[], header?: SessionHeader | null): SessionStats {
  const s: SessionStats = {
    entries: 0,
    entriesByType: {},
    messagesByRole: {},
    toolCalls: 0,
    toolResults: 0,
    toolErrors: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    cost: 0,
    models: [],
    compactions: 0,
    branchSummaries: 0,
    labels: 0,
    firstUserMessage: null,
    title: typeof header?.title === 'string' ? header.title : null,
    firstTimestamp: null,
    lastTimestamp: null,
  };
  return extendSessionStats(s, entries, 0);
}

/**
 * The stats of `entries` when `stats` are those of `entries.slice(0, from)`: every total is a
 * running one, so a live session's new tail costs only its own entries. Returns a new object;
 * `stats` is left as it was.
 */
export function extendSessionStats(stats: SessionStats, entries: readonly SessionEntry[], from: number): SessionStats {
  const s: SessionStats = {
    ...stats,
    entries: stats.entries + (entries.length - from),
    entriesByType: { ...stats.entriesByType },
    messagesByRole: { ...stats.messagesByRole },
    tokens: { ...stats.tokens },
  };
  const models = new Set<string>(stats.models);
  for (let i = from; i < entries.length; i++) {
    const e = entries[i]!;
    s.entriesByType[e.type] = (s.entriesByType[e.type] ?? 0) + 1;
    const ts = (e as { timestamp?: unknown }).timestamp;
    if (typeof ts === 'string') {
      if (s.firstTimestamp === null) s.firstTimestamp = ts;
      s.lastTimestamp = ts;
    }
    switch (e.type) {
      case 'message': {
        const m = (e as { message?: Record<string, unknown> }).message;
        if (!m || typeof m !== 'object') break;
        const role = typeof m.role === 'string' ? m.role : '?';
        s.messagesByRole[role] = (s.messagesByRole[role] ?? 0) + 1;
        if (role === 'assistant') {
          if (typeof m.provider === 'string' && typeof m.model === 'string') models.add(`${m.provider}/${m.model}`);
          if (Array.isArray(m.content)) {
            for (const b of m.content) if (b && (b as { type?: unknown }).type === 'toolCall') s.toolCalls++;
          }
          const u = m.usage as Record<string, unknown> | undefined;
          if (u && typeof u === 'object') {
            const input = num(u.input);
            const output = num(u.output);
            const cacheRead = num(u.cacheRead);
            const cacheWrite = num(u.cacheWrite);
            s.tokens.input += input;
            s.tokens.output += output;
            s.tokens.cacheRead += cacheRead;
            s.tokens.cacheWrite += cacheWrite;
            s.tokens.total += typeof u.totalTokens === 'number' ? num(u.totalTokens) : input + output + cacheRead + cacheWrite;
            const c = u.cost as Record<string, unknown> | undefined;
            if (c && typeof c === 'object') s.cost += num(c.total);
          }
        } else if (role === 'toolResult') {
          s.toolResults++;
          if (m.isError === true) s.toolErrors++;
        } else if (role === 'user' && s.firstUserMessage === null) {
          const text = contentText(m.content);
          if (text) s.firstUserMessage = text;
        }
        break;
      }
      case 'model_change': {
        const x = e as { model?: unknown; provider?: unknown; modelId?: unknown };
        if (typeof x.model === 'string') models.add(x.model);
        else if (typeof x.provider === 'string' && typeof x.modelId === 'string') models.add(`${x.provider}/${x.modelId}`);
        break;
      }
      case 'compaction':
        s.compactions++;
        break;
      case 'branch_summary':
        s.branchSummaries++;
        break;
      case 'label':
        s.labels++;
        break;
      default:
        break;
    }
  }
  s.models = [...models];
  return s;
}

/**
 * How many messages a session has, counted one way everywhere (issue 14): its `message` entries
 * as the loader reads them. The Sessions row, its tooltip and the editor's header all show it.
 */
export function messageCountOf(stats: SessionStats): number {
  return stats.entriesByType.message ?? 0;
}
