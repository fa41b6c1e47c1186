// The navigable structure of a rollout: turns → records. A rollout is one linear log (B: "Codex
// has no tree"), so the rows are its records in file order, grouped under the turn they belong
// to. A turn opens at `task_started`/`turn_started` (newer files) or, where no such event opened
// one, at a real user message (older files write no task events; A.7); the records before the first
// turn (session_meta, the initial context) are rows of their own at the top. Each node's anchor is
// the last record it covers: the context at a node is the replay up to that record.
import type { TreeFilter } from '../../../protocol/messages';
import { isRealUserMessage } from '../../formats/codex/contextual';
import { isObj, type CodexRecord } from '../../formats/codex/types';
import { matchesSearch, tokenizeSearch } from '../../tree/treeView';
import { recordKind, recordPreview } from './codexDisplay';

export interface OutlineNode {
  /** `T<line>` for a turn (the line that opened it), `L<line>` for a record. */
  id: string;
  kind: 'turn' | 'record';
  depth: number;
  /** Index of the parent node, -1 at the top. */
  parent: number;
  /** Record indexes it covers: [first, last]; `last` is its context anchor. */
  first: number;
  last: number;
  /** The record of a record row; -1 for a turn. */
  record: number;
  /** 1-based turn number of a turn row. */
  turn: number | null;
  /** The turn's first real user message (a record index), -1 when it has none. */
  prompt: number;
}

/** Event types shown by the default filter (the rest — token counts, duplicates of items — only under `all`). */
const DEFAULT_EVENTS = new Set(['thread_rolled_back', 'turn_aborted', 'context_compacted', 'entered_review_mode', 'exited_review_mode', 'error']);
/** Response item types that are tool traffic (hidden by `no-tools`). */
const TOOL_ITEMS = new Set(['function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call', 'web_search_call', 'tool_search_call', 'tool_search_output', 'image_generation_call', 'reasoning']);

const TURN_OPENERS = new Set(['task_started', 'turn_started']);

export class CodexOutline {
  readonly nodes: OutlineNode[] = [];
  readonly byId = new Map<string, number>();
  /** Node index of each record's row. */
  readonly rowOfRecord: Int32Array;
  readonly turns: number;

  constructor(readonly records: readonly CodexRecord[]) {
    this.rowOfRecord = new Int32Array(records.length).fill(-1);
    let turn = -1;
    let turnByTask = false;
    let turns = 0;
    const add = (n: OutlineNode): number => {
      const i = this.nodes.length;
      this.nodes.push(n);
      this.byId.set(n.id, i);
      return i;
    };
    const openTurn = (index: number, byTask: boolean): void => {
      turns++;
      turn = add({ id: `T${records[index]!.line}`, kind: 'turn', depth: 0, parent: -1, first: index, last: index, record: -1, turn: turns, prompt: -1 });
      turnByTask = byTask;
    };
    for (let i = 0; i < records.length; i++) {
      const rec = records[i]!;
      const p = isObj(rec.payload) ? rec.payload : {};
      if (rec.type === 'event_msg' && TURN_OPENERS.has(String(p.type))) openTurn(i, true);
      else if (rec.type === 'response_item' && isRealUserMessage(p)) {
        const open = turn !== -1 ? this.nodes[turn]! : null;
        if (!(open && turnByTask && open.prompt === -1)) openTurn(i, false);
        this.nodes[turn]!.prompt = i;
      }
      const row = add({ id: `L${rec.line}`, kind: 'record', depth: turn === -1 ? 0 : 1, parent: turn, first: i, last: i, record: i, turn: null, prompt: -1 });
      this.rowOfRecord[i] = row;
      if (turn !== -1) this.nodes[turn]!.last = i;
    }
    this.turns = turns;
  }

  /** The row the context defaults to: the last record's. */
  get defaultLeaf(): string | null {
    const n = this.records.length;
    return n === 0 ? null : this.nodes[this.rowOfRecord[n - 1]!]!.id;
  }

  node(id: string): OutlineNode | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.nodes[i];
  }

  /** Whether a filter shows a record row. */
  private recordShown(rec: CodexRecord, filter: TreeFilter): boolean {
    const p = isObj(rec.payload) ? rec.payload : {};
    switch (filter) {
      case 'all':
        return true;
      case 'labelled-only':
        return false;
      case 'user-only':
        return rec.type === 'response_item' && isRealUserMessage(p);
      case 'no-tools':
        if (rec.type === 'response_item' && TOOL_ITEMS.has(String(p.type))) return false;
        return this.defaultShown(rec, p);
      case 'default':
        return this.defaultShown(rec, p);
    }
  }

  private defaultShown(rec: CodexRecord, p: Record<string, unknown>): boolean {
    switch (rec.type) {
      case 'turn_context':
      case 'state':
        return false;
      case 'event_msg':
        return DEFAULT_EVENTS.has(String(p.type));
      default:
        return true;
    }
  }

  /** The text a row shows (and a search matches). */
  text(n: OutlineNode, max = 140): string {
    if (n.kind === 'record') return recordPreview(this.records[n.record]!, max);
    return n.prompt === -1 ? '' : recordPreview(this.records[n.prompt]!, max);
  }

  kindOf(n: OutlineNode): string {
    return n.kind === 'turn' ? 'turn' : recordKind(this.records[n.record]!);
  }

  /**
   * The visible rows under a filter and a search (or the search index's `ids`, which then say what
   * the search matched), in order. A turn row shows when it holds a visible row, or, without a
   * search, always (except under `labelled-only`).
   */
  visibleRows(filter: TreeFilter, search: string, ids?: readonly string[]): { rows: number[]; hidden: number } {
    const tokens = ids ? [] : tokenizeSearch(search);
    const matched = ids ? new Set(ids) : null;
    const searching = matched !== null || tokens.length > 0;
    const shown = new Uint8Array(this.nodes.length);
    let hidden = 0;
    for (let i = 0; i < this.nodes.length; i++) {
      const n = this.nodes[i]!;
      let visible: boolean;
      if (n.kind === 'record') {
        visible = this.recordShown(this.records[n.record]!, filter);
        if (visible && matched) visible = matched.has(n.id);
        else if (visible && tokens.length > 0) visible = matchesSearch(`${this.kindOf(n)} ${this.records[n.record]!.type} ${this.text(n, 2000)}`.toLowerCase(), tokens);
        if (!visible) hidden++;
      } else visible = !searching && filter !== 'labelled-only';
      if (visible) for (let k = i; k !== -1 && shown[k] === 0; k = this.nodes[k]!.parent) shown[k] = 1;
    }
    const rows: number[] = [];
    for (let i = 0; i < this.nodes.length; i++) if (shown[i]) rows.push(i);
    return { rows, hidden };
  }
}
