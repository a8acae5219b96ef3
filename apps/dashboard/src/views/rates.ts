import type { OperatorRate, OperatorRateSource, OperatorRates } from '@cryptocheckout/core';
import type { ElementBuilder } from '../dom.js';
import { keepFocusAndScroll, replaceChildren } from '../dom.js';
import { formatAge, formatDecimal, formatInterval, formatLocalDateTime } from '../format.js';
import { startAutoRefresh } from '../refresh.js';
import type { View, ViewContext } from './context.js';
import { autoRefreshToggle, cell, dataTable, messageRow, mono } from './parts.js';

const RATE_COLUMNS = ['Code', 'USD per unit', 'Sources', 'Divergence', 'Status'] as const;
const SOURCE_COLUMNS = [
  'Source',
  'Prices',
  'Origin',
  'Refresh',
  'Last success',
  'Last error',
  'State',
] as const;

/** Status words of a currency or asset. */
export const RATE_STATUS_LABELS: Readonly<Record<OperatorRate['status'], string>> = {
  ok: 'OK',
  diverging: 'Diverging',
  depegged: 'Depegged',
  stale: 'Stale',
  static: 'Static table',
};

/** Row marks: refused prices in red, a price the sources disagree on in amber. */
const ROW_CLASSES: Readonly<Partial<Record<OperatorRate['status'], string>>> = {
  stale: 'row--alert',
  depegged: 'row--alert',
  diverging: 'row--warn',
};

/**
 * Where prices come from and how they stand (`GET /api/operator/rates`): the live market sources or
 * the static table, each fiat currency and crypto asset with its sources' values and ages, and each
 * source's health. Refreshed like the transactions list while the tab is visible.
 */
export function ratesView(ctx: ViewContext): View {
  const { h, doc, win, api } = ctx;
  const views = new AbortController();
  let request: AbortController | null = null;
  let loadFailed = false;

  const heading = h('h1', { tabindex: -1 }, 'Rates');
  const origin = h('p', { id: 'rates-origin', class: 'hint' }, 'Loading…');
  const limits = h('p', { id: 'rates-limits', class: 'hint', hidden: true });

  const updated = h('p', { class: 'hint updated' });
  const toolbar = h('div', { class: 'toolbar' }, autoRefreshToggle(ctx), updated);

  const fiat = dataTable(h, 'rates-fiat-table', 'Fiat currencies', RATE_COLUMNS);
  const assets = dataTable(h, 'rates-asset-table', 'Crypto assets', RATE_COLUMNS);
  const sources = dataTable(h, 'rate-sources-table', 'Rate sources', SOURCE_COLUMNS);
  for (const table of [fiat, assets]) table.body.appendChild(messageRow(h, RATE_COLUMNS.length, 'Loading…'));
  sources.body.appendChild(messageRow(h, SOURCE_COLUMNS.length, 'Loading…'));

  const element = h(
    'section',
    { class: 'view' },
    heading,
    origin,
    limits,
    toolbar,
    h('section', { class: 'panel panel--rates' }, fiat.element),
    h('section', { class: 'panel panel--rates' }, assets.element),
    h('section', { class: 'panel panel--rate-sources' }, sources.element),
  );

  async function load(): Promise<void> {
    request?.abort();
    const current = new AbortController();
    request = current;
    try {
      const rates = await api.getRates(current.signal);
      if (current.signal.aborted || views.signal.aborted) return;
      keepFocusAndScroll(doc, win, () => render(rates, new Date()));
      updated.textContent = `Updated ${formatLocalDateTime(new Date().toISOString()).slice(11)}`;
      if (loadFailed) ctx.clearAlert();
      loadFailed = false;
    } catch (error) {
      if (current.signal.aborted || views.signal.aborted) return;
      loadFailed = true;
      ctx.fail(error);
    } finally {
      if (request === current) request = null;
    }
  }

  function render(rates: OperatorRates, now: Date): void {
    showOrigin(rates);
    fillRates(
      fiat.body,
      rates.rates.filter((rate) => rate.kind === 'fiat'),
      now,
      'No fiat currency is priced.',
    );
    fillRates(
      assets.body,
      rates.rates.filter((rate) => rate.kind === 'asset'),
      now,
      'No crypto asset is priced.',
    );
    if (rates.sources.length === 0) {
      replaceChildren(
        sources.body,
        messageRow(
          h,
          SOURCE_COLUMNS.length,
          rates.source === 'static'
            ? 'No market source is read: prices come from the static table.'
            : 'No rate source is configured.',
        ),
      );
    } else {
      replaceChildren(sources.body, ...rates.sources.map((source) => sourceRow(h, source, now)));
    }
  }

  function showOrigin(rates: OperatorRates): void {
    if (rates.source === 'live') {
      origin.className = 'intro';
      origin.textContent =
        'Prices come from live market sources. A new checkout locks the median of the fresh sources, spread ' +
        'included, and keeps that rate for its whole life.';
      limits.textContent =
        `Stablecoins are refused under ${rates.stablecoin_floor_usd} USD. ` +
        `Sources more than ${rates.divergence_limit_percent}% from the median are reported as diverging.`;
      limits.hidden = false;
      return;
    }
    const table = `Static table ${rates.static_table_date ?? '(undated)'}`;
    if (ctx.overview.mode === 'live') {
      // A live server charging real buyers from a fixed table is worth a loud line.
      origin.className = 'warning';
      origin.textContent = `${table}: this live server prices every checkout from fixed rates, not the market.`;
    } else {
      origin.className = 'intro';
      origin.textContent = `${table}: sandbox checkouts are priced from fixed rates, not the market.`;
    }
    limits.hidden = true;
  }

  function fillRates(
    body: HTMLTableSectionElement,
    rows: readonly OperatorRate[],
    now: Date,
    empty: string,
  ): void {
    if (rows.length === 0) replaceChildren(body, messageRow(h, RATE_COLUMNS.length, empty));
    else replaceChildren(body, ...rows.map((rate) => rateRow(h, rate, now)));
  }

  const stopRefresh = startAutoRefresh({
    doc,
    win,
    intervalMs: ctx.timing.refreshMs,
    wanted: () => ctx.preferences.autoRefresh && request === null,
    refresh: load,
  });

  void load();

  return {
    element,
    heading,
    destroy() {
      views.abort();
      request?.abort();
      stopRefresh();
    },
  };
}

