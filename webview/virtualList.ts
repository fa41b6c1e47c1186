// A virtual list for rows of varying height: only rows near the viewport exist in the DOM.
// Heights start as estimates and are replaced by measurements; when a measured row above the
// viewport changes height, the scroll position is corrected so what the user looks at stays put.
// Keyboard: Up/Down/Home/End/PageUp/PageDown move the focused row, Enter activates it.

export interface ListSource {
  count(): number;
  /** Stable key of row i (heights are remembered per key). */
  key(i: number): string;
  estimate(i: number): number;
  /** Every row is this many pixels high (CSS fixes it): rows are never measured. */
  fixedHeight?: number;
  /** Builds row i; may return a placeholder and call `list.refresh()` once its data arrives. */
  render(i: number): HTMLElement;
  /** Enter on a focused row. */
  activate?(i: number, row: HTMLElement): void;
  /** Called after each layout with the rendered range. */
  rendered?(first: number, last: number): void;
  /** The row the keyboard starts from when the list itself (no row) has focus, e.g. the selection. */
  initial?(): number | null;
}

const OVERSCAN_PX = 600;

export class VirtualList {
  private readonly spacer: HTMLDivElement;
  private readonly rows = new Map<number, { key: string; el: HTMLElement }>();
  /** Measured heights by row key: what a reset that keeps heights starts from. */
  private heights = new Map<string, number>();
  /** Per row of the current data set: its measured height, else its estimate. */
  private sizes = new Float64Array(0);
  /** `sizes` must be filled again (a new data set, or the count changed). */
  private sizesStale = true;
  /** offsets[i] is the top of row i; offsets[0..validTo] hold (a measured row i moves validTo up to i). */
  private offsets = new Float64Array(1);
  private validTo = 0;
  private dirty = true;
  /**
   * Right after a reset only the rows in the viewport are built: the rows above and below it
   * (OVERSCAN_PX each way, as many again) are added once the browser is idle, after the new rows
   * have been painted.
   */
  private lean = false;
  private fill = 0;
  private frame = 0;
  private focused = -1;
  private readonly resize: ResizeObserver;

  constructor(
    readonly viewport: HTMLElement,
    private readonly source: ListSource,
  ) {
    viewport.classList.add('vl-viewport');
    this.spacer = document.createElement('div');
    this.spacer.className = 'vl-spacer';
    viewport.append(this.spacer);
    viewport.addEventListener('scroll', () => this.schedule());
    viewport.addEventListener('keydown', (e) => this.onKey(e));
    this.resize = new ResizeObserver((entries) => {
      let changed = false;
      for (const entry of entries) {
        const el = entry.target as HTMLElement;
        const key = el.dataset.vlKey;
        if (key === undefined || !el.isConnected) continue;
        if (this.measured(Number(el.dataset.vlIndex), key, el.offsetHeight)) changed = true;
      }
      if (changed) {
        this.dirty = true;
        this.schedule();
      }
    });
    new ResizeObserver(() => this.schedule()).observe(viewport);
  }

  /**
   * Forget every row (new data set); heights are kept only when `keepHeights`. `reveal`: a row that
   * must be in view, scrolled to (`offset` px from its top) before any row is built, unless it is
   * in view already, so the rows at the old scroll position are not built (and fetched) for nothing.
   */
  reset(keepHeights = false, reveal?: { index: number; offset: number }): void {
    for (const { el } of this.rows.values()) {
      this.resize.unobserve(el);
      el.remove();
    }
    this.rows.clear();
    if (!keepHeights) this.heights = new Map();
    this.focused = -1;
    this.sizesStale = true;
    this.lean = true;
    this.dirty = true;
    if (reveal && !this.isVisible(reveal.index) && reveal.index >= 0 && reveal.index < this.source.count()) this.viewport.scrollTop = this.offsets[reveal.index]! + reveal.offset;
    this.layout();
  }

  /** Re-render rows whose content changed (data arrived), keeping positions. */
  refresh(indices?: Iterable<number>): void {
    const which = indices ? [...indices] : [...this.rows.keys()];
    // A keyboard user on a row that is re-rendered (its data arrived) keeps the focus.
    let refocus = -1;
    for (const i of which) {
      const r = this.rows.get(i);
      if (!r) continue;
      if (r.el.contains(document.activeElement)) refocus = i;
      this.resize.unobserve(r.el);
      r.el.remove();
      this.rows.delete(i);
    }
    this.dirty = true;
    this.layout();
    if (refocus >= 0) this.rowElement(refocus)?.focus({ preventScroll: true });
  }

