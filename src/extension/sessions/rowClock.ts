// Session rows whose text changes with the clock alone are redrawn, and only those. No `vscode`
// here (unit-tested under plain node); the provider fires onDidChangeTreeData for what it returns.
/**
 * The part of a session row that changes with the clock alone: "live" (modified in the last
 * minute) and the relative time ("just now", "3 min ago"). Rows record what they showed when
 * drawn; a timer redraws only the rows whose text is now different, one `fire(row)` each — never
 * the whole tree, so nothing collapses, scrolls or flickers (issue 14: relative times went stale).
 */
export class RowClock<Row> {
  /** Often enough that a minute label is never more than a quarter of a minute late. */
  static readonly INTERVAL_MS = 15_000;
  private readonly shown = new Map<Row, string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly label: (row: Row, now: number) => string,
    private readonly redraw: (row: Row) => void,
  ) {
    this.timer = setInterval(() => this.tick(Date.now()), RowClock.INTERVAL_MS);
    this.timer.unref?.();
  }

  /** The row was drawn at `now`. */
  drawn(row: Row, now: number): void {
    this.shown.set(row, this.label(row, now));
  }

  /** Redraws the rows whose time text differs at `now` from what they show. */
  tick(now: number): Row[] {
    const stale: Row[] = [];
    for (const [row, shown] of this.shown) {
      if (this.label(row, now) === shown) continue;
      // Redrawn rows are recorded again when drawn; rows gone from the tree are forgotten.
      this.shown.delete(row);
      stale.push(row);
    }
    for (const s of stale) this.redraw(s);
    return stale;
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}