function rateRow(h: ElementBuilder, rate: OperatorRate, now: Date): HTMLTableRowElement {
  const spread = Number(rate.spread_percent) > 0 ? `incl. ${rate.spread_percent}% spread` : null;
  return h(
    'tr',
    { 'data-rate': rate.code, class: ROW_CLASSES[rate.status] },
    cell(h, h('strong', {}, rate.code)),
    cell(
      h,
      rate.usd_per_unit === null
        ? h('span', { class: 'refused' }, 'Refused')
        : h(
            'span',
            {},
            formatDecimal(rate.usd_per_unit),
            spread ? ' ' : null,
            spread ? h('span', { class: 'cell-note' }, spread) : null,
          ),
      'num',
    ),
    cell(h, sourceValues(h, rate, now)),
    cell(h, rate.divergence_percent === null ? '—' : `${rate.divergence_percent}%`, 'num'),
    cell(
      h,
      h(
        'span',
        {},
        h('span', { class: `badge badge--rate-${rate.status}` }, RATE_STATUS_LABELS[rate.status]),
        rate.problem ? ' ' : null,
        rate.problem ? h('span', { class: `cell-note problem problem--${rate.status}` }, rate.problem) : null,
      ),
      'wrap',
    ),
  );
}

/** Each source's value for one code with its age; a value too old to be used is marked stale. */
function sourceValues(h: ElementBuilder, rate: OperatorRate, now: Date): HTMLElement | string {
  if (rate.sources.length === 0) return 'No source has answered.';
  return h(
    'ul',
    { class: 'rate-values' },
    ...rate.sources.map((value) =>
      h(
        'li',
        { class: value.fresh ? undefined : 'is-stale' },
        `${value.source}: ${formatDecimal(value.usd_per_unit)} `,
        h(
          'time',
          { datetime: value.as_of, title: `${value.as_of} (UTC)`, class: 'age' },
          formatAge(value.as_of, now),
        ),
        value.fresh ? null : ' ',
        value.fresh ? null : h('span', { class: 'badge badge--stale' }, 'Stale'),
      ),
    ),
  );
}

function sourceRow(h: ElementBuilder, source: OperatorRateSource, now: Date): HTMLTableRowElement {
  const state = source.stale
    ? h('span', { class: 'badge badge--stale' }, 'Stale')
    : source.last_error
      ? h('span', { class: 'badge badge--rate-diverging' }, 'Failing')
      : h('span', { class: 'badge badge--rate-ok' }, 'Fresh');
  return h(
    'tr',
    {
      'data-source': source.name,
      class: source.stale ? 'row--alert' : source.last_error ? 'row--warn' : undefined,
    },
    cell(
      h,
      h(
        'span',
        {},
        h('strong', {}, source.label),
        source.label === source.name ? null : ' ',
        source.label === source.name ? null : h('span', { class: 'cell-note mono' }, source.name),
      ),
    ),
    cell(h, source.kind === 'fiat' ? 'Fiat currencies' : 'Crypto assets'),
    cell(h, mono(h, source.origin), 'wrap'),
    cell(h, `every ${formatInterval(source.refresh_interval_seconds)}`),
    cell(
      h,
      source.last_success_at
        ? h(
            'time',
            { datetime: source.last_success_at, title: `${source.last_success_at} (UTC)` },
            formatAge(source.last_success_at, now),
          )
        : 'Never',
    ),
    cell(h, source.last_error ?? '—', 'wrap'),
    cell(h, state),
  );
}
