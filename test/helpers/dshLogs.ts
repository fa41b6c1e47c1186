// Small dsh logs for tests, shaped like dsh's own contract fixtures (dsh-format.md §5): `meta`
// (version 0, createdAt 1000) and `oneTurnLog` (seqs 0–5: turn/start, user/message, step/start,
// assistant/message, step/end, turn/end completed).
import type { DshEvent } from '../../src/core/formats/dsh/types';

export function meta(id = 's1', cwd = '/work/p'): Record<string, unknown> {
  return { type: 'session', version: 0, id, createdAt: 1000, cwd, delegationDepth: 0 };
}

export function userMessage(seq: number, text: string, turn = 1): DshEvent {
  void turn;
  return { type: 'user/message', seq, time: 1000 + seq, data: { id: `u${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }, surfaceOp: 'append' };
}

export function assistantMessage(seq: number, turn: number, step: number, content: unknown[], extra: Record<string, unknown> = {}): DshEvent {
  return {
    type: 'assistant/message',
    seq,
    time: 1000 + seq,
    data: { turn, step, message: { id: `a${seq}`, role: 'assistant', content, source: { kind: 'model', provider: 'p', model: 'm' } }, ...extra },
    surfaceOp: 'append',
  };
}

export function ev(type: string, seq: number, data: unknown): DshEvent {
  return { type, seq, time: 1000 + seq, data };
}

/** dsh's oneTurnLog: seqs 0–5, one completed turn. */
export function oneTurnLog(from = 0, turn = 1): DshEvent[] {
  return [
    ev('turn/start', from, { turn }),
    userMessage(from + 1, 'hello'),
    ev('step/start', from + 2, { turn, step: 1 }),
    assistantMessage(from + 3, turn, 1, [{ type: 'text', text: 'hi' }]),
    ev('step/end', from + 4, { turn, step: 1 }),
    ev('turn/end', from + 5, { turn, reason: { kind: 'completed' } }),
  ];
}

/** A raw log text: header line and one line per record, each ending in "\n". */
export function rawLog(records: unknown[], header: unknown = meta()): string {
  return [header, ...records].map((r) => JSON.stringify(r) + '\n').join('');
}
