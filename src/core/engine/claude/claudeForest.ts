// The branch tree of a Claude Code transcript as the engine's row layout reads it (TreeLinks of
// xcsh/treeRows.ts): the chain records by their display parents (formats/claude/tree.ts), then
// the side records (A.3: no place in the tree) as roots of their own, shown by the `all` filter
// only. What each filter shows follows the xcsh filters' intent:
// - default: prompts, tool results, compaction, meta text and attachments, and the assistant
//   lines that say something or call a tool (a thinking-only line only when it is the default
//   leaf); progress lines, system bookkeeping and side records are hidden;
// - no-tools: the same without tool results and tool-only lines;
// - user-only: what a person typed; labelled-only: titled leaves and subagents; all: every line.
// A search reads the bodies again (a sequential pass over the file, once per query).
import { RecordFlag, isObj, type BodyRef, type ClaudeRecord, type ClaudeSession } from '../../formats/claude/index';
import { readJsonlFile } from '../../formats/xcsh/jsonl';
import { matchesSearch } from '../../tree/treeView';
import type { TreeFilter } from '../../../protocol/messages';
import type { TreeLinks } from '../xcsh/treeRows';
import type { BranchRow } from '../xcsh/branchQueries';
import { callsTools, recordKind, recordRole, recordRow, sideRow, type RowDisplay } from './claudeDisplay';

/** Characters of a record's text a search looks through (a tool result of megabytes is searched in its first part). */
const SEARCH_CHARS = 1 << 20;
/** Keys whose strings are not text: image bytes, signatures. */
const NOT_TEXT = new Set(['data', 'signature', 'base64', 'uuid', 'parentUuid', 'logicalParentUuid', 'sessionId', 'requestId', 'id', 'tool_use_id']);

function collectText(v: unknown, out: string[], budget: { left: number }): void {
  if (budget.left <= 0) return;
  if (typeof v === 'string') {
    const s = v.length > budget.left ? v.slice(0, budget.left) : v;
    out.push(s);
    budget.left -= s.length;
  } else if (Array.isArray(v)) for (const x of v) collectText(x, out, budget);
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) if (!NOT_TEXT.has(k)) collectText(x, out, budget);
}

export class ClaudeForest implements TreeLinks {
  readonly n: number;
  readonly nChain: number;
  readonly rootPositions: number[];
  readonly parent: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  #ids: Map<string, number> | undefined;
  #search: { key: string; bits: Uint8Array } | undefined;

  constructor(
    readonly session: ClaudeSession,
    private readonly labels: ReadonlyMap<number, string>,
    private readonly toolNames: ReadonlyMap<string, string>,
  ) {
    const { transcript: t, tree } = session;
    const nChain = (this.nChain = tree.n);
    const n = (this.n = nChain + t.side.length);
    this.parent = new Int32Array(n).fill(-1);
    this.firstChild = new Int32Array(n).fill(-1);
    this.nextSibling = new Int32Array(n).fill(-1);
    for (let i = 0; i < nChain; i++) {
      this.parent[i] = tree.isLive(i) ? Math.max(-1, tree.displayParent[i]!) : -1;
      this.firstChild[i] = tree.firstChild[i]!;
      this.nextSibling[i] = tree.nextSibling[i]!;
    }
    const sideRoots: number[] = [];
    for (let k = 0; k < t.side.length; k++) sideRoots.push(nChain + k);
    this.rootPositions = [...tree.roots, ...sideRoots];
  }

