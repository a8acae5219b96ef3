import { decimalToScaled, type OperatorDayStats, scaledToDecimal } from '@cryptocheckout/core';
import { elementBuilder, svgElement } from './dom.js';
import { formatUsd } from './format.js';

/** Bar charts of the per-day stats as inline SVG, plus the exact totals they summarise. */

export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlotArea {
  width: number;
  height: number;
  /** Space between neighbouring bars. */
  gap: number;
}

/**
 * Bars for `values` side by side in `area`, bottom-aligned and scaled to the largest value, which
 * fills the height. A value above zero keeps at least one unit of height so a quiet day still
 * shows; zero, negative and non-finite values get no height.
 */
export function barGeometry(values: readonly number[], area: PlotArea): Bar[] {
  const clean = values.map((value) => (Number.isFinite(value) && value > 0 ? value : 0));
  const max = Math.max(0, ...clean);
  const slot = clean.length > 0 ? area.width / clean.length : 0;
  const width = Math.max(slot - area.gap, Math.min(slot, 1));
  return clean.map((value, index) => {
    const height = max === 0 || value === 0 ? 0 : Math.max(1, (value / max) * area.height);
    return { x: index * slot + (slot - width) / 2, y: area.height - height, width, height };
  });
}

export interface StatsTotals {
  checkouts: number;
  settled: number;
  /** Exact sum of the days' settled volume in USD, 2 decimals. */
  settledUsd: string;
}

/** Totals over the days: counts added as integers, USD volume added exactly. */
export function statsTotals(days: readonly OperatorDayStats[]): StatsTotals {
  return {
    checkouts: days.reduce((total, day) => total + day.checkouts, 0),
    settled: days.reduce((total, day) => total + day.settled, 0),
    settledUsd: scaledToDecimal(
      days.reduce((cents, day) => cents + decimalToScaled(day.settled_usd, 2), 0n),
      2,
    ),
  };
}

/** One line saying what the totals are, as shown under the charts. */
export function totalsSentence(totals: StatsTotals, dayCount: number): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  return (
    `Last ${plural(dayCount, 'day')}: ${plural(totals.checkouts, 'checkout')} created, ` +
    `${totals.settled} settled for ${formatUsd(totals.settledUsd)}.`
  );
}

export interface DayChartOptions {
  /** Unique id prefix for the chart's title element. */
  id: string;
  /** What the bars count, for the title and the caption: "Checkouts created per day". */
  title: string;
  days: readonly OperatorDayStats[];
  /** The bar height of a day (display only). */
  value: (day: OperatorDayStats) => number;
  /** A day's value in words, for its tooltip and the summary: "3 checkouts", "$12.50". */
  valueText: (day: OperatorDayStats) => string;
  /** Extra class of the figure, for the colour of its bars. */
  className?: string;
}

// The SVG stretches to its box (its CSS sets the height), so it holds no text: the dates sit
// below it as HTML and keep their size on every screen.
const PLOT: PlotArea = { width: 300, height: 100, gap: 2 };

/**
 * An accessible bar chart in a `<figure>`: the SVG has `role="img"` and a `<title>` that states
 * the range and the busiest day, one `<title>` per bar for pointer users; the first and last dates
 * and a caption follow as text.
 */
export function dayChart(doc: Document, options: DayChartOptions): HTMLElement {
  const h = elementBuilder(doc);
  const { days } = options;
  const bars = barGeometry(days.map(options.value), PLOT);
  let busiest: OperatorDayStats | null = null;
  for (const day of days) {
    if (options.value(day) > 0 && (!busiest || options.value(day) > options.value(busiest))) busiest = day;
  }
  const first = days[0]?.date ?? '';
  const last = days[days.length - 1]?.date ?? '';
  const summary =
    `${options.title}, ${days.length > 0 ? `${first} to ${last}` : 'no days'}. ` +
    (busiest ? `Busiest day ${busiest.date} with ${options.valueText(busiest)}.` : 'Nothing yet.');
  const titleId = `${options.id}-title`;
  const svg = svgElement(
    doc,
    'svg',
    {
      class: 'chart',
      viewBox: `0 0 ${PLOT.width} ${PLOT.height}`,
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-labelledby': titleId,
    },
    svgElement(doc, 'title', { id: titleId }, summary),
  );
  bars.forEach((bar, index) => {
    const day = days[index]!;
    svg.appendChild(
      svgElement(
        doc,
        'rect',
        {
          class: 'chart-bar',
          x: round(bar.x),
          y: round(bar.y),
          width: round(bar.width),
          height: round(bar.height),
        },
        svgElement(doc, 'title', {}, `${day.date}: ${options.valueText(day)}`),
      ),
    );
  });
  return h(
    'figure',
    { class: `chart-figure${options.className ? ` ${options.className}` : ''}` },
    svg,
    // The title already names the range for assistive technology.
    h('div', { class: 'chart-range', 'aria-hidden': 'true' }, h('span', {}, first), h('span', {}, last)),
    h('figcaption', {}, options.title),
  );
}

const round = (value: number) => Math.round(value * 100) / 100;
