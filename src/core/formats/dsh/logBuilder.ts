// What happens to each event the corruption rule (recordScanner.ts) accepts, in seq order and
// once: the legacy upgrade (legacy.ts), the folds the loaded log needs (open turn → closers;
// stats), and its place in the event store (eventStore.ts): kept parsed when the viewer's context
// or a fold reads it later, else left in the stored bytes to be parsed again on demand.
import { OpenTurnFold, type OpenTurnState } from './closers';
import { CONTEXT_FOLD_TYPES } from './context';
import { DshEventStore, type RecordPlaceInText } from './eventStore';
import { LegacyUpgrader } from './legacy';
import type { PackedRowShape } from './packedRows';
import type { RecordTexts } from './recordTexts';
import { DshStatsFold, rememberStatsFold } from './stats';
import type { DshDiagnostic, DshEvent } from './types';

/**
 * The event types kept parsed: what dshContextAt reads (a steering/message that is not upgraded
 * to a user/message is refused, and small) and the compaction events a replacement is reported
 * with. The closers and the stats are folded as the log is read instead.
 */
export const RESIDENT_EVENT_TYPES: ReadonlySet<string> = new Set([...CONTEXT_FOLD_TYPES, 'steering/message', 'compaction/summary', 'compaction/prune']);

export interface BuiltEvents {
  events: DshEventStore;
  openTurn: OpenTurnState;
  /** The legacy pass's diagnostics (upgrades, refusals, unknown types). */
  legacyDiagnostics: DshDiagnostic[];
}

export class DshLogBuilder {
  private readonly store: DshEventStore;
  private readonly legacy: LegacyUpgrader | null;
  private readonly turns = new OpenTurnFold();
  private readonly stats = new DshStatsFold();

  /**
   * `sessionId`: the header's id (legacy ids are minted from it; null: no legacy pass).
   * `texts`: the stored bytes records can be read again from (null: every record is kept parsed).
   */
  constructor(sessionId: string | null, texts: RecordTexts | null) {
    this.store = new DshEventStore(texts);
    this.legacy = sessionId === null ? null : new LegacyUpgrader(sessionId, (seq) => this.store.at(seq));
  }

  get length(): number {
    return this.store.length;
  }

  /** An accepted event stored verbatim; `place` is where its text is, when there are stored bytes. */
  event(stored: DshEvent, place?: RecordPlaceInText): void {
    const e = this.legacy ? this.legacy.upgrade(stored) : stored;
    this.turns.add(e);
    this.stats.add(e);
    // An upgraded event differs from its stored text: it can only be kept.
    this.store.pushEvent(e, e !== stored || RESIDENT_EVENT_TYPES.has(e.type), place);
  }

  /** An accepted packed row (validated: `shape`): chunk deltas, which no fold reads. */
  packedRow(row: Record<string, unknown>, shape: PackedRowShape, place?: RecordPlaceInText): void {
    this.stats.time(shape.maxTime);
    this.store.pushPackedRow(row, shape.count, place);
  }

  finish(): BuiltEvents {
    rememberStatsFold(this.store, this.stats);
    return { events: this.store, openTurn: this.turns, legacyDiagnostics: this.legacy?.diagnostics() ?? [] };
  }
}
