// @vitest-environment happy-dom
import type { OperatorDayStats } from '@cryptocheckout/core';
import { describe, expect, it } from 'vitest';
import { barGeometry, dayChart, statsTotals, totalsSentence } from './chart.js';

const day = (date: string, checkouts: number, settled: number, settled_usd: string): OperatorDayStats => ({
  date,
  checkouts,
  settled,
  settled_usd,
});

describe('barGeometry', () => {
  it('scales bars to the largest value and stands them on the bottom edge', () => {
    const bars = barGeometry([0, 5, 10], { width: 300, height: 100, gap: 2 });
    expect(bars).toEqual([
      { x: 1, y: 100, width: 98, height: 0 },
      { x: 101, y: 50, width: 98, height: 50 },
      { x: 201, y: 0, width: 98, height: 100 },
    ]);
  });

  it('keeps a small non-zero day visible and ignores values that are no amounts', () => {
    const bars = barGeometry([1, 100_000, Number.NaN, -4], { width: 40, height: 80, gap: 0 });
    expect(bars[0]!.height).toBe(1);
    expect(bars[0]!.y).toBe(79);
    expect(bars[2]!.height).toBe(0);
    expect(bars[3]!.height).toBe(0);
    expect(bars.map((bar) => bar.x)).toEqual([0, 10, 20, 30]);
  });

  it('draws no height when every value is zero, and nothing for no values', () => {
    expect(barGeometry([0, 0], { width: 10, height: 10, gap: 1 }).every((bar) => bar.height === 0)).toBe(
      true,
    );
    expect(barGeometry([], { width: 10, height: 10, gap: 1 })).toEqual([]);
  });
});

describe('statsTotals', () => {
  it('adds counts and sums the settled USD volume exactly', () => {
    const days = [
      day('2025-01-01', 3, 1, '0.10'),
      day('2025-01-02', 0, 0, '0.00'),
      day('2025-01-03', 4, 2, '0.20'),
    ];
    const totals = statsTotals(days);
    expect(totals).toEqual({ checkouts: 7, settled: 3, settledUsd: '0.30' });
    expect(totalsSentence(totals, days.length)).toBe(
      'Last 3 days: 7 checkouts created, 3 settled for $0.30.',
    );
    expect(totalsSentence(statsTotals([day('2025-01-01', 1, 0, '0')]), 1)).toBe(
      'Last 1 day: 1 checkout created, 0 settled for $0.00.',
    );
  });
});

describe('dayChart', () => {
  it('is an image named by a summary, with one titled bar per day', () => {
    const days = [
      day('2025-01-01', 2, 0, '0'),
      day('2025-01-02', 7, 1, '12.50'),
      day('2025-01-03', 0, 0, '0'),
    ];
    const figure = dayChart(document, {
      id: 'test-chart',
      title: 'Checkouts created per day',
      days,
      value: (entry) => entry.checkouts,
      valueText: (entry) => `${entry.checkouts} checkouts`,
    });
    document.body.appendChild(figure);
    const svg = figure.querySelector('svg')!;
    expect(svg.getAttribute('role')).toBe('img');
    const title = document.getElementById(svg.getAttribute('aria-labelledby')!);
    expect(title?.textContent).toBe(
      'Checkouts created per day, 2025-01-01 to 2025-01-03. Busiest day 2025-01-02 with 7 checkouts.',
    );
    const bars = [...svg.querySelectorAll('rect.chart-bar')];
    expect(bars.map((bar) => bar.querySelector('title')?.textContent)).toEqual([
      '2025-01-01: 2 checkouts',
      '2025-01-02: 7 checkouts',
      '2025-01-03: 0 checkouts',
    ]);
    expect(bars.map((bar) => Number(bar.getAttribute('height')))).toEqual([(2 / 7) * 100, 100, 0].map(round));
    expect(svg.querySelector('text')).toBeNull();
    expect([...figure.querySelectorAll('.chart-range span')].map((span) => span.textContent)).toEqual([
      '2025-01-01',
      '2025-01-03',
    ]);
    expect(figure.querySelector('figcaption')?.textContent).toBe('Checkouts created per day');
  });

  it('says so when there is nothing to show', () => {
    const figure = dayChart(document, {
      id: 'empty-chart',
      title: 'Settled volume per day (USD)',
      days: [day('2025-01-01', 0, 0, '0')],
      value: (entry) => Number(entry.settled_usd),
      valueText: (entry) => entry.settled_usd,
    });
    expect(figure.querySelector('svg > title')?.textContent).toBe(
      'Settled volume per day (USD), 2025-01-01 to 2025-01-01. Nothing yet.',
    );
  });
});

const round = (value: number) => Math.round(value * 100) / 100;