  /** Whether the keyboard focus is in this list (on the list or one of its rows). */
  hasFocus(): boolean {
    return this.viewport.contains(document.activeElement);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.layout();
    });
  }

  /** Row i (keyed `key`) measured `h` px high: whether that changed its size. */
  private measured(i: number, key: string, h: number): boolean {
    if (!(h > 0) || this.heights.get(key) === h) return false;
    this.heights.set(key, h);
    if (!this.sizesStale && i >= 0 && i < this.sizes.length && this.sizes[i] !== h) {
      this.sizes[i] = h;
      // offsets[i] (the row's own top) still holds; every top below it moves.
      if (i < this.validTo) this.validTo = i;
    }
    this.dirty = true;
    return true;
  }

  /**
   * Row tops from the row sizes. The sizes are filled once per data set (a key lookup and an
   * estimate per row: 25k rows took ~20 ms, and this ran after every batch of measurements, several
   * times per repaint); after that a measurement changes one size and the tops below it only.
   */
  private computeOffsets(): void {
    const n = this.source.count();
    const fixed = this.source.fixedHeight;
    if (this.sizesStale || this.sizes.length !== n) {
      if (this.sizes.length !== n) this.sizes = new Float64Array(n);
      if (fixed) this.sizes.fill(fixed);
      else if (this.heights.size === 0) for (let i = 0; i < n; i++) this.sizes[i] = this.source.estimate(i);
      else for (let i = 0; i < n; i++) this.sizes[i] = this.heights.get(this.source.key(i)) ?? this.source.estimate(i);
      this.sizesStale = false;
      this.validTo = 0;
    }
    if (this.offsets.length !== n + 1) {
      this.offsets = new Float64Array(n + 1);
      this.validTo = 0;
    }
    const sizes = this.sizes;
    const offsets = this.offsets;
    let i = Math.min(this.validTo, n);
    let y = offsets[i]!;
    for (; i < n; i++) {
      offsets[i] = y;
      y += sizes[i]!;
    }
    offsets[n] = y;
    this.validTo = n;
    this.spacer.style.height = `${y}px`;
    this.dirty = false;
  }

  private indexAt(y: number): number {
    const n = this.source.count();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid]! <= y) lo = mid;
      else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  /** The first row at the top of the viewport and how far the viewport is scrolled into it. */
  anchor(): { index: number; offset: number } | null {
    if (this.source.count() === 0) return null;
    if (this.dirty) this.computeOffsets();
    const top = this.viewport.scrollTop;
    const index = this.indexAt(top);
    return { index, offset: top - this.offsets[index]! };
  }

  atEnd(): boolean {
    const v = this.viewport;
    return v.scrollHeight - v.scrollTop - v.clientHeight < 4;
  }

  /** Whether row i is wholly inside the viewport. */
  isVisible(index: number): boolean {
    if (this.dirty) this.computeOffsets();
    if (index < 0 || index >= this.source.count()) return false;
    const v = this.viewport;
    return this.offsets[index]! >= v.scrollTop && this.offsets[index + 1]! <= v.scrollTop + v.clientHeight;
  }

  scrollToIndex(index: number, offset = 0): void {
    if (this.dirty) this.computeOffsets();
    const n = this.source.count();
    if (n === 0) return;
    const i = Math.max(0, Math.min(n - 1, index));
    this.viewport.scrollTop = this.offsets[i]! + offset;
    this.layout();
    // Estimates above the target became measurements: land on the row once more.
    this.viewport.scrollTop = this.offsets[i]! + offset;
    this.layout();
  }

  scrollToEnd(): void {
    if (this.dirty) this.computeOffsets();
    this.viewport.scrollTop = this.offsets[this.source.count()]!;
    this.layout();
    this.viewport.scrollTop = this.viewport.scrollHeight;
  }

  /** Places rows for the current scroll position; measures new rows and keeps the anchor still. */
  layout(): void {
    const n = this.source.count();
    const overscan = this.lean ? 0 : OVERSCAN_PX;
    if (this.lean && !this.fill) {
      this.fill = requestIdleCallback(
        () => {
          this.fill = 0;
          this.lean = false;
          this.layout();
        },
        { timeout: 250 },
      );
    }
    for (let pass = 0; pass < 3; pass++) {
      if (this.dirty) this.computeOffsets();
      const before = n > 0 ? this.anchor() : null;
      const top = this.viewport.scrollTop;
      const bottom = top + this.viewport.clientHeight;
      const first = n === 0 ? 0 : this.indexAt(Math.max(0, top - overscan));
      let last = first - 1;
      while (last + 1 < n && this.offsets[last + 1]! < bottom + overscan) last++;
      for (const [i, r] of this.rows) {
        if (i < first || i > last || r.key !== this.source.key(i)) {
          this.resize.unobserve(r.el);
          r.el.remove();
          this.rows.delete(i);
        }
      }
      let measuredChange = false;
      const added: { key: string; el: HTMLElement }[] = [];
      for (let i = first; i <= last; i++) {
        if (this.rows.has(i)) continue;
        const key = this.source.key(i);
        const el = this.source.render(i);
        el.dataset.vlKey = key;
        el.dataset.vlIndex = String(i);
        el.classList.add('vl-row');
        el.tabIndex = -1;
        el.style.top = `${this.offsets[i]}px`;
        this.spacer.append(el);
        const r = { key, el };
        this.rows.set(i, r);
        if (!this.source.fixedHeight) this.resize.observe(el);
        added.push(r);
      }
      // Measured after all new rows are in: one layout of the document, not one per row (reading
      // offsetHeight right after each append made a repaint of 100 rows lay the page out 100 times).
      if (!this.source.fixedHeight) {
        for (const { key, el } of added) {
          if (this.measured(Number(el.dataset.vlIndex), key, el.offsetHeight)) measuredChange = true;
        }
      }
      if (measuredChange) {
        this.computeOffsets();
        if (before) this.viewport.scrollTop = this.offsets[before.index]! + before.offset;
      }
      for (const [i, r] of this.rows) r.el.style.top = `${this.offsets[i]}px`;
      if (!measuredChange) {
        this.source.rendered?.(first, last);
        break;
      }
    }
  }

  rowElement(i: number): HTMLElement | undefined {
    return this.rows.get(i)?.el;
  }

  focusIndex(i: number): void {
    const n = this.source.count();
    if (n === 0) return;
    const idx = Math.max(0, Math.min(n - 1, i));
    this.focused = idx;
    if (this.dirty) this.computeOffsets();
    const top = this.offsets[idx]!;
    const bottom = this.offsets[idx + 1]!;
    const v = this.viewport;
    if (top < v.scrollTop) v.scrollTop = top;
    else if (bottom > v.scrollTop + v.clientHeight) v.scrollTop = Math.min(top, bottom - v.clientHeight);
    this.layout();
    this.rowElement(idx)?.focus({ preventScroll: true });
  }

  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    // Keys inside text fields, buttons and summaries keep their own meaning.
    if (target.closest('input, textarea, select, button, summary, a')) return;
    const row = target.closest<HTMLElement>('.vl-row');
    if (!row && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      // Focus is on the list itself (just tabbed in): the first arrow lands on the selected row,
      // else the first visible one, instead of skipping past it.
      const start = this.source.initial?.() ?? (this.focused >= 0 ? this.focused : (this.anchor()?.index ?? 0));
      e.preventDefault();
      this.focusIndex(start);
      return;
    }
    const current = row ? Number(row.dataset.vlIndex) : this.focused >= 0 ? this.focused : (this.anchor()?.index ?? 0);
    const page = Math.max(1, Math.floor(this.viewport.clientHeight / 80));
    let next: number | null = null;
    switch (e.key) {
      case 'ArrowDown':
        next = current + 1;
        break;
      case 'ArrowUp':
        next = current - 1;
        break;
      case 'PageDown':
        next = current + page;
        break;
      case 'PageUp':
        next = current - page;
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = this.source.count() - 1;
        break;
      case 'Enter':
      case ' ':
        if (row && this.source.activate) {
          e.preventDefault();
          this.source.activate(Number(row.dataset.vlIndex), row);
        }
        return;
      default:
        return;
    }
    e.preventDefault();
    this.focusIndex(next);
  }
}
