// What the model sees (dsh-format.md §4 "deriveMessages"): the surface fold over the three
// surface types, projected to Message objects, plus the latest request/header's system prompt
// and tools. "What the model saw at seq N" is the fold over the events with seq ≤ N.
//
// Cheap at any N: one pass at construction records, for every surface node ever, the seq that
// shadowed it (a node leaves the surface once and never returns) and one global order in which
// every surface at every N is a subsequence (a replacing node takes the place of the span it
// shadows, and the two are never on the surface together). The context at N is then a single
// filter over that order: no replay, no splicing.
import type { DshEventList } from './eventStore';
import type { DshDiagnostic, DshEvent } from './types';

export interface DshReplacement {
  /** The surface event (typically the compaction summary `user/message`) that replaced the span. */
  replacingSeq: number;
  /** The surface nodes it shadowed, in surface order (greyed by a viewer). */
  shadowedSeqs: number[];
  start: number;
  end: number;
  /** The compaction event right before the replacing event, when there is one. */
  compaction?: { kind: 'summary' | 'prune'; seq: number; compactionId?: string; shadowedTokenCount?: number; provider?: string; model?: string };
}

export interface DshContextAt {
  /** The seq the context is for (every event with seq ≤ at counts). */
  at: number;
  /** The projected messages as stored (`user/message` data, `data.message` of the others). */
  messages: unknown[];
  /** The seq of the event each message came from. */
  messageSeqs: number[];
  /** The latest request/header's system prompt. */
  system: string | null;
  /** The latest request/header's tool names (a templated string such as "{{tools}}" is kept as one entry). */
  tools: string[];
  /** The latest request/header's provider and model (else the latest request/context's). */
  model: { provider: string; model: string } | null;
  /** The latest session/title's title. */
  title: string | null;
  /** The replacements in effect at `at`, oldest first. */
  replacements: DshReplacement[];
}

type Rec = Record<string, unknown>;

/** The event types the fold reads (the index is built over these only; the reader keeps them parsed). */
export const CONTEXT_FOLD_TYPES: ReadonlySet<string> = new Set(['user/message', 'assistant/message', 'tool/result', 'request/header', 'request/context', 'session/title']);

const rec = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined);

/** The message a surface event contributes to the model's history, or null (§4 step 2). */
export function projectSurfaceEvent(e: DshEvent): unknown {
  if (e.type === 'user/message') return e.data;
  const message = rec(rec(e.data)?.message);
  if (!message) return null;
  // A max-tokens step that only carries usage has an empty assistant message: skipped.
  if (e.type === 'assistant/message' && Array.isArray(message.content) && message.content.length === 0) return null;
  return message;
}

function toolNames(tools: unknown): string[] {
  if (typeof tools === 'string') return [tools];
  if (!Array.isArray(tools)) return [];
  const out: string[] = [];
  for (const t of tools) {
    if (typeof t === 'string') out.push(t);
    else {
      const name = rec(t)?.name ?? rec(rec(t)?.function)?.name;
      if (typeof name === 'string') out.push(name);
    }
  }
  return out;
}

