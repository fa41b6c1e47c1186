// Interrupted-turn closure (dsh-format.md §4, `interruptedTurnClosers` in repair.ts): when the log
// ends inside a turn, dsh appends synthetic events on load. Session Loom never writes them: it
// applies them in memory, as dsh's `inspect()` does, and shows them as synthetic.
//
// Scan: turn/start opens a turn (clears pending calls); turn/end closes it (clears); step/start
// opens a step; step/end closes it (clears); each tool-call block of an assistant/message adds a
// pending call; a later tool/call records its seq; a tool/result settles its callId. Closers, all
// at the last event's time and continuing the seqs: one tool/result per pending call
// (TOOL_OUTCOME_UNKNOWN when its tool/call was recorded, TOOL_NOT_STARTED when not), then
// step/end if a step is open, then turn/end {kind:'interrupted'}.
import type { DshEventList } from './eventStore';
import type { DshEvent } from './types';

export const TOOL_NOT_STARTED = 'TOOL_NOT_STARTED';
export const TOOL_OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN';

/** The model-visible texts dsh writes (repair.ts), byte for byte. */
export const OUTCOME_UNKNOWN_TEXT =
  'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.';
export const NOT_STARTED_TEXT = 'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined);

export interface OpenTurnState {
  openTurn: number | null;
  openStep: number | null;
  pending: Map<string, { step: unknown; callSeq?: number }>;
}

/**
 * The fold over a log's events in seq order: which turn and step are open at its end, and the
 * unanswered calls. The reader feeds it each event as it is read (chunk events change nothing).
 */
export class OpenTurnFold implements OpenTurnState {
  openTurn: number | null = null;
  openStep: number | null = null;
  readonly pending = new Map<string, { step: unknown; callSeq?: number }>();

  add(e: DshEvent): void {
    const pending = this.pending;
    switch (e.type) {
      case 'turn/start':
        this.openTurn = (rec(e.data)?.turn as number) ?? null;
        this.openStep = null;
        pending.clear();
        break;
      case 'turn/end':
        this.openTurn = null;
        this.openStep = null;
        pending.clear();
        break;
      case 'step/start':
        this.openStep = (rec(e.data)?.step as number) ?? null;
        break;
      case 'step/end':
        pending.clear();
        this.openStep = null;
        break;
      case 'assistant/message': {
        const d = rec(e.data);
        const content = rec(d?.message)?.content;
        if (Array.isArray(content)) {
          for (const block of content) {
            const b = rec(block);
            if (b?.type === 'tool-call' && typeof b.id === 'string') pending.set(b.id, { step: d!.step });
          }
        }
        break;
      }
      case 'tool/call': {
        const d = rec(e.data);
        const entry = typeof d?.callId === 'string' ? pending.get(d.callId) : undefined;
        if (entry) entry.callSeq = e.seq;
        break;
      }
      case 'tool/result': {
        const callId = rec(rec(rec(e.data)?.message)?.source)?.callId;
        if (typeof callId === 'string') pending.delete(callId);
        break;
      }
    }
  }
}

/** The fold over a whole log: which turn and step are open at its end, and the unanswered calls. */
export function openTurnState(events: Iterable<DshEvent>): OpenTurnState {
  const fold = new OpenTurnFold();
  for (const e of events) fold.add(e);
  return fold;
}

/** The closers dsh would append to `events`; empty when the log ends outside a turn. */
export function interruptedTurnClosers(events: DshEventList, state: OpenTurnState = openTurnState(events)): DshEvent[] {
  const last = events.length > 0 ? events.at(events.length - 1) : undefined;
  if (state.openTurn === null || last === undefined) return [];
  const turn = state.openTurn;
  let seq = last.seq + 1;
  const time = last.time;
  const out: DshEvent[] = [];
  for (const [callId, { step, callSeq }] of state.pending) {
    const started = callSeq !== undefined;
    // Key order as dsh writes it (the tool-outcome-unknown fixture is byte-identical to this).
    out.push({
      type: 'tool/result',
      seq,
      time,
      data: {
        turn,
        step,
        message: {
          id: `interrupted-tool-result-${callId}-${seq}`,
          role: 'user',
          source: { kind: 'tool', callId },
          content: [{ type: 'tool-result', toolCallId: callId, isError: true, content: [{ type: 'text', text: started ? OUTCOME_UNKNOWN_TEXT : NOT_STARTED_TEXT }] }],
        },
        error: started ? { name: 'ToolOutcomeUnknownError', code: TOOL_OUTCOME_UNKNOWN } : { name: 'ToolNotStartedError', code: TOOL_NOT_STARTED },
      },
      surfaceOp: 'append',
      ...(started ? { sourceEventSeqs: [callSeq] } : {}),
    });
    seq++;
  }
  if (state.openStep !== null) out.push({ type: 'step/end', seq: seq++, time, data: { turn, step: state.openStep } });
  out.push({ type: 'turn/end', seq: seq++, time, data: { turn, reason: { kind: 'interrupted' } } });
  return out;
}
