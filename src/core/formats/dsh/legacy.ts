// Legacy event shapes dsh's loader still upgrades, and the ones it refuses (dsh-format.md §2,
// last part; `coordinator.ts`). Upgrades happen in memory only: the upgraded event replaces the
// stored one in the event array, the file is never touched. A refused or malformed shape is a
// diagnostic and the event stays as stored (shown raw), never an exception.
import type { DshDiagnostic, DshEvent } from './types';

/** The event types of dsh rc.8 (core `SessionEventMap` plus the plugin catalogue of §2). */
export const KNOWN_DSH_EVENT_TYPES: ReadonlySet<string> = new Set([
  'turn/start', 'turn/end', 'step/start', 'step/end', 'user/message', 'assistant/chunk', 'assistant/message',
  'tool/call', 'tool/result', 'todo/write', 'request/header', 'request/context', 'session/end-seed',
  'agent/inbox/spliced', 'agent-preset/selected', 'approval/asked', 'approval/decided', 'approval/policy',
  'command/run', 'command/done', 'compaction/start', 'compaction/summary', 'compaction/prune', 'compaction/end',
  'feedback/record', 'goal/change', 'hook/invoked', 'hook/result', 'llm/retry', 'llm/retry-started',
  'permission/preset', 'plan/mode', 'sandbox/mode', 'schedule/change', 'session/title', 'session/title-llm-request',
  'subagent/descriptor', 'team/member', 'team/task', 'team/message/queued', 'team/message/delivered',
  'tool/code-dispatch-start', 'tool/code-dispatch', 'tool-workflow/run-start', 'tool-workflow/run-end',
  'tool-workflow/agent-start', 'tool-workflow/agent-end', 'web/deepseek-search-llm-request',
]);

type Rec = Record<string, unknown>;
const asRecord = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined);
const has = (o: Rec, k: string): boolean => Object.hasOwn(o, k);
const onlyKeys = (o: Rec, required: string[], optional: string[] = []): boolean =>
  Object.keys(o).every((k) => required.includes(k) || optional.includes(k)) && required.every((k) => has(o, k));
const posInt = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;

/** The stable id dsh mints for a message stored before messages had ids. */
export const legacyMessageId = (sessionId: string, seq: number): string => `legacy-message:${sessionId}:${seq}`;

/** A refusal (message) or the upgraded event, or the event itself when nothing applies. */
type Step = DshEvent | { refused: string };

function turnStart(e: DshEvent): Step {
  const d = asRecord(e.data);
  if (!d || !has(d, 'trigger')) return e;
  const trigger = asRecord(d.trigger);
  if (!posInt(d.turn) || !onlyKeys(d, ['turn', 'trigger']) || !trigger || typeof trigger.kind !== 'string' || trigger.kind === '') {
    return { refused: 'malformed pre-react-loop turn/start' };
  }
  return { ...e, data: { turn: d.turn } };
}

function turnEndReason(reason: Rec): Rec | null | 'malformed' {
  switch (reason.kind) {
    case 'completed':
    case 'blocked':
    case 'max-tokens':
    case 'interrupted':
      return onlyKeys(reason, ['kind']) ? null : 'malformed';
    case 'aborted':
      if (has(reason, 'reason')) return null;
      return onlyKeys(reason, ['kind']) ? { kind: 'aborted', reason: { kind: 'legacy' } } : 'malformed';
    case 'disposed':
      return onlyKeys(reason, ['kind']) ? { kind: 'aborted', reason: { kind: 'disposed' } } : 'malformed';
    case 'error': {
      if (has(reason, 'error')) return null;
      if (typeof reason.step !== 'number' || !Number.isSafeInteger(reason.step) || reason.step < 0) return 'malformed';
      const failure = asRecord(reason.failure);
      if (failure && onlyKeys(reason, ['kind', 'step', 'failure']) && typeof failure.message === 'string' && typeof failure.code === 'string') {
        return { kind: 'error', error: failure };
      }
      const keys = reason.code === undefined ? ['kind', 'step', 'message'] : ['kind', 'step', 'message', 'code'];
      if (!onlyKeys(reason, keys) || typeof reason.message !== 'string' || (reason.code !== undefined && typeof reason.code !== 'string')) return 'malformed';
      return { kind: 'error', error: { message: reason.message, code: typeof reason.code === 'string' ? reason.code : 'UNKNOWN' } };
    }
    default:
      return null; // the reason map is merge-extensible: an unknown kind is current
  }
}

function turnEnd(e: DshEvent): Step {
  const d = asRecord(e.data);
  if (!d) return e;
  const reason = asRecord(d.reason);
  if (!posInt(d.turn) || !onlyKeys(d, ['turn', 'reason']) || !reason || typeof reason.kind !== 'string') {
    return { refused: 'malformed turn/end' };
  }
  const next = turnEndReason(reason);
  if (next === 'malformed') return { refused: `malformed pre-react-loop turn/end reason ${JSON.stringify(reason.kind)}` };
  return next === null ? e : { ...e, data: { ...d, reason: next } };
}

function steering(e: DshEvent, sessionId: string): Step {
  const d = asRecord(e.data);
  if (!d) return { refused: 'malformed pre-react-loop steering/message' };
  const wrapped = asRecord(d.message);
  if (wrapped && posInt(d.turn) && onlyKeys(d, ['turn', 'message'])) return { ...e, type: 'user/message', data: wrapped };
  if (!posInt(d.turn) || !onlyKeys(d, ['turn', 'content', 'source'])) return { refused: 'malformed pre-react-loop steering/message' };
  const { turn: _turn, ...message } = d;
  return { ...e, type: 'user/message', data: { ...message, id: legacyMessageId(sessionId, e.seq), role: 'user' } };
}