/** The index of the last element of `seqs` (ascending) that is ≤ n, or -1. */
function lastAtOrBefore(seqs: readonly number[], n: number): number {
  let lo = 0;
  let hi = seqs.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (seqs[mid]! <= n) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export class DshContextIndex {
  /** Problems the fold met (dsh would refuse such a log); each op was applied as an append. */
  readonly diagnostics: DshDiagnostic[] = [];
  /** Every surface node ever, in the global order, with its event and the seq that shadowed it (-1: none). */
  private readonly orderSeqs: number[] = [];
  private readonly orderEvents: DshEvent[] = [];
  private orderRemovedAt: Int32Array = new Int32Array(0);
  /** Shadowed seq → the seq of the replacement that shadowed it. */
  private readonly removedAt = new Map<number, number>();
  private readonly replacements: DshReplacement[] = [];
  private readonly headerSeqs: number[] = [];
  private readonly routeSeqs: number[] = [];
  private readonly titleSeqs: number[] = [];

  /**
   * `events` must satisfy events.at(i).seq === i (closers included at the end, if any). `only`,
   * when given, lists (ascending) the seqs of every event the fold needs to read; others are
   * skipped (and never rebuilt, when `events` is an event store).
   */
  constructor(
    private readonly events: DshEventList,
    only?: readonly number[],
  ) {
    const count = only ? only.length : events.length;
    // The live surface (for validation and the shadowed spans) and a linked list giving the
    // global order, over positions k (the k-th event read), with insert-before.
    const surface: number[] = [];
    const next = new Int32Array(count).fill(-1);
    const prev = new Int32Array(count).fill(-1);
    const read: DshEvent[] = new Array(count);
    const posOf = (seq: number): number => (only ? lastAtOrBefore(only, seq) : seq);
    let head = -1;
    let tail = -1;
    let missingOp = 0;
    for (let k = 0; k < count; k++) {
      const e = events.at(only ? only[k]! : k)!;
      const t = e.type;
      // The hot loop over every event: plain string compares, no allocation for the others.
      if (t !== 'user/message' && t !== 'assistant/message' && t !== 'tool/result') {
        if (t === 'request/header') this.headerSeqs.push(e.seq);
        else if (t === 'request/context') this.routeSeqs.push(e.seq);
        else if (t === 'session/title') this.titleSeqs.push(e.seq);
        continue;
      }
      const op = e.surfaceOp;
      if (op === undefined) {
        missingOp++;
        continue;
      }
      read[k] = e;
      let shadowed: number[] | null = null;
      let r: Rec | undefined;
      if (op !== 'append') {
        r = rec(op);
        const i = typeof r?.start === 'number' ? surface.indexOf(r.start) : -1;
        const j = typeof r?.end === 'number' ? surface.indexOf(r.end) : -1;
        if (r?.op !== 'replace' || i === -1 || j < i) {
          this.diagnostics.push({ line: 0, seq: e.seq, kind: 'dsh-surface', message: `seq ${e.seq}: surfaceOp ${JSON.stringify(op)} does not apply to the surface (dsh refuses such a log); read as an append` });
        } else {
          shadowed = surface.splice(i, j - i + 1, e.seq);
        }
      }
      if (shadowed === null) {
        surface.push(e.seq);
        prev[k] = tail;
        if (tail === -1) head = k;
        else next[tail] = k;
        tail = k;
        continue;
      }
      for (const s of shadowed) this.removedAt.set(s, e.seq);
      const missing = shadowed.filter((s) => !e.sourceEventSeqs?.includes(s));
      if (missing.length > 0) {
        this.diagnostics.push({ line: 0, seq: e.seq, kind: 'dsh-surface', message: `seq ${e.seq}: the replacement's sourceEventSeqs omit shadowed node(s) ${missing.join(', ')} (dsh requires them)` });
      }
      // Insert the replacing node before the first shadowed one in the global order.
      const before = posOf(shadowed[0]!);
      const p = prev[before]!;
      prev[k] = p;
      next[k] = before;
      prev[before] = k;
      if (p === -1) head = k;
      else next[p] = k;
      this.replacements.push({ replacingSeq: e.seq, shadowedSeqs: shadowed, start: r!.start as number, end: r!.end as number, ...this.compactionBefore(e.seq) });
    }
    for (let k = head; k !== -1; k = next[k]!) {
      this.orderSeqs.push(read[k]!.seq);
      this.orderEvents.push(read[k]!);
    }
    this.orderRemovedAt = Int32Array.from(this.orderSeqs, (s) => this.removedAt.get(s) ?? -1);
    if (missingOp > 0) {
      this.diagnostics.push({ line: 0, kind: 'dsh-surface', message: `${missingOp} surface event(s) carry no surfaceOp, so they never reach the model (dsh's fold requires one)` });
    }
  }

  private compactionBefore(seq: number): Pick<DshReplacement, 'compaction'> {
    const c = seq > 0 ? this.events.at(seq - 1) : undefined;
    if (!c || (c.type !== 'compaction/summary' && c.type !== 'compaction/prune')) return {};
    const d = rec(c.data) ?? {};
    const pick = <K extends string>(k: K, type: 'string' | 'number'): Record<K, string | number> | object => (typeof d[k] === type ? { [k]: d[k] } : {});
    return {
      compaction: {
        kind: c.type === 'compaction/summary' ? 'summary' : 'prune',
        seq: c.seq,
        ...pick('compactionId', 'string'),
        ...pick('shadowedTokenCount', 'number'),
        ...pick('provider', 'string'),
        ...pick('model', 'string'),
      } as DshReplacement['compaction'],
    };
  }

  /** The last seq (events and closers): the default `at`. */
  get lastSeq(): number {
    return this.events.length - 1;
  }

  /** The context the model saw at seq `n` (clamped to the log). */
  contextAt(n: number = this.lastSeq): DshContextAt {
    const at = Math.max(-1, Math.min(Math.floor(n), this.lastSeq));
    const messages: unknown[] = [];
    const messageSeqs: number[] = [];
    const { orderSeqs, orderEvents, orderRemovedAt } = this;
    for (let k = 0; k < orderSeqs.length; k++) {
      const s = orderSeqs[k]!;
      if (s > at) continue;
      const r = orderRemovedAt[k]!;
      if (r !== -1 && r <= at) continue;
      const m = projectSurfaceEvent(orderEvents[k]!);
      if (m === null) continue;
      messages.push(m);
      messageSeqs.push(s);
    }
    const shadowedBy = (seq: number): number => this.removedAt.get(seq) ?? -1;
    const replacements = this.replacements.filter((r) => r.replacingSeq <= at && !(shadowedBy(r.replacingSeq) !== -1 && shadowedBy(r.replacingSeq) <= at));
    const h = lastAtOrBefore(this.headerSeqs, at);
    const header = h === -1 ? undefined : rec(rec(this.events.at(this.headerSeqs[h]!)!.data)?.header);
    const system = typeof header?.system === 'string' ? header.system : null;
    const tools = header ? toolNames(header.tools) : [];
    let model: DshContextAt['model'] = null;
    const config = rec(header?.config);
    if (typeof config?.provider === 'string' && typeof config.model === 'string') model = { provider: config.provider, model: config.model };
    else {
      const c = lastAtOrBefore(this.routeSeqs, at);
      const route = c === -1 ? undefined : rec(this.events.at(this.routeSeqs[c]!)!.data);
      if (typeof route?.provider === 'string' && typeof route.model === 'string') model = { provider: route.provider, model: route.model };
    }
    const t = lastAtOrBefore(this.titleSeqs, at);
    const titleValue = t === -1 ? undefined : rec(this.events.at(this.titleSeqs[t]!)!.data)?.title;
    return { at, messages, messageSeqs, system, tools, model, title: typeof titleValue === 'string' ? titleValue : null, replacements };
  }
}
