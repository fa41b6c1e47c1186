// The navigable structure of a dsh log (issue 10): turns → steps → events, built once per load
// from the logical events (closers included, last and marked synthetic). A run of streamed
// `assistant/chunk` events under one parent becomes one "streamed N chunks" row; the `all` filter
// lists the chunks themselves beneath it. Each node's anchor is the last seq it covers: "what
// the model saw" at a node is the fold over the events up to that seq (dsh-format.md §4).
import type { TreeFilter } from '../../../protocol/messages';
import type { DshEvent } from '../../formats/dsh/types';
import { matchesSearch, tokenizeSearch } from '../../tree/treeView';
import { eventKind, eventPreview } from './dshDisplay';

export type OutlineKind = 'turn' | 'step' | 'chunks' | 'event';

export interface OutlineNode {
  id: string;
  kind: OutlineKind;
  depth: number;
  /** Index of the parent node, -1 at the top. */
  parent: number;
  /** The seq this node starts at, and the last seq it covers (its context anchor). */
  first: number;
  last: number;
  /** The event of an `event` node (its seq); -1 for structure rows. */
  seq: number;
  turn: number | null;
  step: number | null;
  /** Children count (rows below it). */
  children: number;
  /** Closers (synthetic, in memory only) and the structure rows they alone make up. */
  synthetic: boolean;
}