  #chain(pos: number): ClaudeRecord | null {
    return pos < this.nChain ? this.session.transcript.records[pos]! : null;
  }

  idAt(pos: number): string {
    const r = this.#chain(pos);
    return r ? r.uuid : `line:${this.session.transcript.side[pos - this.nChain]!.line}`;
  }

  /** Position of a row id (a chain record's uuid, or `line:<n>` for a side record); -1 when unknown. */
  indexOf(id: string): number {
    if (!this.#ids) {
      const ids = new Map<string, number>();
      this.session.transcript.side.forEach((s, k) => ids.set(`line:${s.line}`, this.nChain + k));
      this.#ids = ids;
    }
    const p = this.session.transcript.byUuid.get(id);
    return p !== undefined ? p : (this.#ids.get(id) ?? -1);
  }

  refOf(id: string): BodyRef | null {
    const p = this.indexOf(id);
    if (p === -1) return null;
    const r = this.#chain(p);
    if (r) return { line: r.line, start: r.start, end: r.end, uuid: r.uuid };
    const s = this.session.transcript.side[p - this.nChain]!;
    return { line: s.line, start: s.start, end: s.end, type: s.type };
  }

  display(pos: number): RowDisplay {
    const r = this.#chain(pos);
    return r ? recordRow(r, this.toolNames, this.labels.get(pos) ?? null) : sideRow(this.session.transcript.side[pos - this.nChain]!);
  }

  /** A record's row, the same in the editor's tree and the Sessions view (with the latter's icon facts). */
  row(pos: number): BranchRow {
    const r = this.#chain(pos);
    return {
      entryId: this.idAt(pos),
      ...this.display(pos),
      timestamp: r?.timestamp ?? null,
      // a branch tip: no prompt or answer below it (hook and bookkeeping lines after it do not count)
      isLeaf: this.session.tree.isBranchTip(pos),
      callsTools: r !== null && callsTools(r),
      role: r && recordRole(r),
    };
  }

  /** A prompt a person typed (a Sessions run is titled by its first one). */
  isUserAt(pos: number): boolean {
    const r = this.#chain(pos);
    return r !== null && recordKind(r) === 'user';
  }

  /** The default leaf's line in the tree as shown (it comes first at each fork). */
  onDefaultPath(): Uint8Array {
    const bits = new Uint8Array(this.n);
    for (let i = this.session.tree.defaultLeaf; i >= 0; i = this.parent[i]!) {
      if (bits[i] === 1) break;
      bits[i] = 1;
    }
    return bits;
  }

  #passes(pos: number, filter: TreeFilter, defaultLeaf: number): boolean {
    if (filter === 'all') return true;
    const r = this.#chain(pos);
    if (!r) return false;
    if (filter === 'labelled-only') return this.labels.has(pos);
    const meta = (r.flags & (RecordFlag.Meta | RecordFlag.CompactSummary)) !== 0;
    switch (r.type) {
      case 'user':
        if (filter === 'user-only') return !meta && r.toolResults === null;
        return filter === 'default' || r.toolResults === null;
      case 'assistant': {
        if (filter === 'user-only') return false;
        const text = r.blocks.includes('t');
        const calls = r.blocks.includes('u');
        const error = (r.flags & RecordFlag.ApiError) !== 0;
        if (pos === defaultLeaf) return true;
        return filter === 'default' ? text || calls || error : text || error;
      }
      case 'attachment':
        return filter !== 'user-only';
      case 'system':
        return filter !== 'user-only' && r.subtype === 'compact_boundary';
      default:
        return false;
    }
  }

  /** The shown bits of a filter (and of a search's matches). */
  shown(filter: TreeFilter, matches: Uint8Array | null): Uint8Array {
    const bits = new Uint8Array(this.n);
    const leaf = this.session.tree.defaultLeaf;
    for (let p = 0; p < this.n; p++) {
      if (p < this.nChain && !this.session.tree.isLive(p)) continue;
      if (this.#passes(p, filter, leaf) && (matches === null || matches[p] === 1)) bits[p] = 1;
    }
    return bits;
  }

  /** Which records match every token (AND, case-insensitive) in their text, kind and label: one pass over the file. */
  async searchBits(tokens: readonly string[]): Promise<Uint8Array> {
    const key = tokens.join(' ');
    if (this.#search?.key === key) return this.#search.bits;
    const t = this.session.transcript;
    const posOf = new Map<number, number>();
    t.records.forEach((r, i) => posOf.set(r.start, i));
    t.side.forEach((s, k) => posOf.set(s.start, this.nChain + k));
    const bits = new Uint8Array(this.n);
    await readJsonlFile(t.path, undefined, {
      onRecord: (value, _line, start) => {
        const p = posOf.get(start);
        if (p === undefined || p >= this.n) return;
        const d = this.display(p);
        const parts: string[] = [d.kind, d.label ?? '', String(value.type ?? ''), String(value.subtype ?? '')];
        collectText(value.message ?? value.content ?? value.data ?? value.attachment ?? value, parts, { left: SEARCH_CHARS });
        if (matchesSearch(parts.join(' ').toLowerCase(), tokens)) bits[p] = 1;
      },
    });
    this.#search = { key, bits };
    return bits;
  }
}
