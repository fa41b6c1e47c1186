// Packed chunk rows (dsh-format.md §3 "Logical JSONL"): a run of ≥ 3 consecutive
// `assistant/chunk` deltas stored as one `text-chunks` / `reasoning-chunks` / `tool-call-chunks`
// record. Expanding one restores the exact events: member k has `seq0 + k` and
// `time0 + dt[0] + … + dt[k-1]` (gaps may be negative), and `name` only when the row has one.
// Validation is as strict as dsh's decoder: a malformed row is corruption, never guessed at.
import type { DshEvent } from './types';

export type PackedRowTag = 'text-chunks' | 'reasoning-chunks' | 'tool-call-chunks';

export function isPackedRowTag(type: unknown): type is PackedRowTag {
  return type === 'text-chunks' || type === 'reasoning-chunks' || type === 'tool-call-chunks';
}

const safe = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

function exactKeys(o: Record<string, unknown>, required: readonly string[], optional: readonly string[] = []): boolean {
  let n = 0;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    if (!required.includes(k) && !optional.includes(k)) return false;
    n++;
  }
  return required.every((k) => Object.hasOwn(o, k)) && n <= required.length + optional.length;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What validating a packed row learns without building its events. */
export interface PackedRowShape {
  /** Number of members (events), ≥ 1. */
  count: number;
  /** The largest member time (times are not monotonic: gaps may be negative). */
  maxTime: number;
}

/**
 * Validates a packed row as strictly as dsh's decoder without building its events: its shape, or a
 * sentence saying why the row is malformed. `row.type` must be a packed row tag (see isPackedRowTag).
 */
export function checkPackedRow(row: Record<string, unknown>): PackedRowShape | string {
  const tag = row.type as PackedRowTag;
  if (!exactKeys(row, ['type', 'seq0', 'time0', 'data'])) return `${tag} row: the envelope must have exactly type, seq0, time0, data`;
  const { seq0, time0, data } = row;
  if (!safe(seq0) || seq0 < 0) return `${tag} row: seq0 is not a non-negative safe integer`;
  if (!safe(time0)) return `${tag} row: time0 is not a safe integer`;
  if (!isRecord(data)) return `${tag} row: data is not an object`;
  const toolCall = tag === 'tool-call-chunks';
  const ok = toolCall ? exactKeys(data, ['turn', 'step', 'index', 'id', 'dt', 'args'], ['name']) : exactKeys(data, ['turn', 'step', 'index', 'dt', 'texts']);
  if (!ok) return toolCall ? `${tag} row: data must have exactly turn, step, index, id, name?, dt, args` : `${tag} row: data must have exactly turn, step, index, dt, texts`;
  const { turn, step, index, dt } = data;
  if (!safe(turn) || !safe(step) || !safe(index)) return `${tag} row: turn, step and index must be safe integers`;
  const payload = toolCall ? data.args : data.texts;
  if (!Array.isArray(payload) || payload.length === 0) return `${tag} row: the ${toolCall ? 'args' : 'texts'} array is missing or empty`;
  if (!Array.isArray(dt) || dt.length !== payload.length - 1) return `${tag} row: dt must hold exactly one gap fewer than the ${payload.length} members`;
  if (toolCall && (typeof data.id !== 'string' || (Object.hasOwn(data, 'name') && typeof data.name !== 'string'))) return `${tag} row: id (and name, when present) must be strings`;
  if (!safe(seq0 + payload.length - 1)) return `${tag} row: the member seqs leave the safe integer range`;
  let time = time0;
  let maxTime = time0;
  for (let k = 0; k < payload.length; k++) {
    if (k > 0) {
      const gap = dt[k - 1];
      if (!safe(gap)) return `${tag} row: dt[${k - 1}] is not a safe integer`;
      time += gap;
      if (!safe(time)) return `${tag} row: member ${k}'s time leaves the safe integer range`;
      if (time > maxTime) maxTime = time;
    }
    if (typeof payload[k] !== 'string') return `${tag} row: member ${k} is not a string`;
  }
  return { count: payload.length, maxTime };
}

/**
 * The events a packed row stands for, or a sentence saying why the row is malformed.
 * `row.type` must be a packed row tag (see isPackedRowTag).
 */
export function expandPackedRow(row: Record<string, unknown>): DshEvent[] | string {
  const shape = checkPackedRow(row);
  if (typeof shape === 'string') return shape;
  const tag = row.type as PackedRowTag;
  const seq0 = row.seq0 as number;
  const data = row.data as Record<string, unknown>;
  const { turn, step, index } = data;
  const dt = data.dt as number[];
  const toolCall = tag === 'tool-call-chunks';
  const payload = (toolCall ? data.args : data.texts) as string[];
  const out: DshEvent[] = new Array(payload.length);
  const deltaType = tag === 'text-chunks' ? 'text-delta' : tag === 'reasoning-chunks' ? 'reasoning-delta' : 'tool-call-delta';
  const hasName = toolCall && Object.hasOwn(data, 'name');
  let time = row.time0 as number;
  for (let k = 0; k < payload.length; k++) {
    if (k > 0) time += dt[k - 1]!;
    const text = payload[k]!;
    const chunk = toolCall
      ? hasName
        ? { type: deltaType, index, id: data.id, name: data.name, argumentsDelta: text }
        : { type: deltaType, index, id: data.id, argumentsDelta: text }
      : { type: deltaType, index, text };
    out[k] = { type: 'assistant/chunk', seq: seq0 + k, time, data: { turn, step, chunk } };
  }
  return out;
}
