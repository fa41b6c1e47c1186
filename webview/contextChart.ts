// The context-size chart under the editor's header (issue 13): how full the model's context was
// at each assistant turn along the selected branch, as the provider reported it (input + cache
// read + cache write of that turn's usage), so a compaction shows as the drop it caused; then
// tokens in/out and cost per model along the branch. A click on a point jumps to its message.
//
// Plain SVG, no charting library: one polyline, a few lines and circles, drawn with
// createElementNS (no markup parsing), coloured by the theme's own variables (so light, dark and
// high contrast follow the workbench), in ~150 lines; a library would add tens of KB to a
// webview that must also work offline in an exported page.
import * as l10n from '@vscode/l10n';
import { h } from './dom';
import type { ChartPoint, ModelTotals } from '../src/protocol/chartData';

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

const fmt = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n));

/** The chart, or null when no turn on the branch reported usage. */
export function renderContextChart(points: readonly ChartPoint[], totals: readonly ModelTotals[], onJump: (messageIndex: number) => void): HTMLElement | null {
  if (points.length === 0) return null;
  const W = 600;
  const H = 64;
  const pad = 4;
  const max = Math.max(...points.map((p) => p.tokens));
  const x = (i: number): number => pad + (points.length === 1 ? (W - 2 * pad) / 2 : (i * (W - 2 * pad)) / (points.length - 1));
  const y = (t: number): number => H - pad - (t / max) * (H - 2 * pad);
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', class: 'sl-chart-svg', role: 'img' });
  chart.setAttribute('aria-label', l10n.t('Context size along this branch, in tokens per turn: turns {0}, peak {1}', points.length, fmt(max)));
  chart.append(svg('polyline', { class: 'sl-chart-line', points: points.map((p, i) => `${x(i)},${y(p.tokens)}`).join(' '), fill: 'none', 'vector-effect': 'non-scaling-stroke' }));
  points.forEach((p, i) => {
    if (p.afterCompaction) chart.append(svg('line', { class: 'sl-chart-compaction', x1: x(i) - 0.5, x2: x(i) - 0.5, y1: 0, y2: H, 'vector-effect': 'non-scaling-stroke' }));
  });
  // A dot is one element, without a <title> of its own: the dots take no pointer events (the chart's
  // click finds the turn) and the chart is one image to assistive technology, so a title per dot
  // was never shown or read, yet it tripled the chart's elements (1,340 of a 2.3 MB session's first
  // paint of 3,200, drawn again at each leaf switch).
  points.forEach((p, i) => {
    const dot = svg('circle', { class: `sl-chart-dot${p.messageIndex === null ? ' is-cut' : ''}`, cx: x(i), cy: y(p.tokens), r: 2.5, 'data-entry-id': p.entryId });
    if (p.messageIndex !== null) dot.setAttribute('data-message-index', String(p.messageIndex));
    chart.append(dot);
  });
  // Hundreds of turns make dots overlap: a click anywhere on the chart takes the nearest turn
  // that was sent (a turn the compaction cut has no message to show).
  chart.addEventListener('click', (e) => {
    const box = chart.getBoundingClientRect();
    if (box.width === 0) return;
    const vx = ((e.clientX - box.left) / box.width) * W;
    let best = -1;
    for (let i = 0; i < points.length; i++) {
      if (points[i]!.messageIndex === null) continue;
      if (best === -1 || Math.abs(x(i) - vx) < Math.abs(x(best) - vx)) best = i;
    }
    if (best !== -1) onJump(points[best]!.messageIndex!);
  });
  const legend = h(
    'div',
    { class: 'sl-chart-models' },
    // As a message's usage line: a cost only when one was recorded (Claude Code and Codex logs record none).
    ...totals.map((t) =>
      h('span', { class: 'sl-chart-model' }, h('span', { class: 'sl-stat-label' }, t.model), ` ${t.cost ? l10n.t('in {0} · out {1} · ${2}', fmt(t.input), fmt(t.output), t.cost.toFixed(2)) : l10n.t('in {0} · out {1}', fmt(t.input), fmt(t.output))}`),
    ),
  );
  return h('div', { class: 'sl-chart', 'data-points': String(points.length) }, h('div', { class: 'sl-chart-title sl-muted' }, l10n.t('Context size per turn as the provider reported it, in tokens (peak {0})', fmt(max))), chart, legend);
}