function message(e: DshEvent, sessionId: string, earlier: (seq: number) => DshEvent | undefined): Step {
  const d = asRecord(e.data);
  if (!d) return e;
  if (e.type === 'user/message') {
    if (has(d, 'id') || has(d, 'role') || has(d, 'message') || !has(d, 'content') || !has(d, 'source')) return e;
    return { ...e, data: { ...d, id: legacyMessageId(sessionId, e.seq), role: 'user' } };
  }
  if (e.type === 'assistant/message') {
    if (has(d, 'message') || !has(d, 'content') || !has(d, 'provenance')) return e;
    const { content, provenance, ...rest } = d;
    return { ...e, data: { ...rest, message: { id: legacyMessageId(sessionId, e.seq), role: 'assistant', content, source: { ...asRecord(provenance), kind: 'model' } } } };
  }
  // tool/result
  if (has(d, 'message') || !has(d, 'callId') || !has(d, 'content') || !has(d, 'isError')) return e;
  const { callId, content, isError, ...rest } = d;
  const op = asRecord(e.surfaceOp);
  // A replacement inherits the message id of the node it replaces.
  const start = op?.op === 'replace' ? op.start : undefined;
  const replaced = typeof start === 'number' && Number.isInteger(start) && start >= 0 && start < e.seq ? earlier(start) : undefined;
  const inherited = replaced ? messageIdOf(replaced) : undefined;
  return {
    ...e,
    data: {
      ...rest,
      message: {
        id: inherited ?? legacyMessageId(sessionId, e.seq),
        role: 'user',
        content: [{ type: 'tool-result', toolCallId: callId, content, isError }],
        source: { kind: 'tool', callId },
      },
    },
  };
}

/** The message id of a surface event (as upgraded), if it has one. */
function messageIdOf(e: DshEvent): string | undefined {
  if (e.type !== 'user/message' && e.type !== 'assistant/message' && e.type !== 'tool/result') return undefined;
  const d = asRecord(e.data);
  const m = e.type === 'user/message' ? d : asRecord(d?.message);
  return typeof m?.id === 'string' ? m.id : undefined;
}

type Tally = Map<string, { first: number; count: number }>;

function note(m: Tally, key: string, seq: number): void {
  const n = m.get(key);
  if (n) n.count++;
  else m.set(key, { first: seq, count: 1 });
}

/**
 * The legacy pass over a log's events, one event at a time in seq order (the reader feeds it each
 * accepted event as it is read): upgrades an event (a new object, the stored one never mutated)
 * and tallies refused shapes and unknown types, reported as one diagnostic per kind with a count
 * and the first seq.
 */
export class LegacyUpgrader {
  private readonly upgraded: Tally = new Map();
  private readonly refused: Tally = new Map();
  private readonly unknown: Tally = new Map();
  /**
   * `earlier(seq)`: the event with that seq, already passed through this upgrader (a legacy
   * replacement inherits the message id of the node it replaces).
   */
  constructor(
    private readonly sessionId: string,
    private readonly earlier: (seq: number) => DshEvent | undefined,
  ) {}

  /** The event as dsh's loader reads it: `e` itself, or its upgrade. */
  upgrade(e: DshEvent): DshEvent {
    let step: Step = e;
    switch (e.type) {
      case 'turn/start':
        step = turnStart(e);
        break;
      case 'turn/end':
        step = turnEnd(e);
        break;
      case 'steering/message':
        step = steering(e, this.sessionId);
        if (!('refused' in step)) step = message(step, this.sessionId, this.earlier);
        break;
      case 'user/message':
      case 'assistant/message':
      case 'tool/result':
        step = message(e, this.sessionId, this.earlier);
        break;
      case 'request/header':
        if (asRecord(e.data)?.reason === 'fallback') step = { refused: 'legacy request/header reason "fallback"' };
        break;
      case 'request/header-delta':
      case 'mode/set':
        step = { refused: `legacy ${e.type} event` };
        break;
      default:
        if (!KNOWN_DSH_EVENT_TYPES.has(e.type) && e.ignorable !== true) note(this.unknown, e.type, e.seq);
    }
    if ('refused' in step) {
      note(this.refused, step.refused, e.seq);
      return e;
    }
    if (step !== e) note(this.upgraded, e.type === step.type ? e.type : `${e.type} → ${step.type}`, e.seq);
    return step;
  }

  diagnostics(): DshDiagnostic[] {
    const diags: DshDiagnostic[] = [];
    for (const [what, n] of this.upgraded) {
      diags.push({ line: 0, seq: n.first, kind: 'dsh-legacy', message: `${n.count} legacy ${what} event(s) upgraded in memory as dsh's loader does (first at seq ${n.first})` });
    }
    for (const [what, n] of this.refused) {
      diags.push({ line: 0, seq: n.first, kind: 'dsh-refused-event', message: `${n.count} × ${what} (first at seq ${n.first}): dsh refuses to load such a session; shown as stored` });
    }
    for (const [type, n] of this.unknown) {
      diags.push({ line: 0, seq: n.first, kind: 'dsh-unknown-type', message: `${n.count} event(s) of the unknown type ${type} (first at seq ${n.first}), not marked ignorable: shown as raw JSON` });
    }
    return diags;
  }
}

/** Upgrades legacy shapes of an event array in place (replacing slots, never mutating stored objects). */
export function upgradeLegacyEvents(events: DshEvent[], sessionId: string): DshDiagnostic[] {
  const pass = new LegacyUpgrader(sessionId, (seq) => events[seq]);
  for (let i = 0; i < events.length; i++) events[i] = pass.upgrade(events[i]!);
  return pass.diagnostics();
}