/** Events shown by the default filter; the rest (request headers, hooks, inbox splices…) only under `all`. */
const DEFAULT_TYPES = new Set(['user/message', 'assistant/message', 'tool/call', 'tool/result', 'turn/end', 'session/title', 'compaction/start', 'compaction/summary', 'compaction/prune', 'compaction/end', 'session/end-seed']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The events a viewer walks: the stored ones, then the closers. `typeAt` answers without
 * rebuilding an event (streamed chunks stay packed in the reader's store until one is shown).
 */
export interface OutlineEvents {
  readonly length: number;
  at(seq: number): DshEvent;
  typeAt(seq: number): string;
}

export class DshOutline {
  readonly nodes: OutlineNode[] = [];
  /** Node index of each event's row (its own row, or its chunk group's for chunks). */
  readonly rowOfSeq: Int32Array;
  readonly byId = new Map<string, number>();

  constructor(
    readonly events: OutlineEvents,
    /** Events from this seq on are synthetic closers. */
    readonly syntheticFrom: number,
  ) {
    this.rowOfSeq = new Int32Array(events.length).fill(-1);
    let turn = -1;
    let step = -1;
    let group = -1;
    const add = (n: Omit<OutlineNode, 'children'>): number => {
      const i = this.nodes.length;
      this.nodes.push({ ...n, children: 0 });
      if (n.parent !== -1) this.nodes[n.parent]!.children++;
      this.byId.set(n.id, i);
      return i;
    };
    const cover = (i: number, seq: number): void => {
      for (let k = i; k !== -1; k = this.nodes[k]!.parent) if (this.nodes[k]!.last < seq) this.nodes[k]!.last = seq;
    };
    for (let seq = 0; seq < events.length; seq++) {
      const type = events.typeAt(seq);
      const synthetic = seq >= syntheticFrom;
      if (type === 'assistant/chunk') {
        const parent = step !== -1 ? step : turn;
        const depth = parent === -1 ? 0 : this.nodes[parent]!.depth + 1;
        if (group === -1) group = add({ id: `c${seq}`, kind: 'chunks', depth, parent, first: seq, last: seq, seq: -1, turn: null, step: null, synthetic });
        const row = add({ id: `e${seq}`, kind: 'event', depth: depth + 1, parent: group, first: seq, last: seq, seq, turn: null, step: null, synthetic });
        this.rowOfSeq[seq] = row;
        cover(row, seq);
        continue;
      }
      const e = events.at(seq);
      const d = isObj(e.data) ? e.data : {};
      if (e.type === 'turn/start') {
        step = -1;
        group = -1;
        const t = typeof d.turn === 'number' ? d.turn : null;
        turn = add({ id: `t${seq}`, kind: 'turn', depth: 0, parent: -1, first: seq, last: seq, seq: -1, turn: t, step: null, synthetic });
        this.rowOfSeq[seq] = turn;
        continue;
      }
      if (e.type === 'step/start') {
        group = -1;
        const s = typeof d.step === 'number' ? d.step : null;
        const parent = turn;
        step = add({ id: `s${seq}`, kind: 'step', depth: parent === -1 ? 0 : 1, parent, first: seq, last: seq, seq: -1, turn: parent === -1 ? null : this.nodes[parent]!.turn, step: s, synthetic });
        cover(step, seq);
        this.rowOfSeq[seq] = step;
        continue;
      }
      const parent = step !== -1 ? step : turn;
      const depth = parent === -1 ? 0 : this.nodes[parent]!.depth + 1;
      group = -1;
      const row = add({ id: `e${seq}`, kind: 'event', depth, parent, first: seq, last: seq, seq, turn: null, step: null, synthetic });
      this.rowOfSeq[seq] = row;
      cover(row, seq);
      if (e.type === 'step/end') step = -1;
      if (e.type === 'turn/end') {
        turn = -1;
        step = -1;
      }
    }
  }

  /** The node a context defaults to: the last event's row. */
  get defaultLeaf(): string | null {
    const n = this.events.length;
    return n === 0 ? null : this.nodes[this.rowOfSeq[n - 1]!]!.id;
  }

  node(id: string): OutlineNode | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.nodes[i];
  }

  /** The node of the event at `seq` (its own row). */
  nodeOfSeq(seq: number): OutlineNode | undefined {
    const i = this.rowOfSeq[seq];
    return i === undefined || i < 0 ? undefined : this.nodes[i];
  }

  /** Whether a filter shows an event row (structure rows are decided by what they hold). */
  private eventShown(n: OutlineNode, filter: TreeFilter): boolean {
    const e = this.events.at(n.seq);
    switch (filter) {
      case 'all':
        return true;
      case 'labelled-only':
        return false;
      case 'user-only':
        return eventKind(e) === 'user';
      case 'no-tools':
        if (e.type === 'tool/call' || e.type === 'tool/result') return false;
        if (e.type === 'assistant/message' && !hasText(e)) return false;
        return DEFAULT_TYPES.has(e.type);
      case 'default':
        return DEFAULT_TYPES.has(e.type);
    }
  }

  /** The text a row shows (and a search matches). */
  text(n: OutlineNode, max = 140): string {
    switch (n.kind) {
      case 'event':
        return eventPreview(this.events.at(n.seq), max);
      case 'chunks':
        return '';
      case 'turn':
      case 'step':
        return this.firstPromptUnder(n, max);
    }
  }

  private firstPromptUnder(n: OutlineNode, max: number): string {
    for (let seq = n.first; seq <= n.last && seq < this.events.length; seq++) {
      const type = this.events.typeAt(seq);
      if (type !== 'user/message' && type !== 'assistant/message') continue;
      const e = this.events.at(seq);
      if (n.kind === 'turn' ? eventKind(e) === 'user' : e.type === 'assistant/message') return eventPreview(e, max);
    }
    return '';
  }

  /**
   * The visible rows under a filter and search, in order. A structure row (turn, step, chunk
   * group) shows when it holds a visible row (or, without a search, always — except chunk groups
   * under `user-only`/`labelled-only`, and steps under `user-only`).
   */
  visibleRows(filter: TreeFilter, search: string): { rows: number[]; hidden: number } {
    const tokens = tokenizeSearch(search);
    const shown = new Uint8Array(this.nodes.length);
    let hidden = 0;
    const show = (i: number): void => {
      for (let k = i; k !== -1 && shown[k] === 0; k = this.nodes[k]!.parent) shown[k] = 1;
    };
    for (let i = 0; i < this.nodes.length; i++) {
      const n = this.nodes[i]!;
      let visible: boolean;
      if (n.kind === 'event') {
        // a chunk's own row only under `all`; its group stands for it otherwise
        visible = this.eventShown(n, filter) && (this.nodes[n.parent]?.kind !== 'chunks' || filter === 'all');
        if (!visible) hidden++;
      } else if (n.kind === 'chunks') visible = filter === 'all' || filter === 'default' || filter === 'no-tools';
      else visible = tokens.length === 0 && !(n.kind === 'step' && filter === 'user-only') && filter !== 'labelled-only';
      if (visible && tokens.length > 0) {
        const hay = `${n.kind} ${n.kind === 'event' ? this.events.typeAt(n.seq) : ''} ${this.text(n, 2000)}`.toLowerCase();
        visible = matchesSearch(hay, tokens);
        if (!visible && n.kind === 'event') hidden++;
      }
      if (visible) show(i);
    }
    const rows: number[] = [];
    for (let i = 0; i < this.nodes.length; i++) if (shown[i]) rows.push(i);
    return { rows, hidden };
  }
}

function hasText(e: DshEvent): boolean {
  const m = isObj(e.data) && isObj(e.data.message) ? e.data.message : {};
  return Array.isArray(m.content) && m.content.some((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '');
}
