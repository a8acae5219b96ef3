import type { OperatorRates } from '@cryptocheckout/core';
import type { RateProvider, UsdQuote } from './rate-provider.js';

/**
 * The embedded rate table: USD per unit, a dated snapshot of mid-market reference rates
 * (fiat: ECB euro foreign exchange reference rates cross-computed to USD, with central-bank
 * reference rates for currencies the ECB does not publish; crypto: rounded daily closing prices).
 * Good enough for a sandbox and for local development; production uses a live provider.
 */
export const STATIC_RATES_DATE = '2026-11-01';
export const STATIC_RATES_SOURCE = `static table ${STATIC_RATES_DATE}`;

const FIAT_USD_PER_UNIT: Record<string, string> = {
  AED: '0.2723',
  ARS: '0.00069',
  AUD: '0.6540',
  BGN: '0.5545',
  BHD: '2.6596',
  BRL: '0.1852',
  CAD: '0.7140',
  CHF: '1.2420',
  CLP: '0.00106',
  CNY: '0.1404',
  COP: '0.000256',
  CZK: '0.04470',
  DKK: '0.1453',
  EUR: '1.0845',
  GBP: '1.2710',
  HKD: '0.1286',
  HUF: '0.00272',
  IDR: '0.0000612',
  ILS: '0.2690',
  INR: '0.01132',
  ISK: '0.00725',
  JOD: '1.4104',
  JPY: '0.00658',
  KES: '0.00774',
  KRW: '0.000715',
  KWD: '3.2520',
  MXN: '0.0541',
  MYR: '0.2270',
  NGN: '0.00066',
  NOK: '0.0915',
  NZD: '0.5910',
  OMR: '2.5974',
  PHP: '0.01712',
  PLN: '0.2520',
  RON: '0.2180',
  SAR: '0.2666',
  SEK: '0.0948',
  SGD: '0.7560',
  THB: '0.02920',
  TND: '0.3230',
  TRY: '0.02870',
  UGX: '0.000272',
  USD: '1',
  VND: '0.0000394',
  ZAR: '0.0550',
};

const ASSET_USD_PER_UNIT: Record<string, string> = {
  USDC: '1',
  USDT: '1',
  BTC: '68250.00',
  ETH: '2450.00',
  POL: '0.2200',
  BNB: '590.00',
  TRX: '0.1650',
  SOL: '165.00',
};

const STATIC_AS_OF = `${STATIC_RATES_DATE}T00:00:00.000Z`;

function staticQuote(usdPerUnit: string | undefined): UsdQuote | undefined {
  return usdPerUnit
    ? {
        usdPerUnit,
        source: STATIC_RATES_SOURCE,
        sources: ['static table'],
        asOf: STATIC_AS_OF,
        spreadPercent: '0',
      }
    : undefined;
}

/** The embedded default provider over the dated static table. */
export function staticRateProvider(stablecoinFloorUsd = '0.98'): RateProvider {
  return {
    fiatToUsd: async (currency) => staticQuote(FIAT_USD_PER_UNIT[currency]),
    assetToUsd: async (symbol) => staticQuote(ASSET_USD_PER_UNIT[symbol]),
    overview: (): OperatorRates => ({
      source: 'static',
      static_table_date: STATIC_RATES_DATE,
      stablecoin_floor_usd: stablecoinFloorUsd,
      divergence_limit_percent: '0',
      rates: [
        ...Object.entries(FIAT_USD_PER_UNIT).map(([code, usdPerUnit]) => staticRow(code, 'fiat', usdPerUnit)),
        ...Object.entries(ASSET_USD_PER_UNIT).map(([code, usdPerUnit]) =>
          staticRow(code, 'asset', usdPerUnit),
        ),
      ],
      sources: [],
    }),
    problems: () => [],
  };
}

function staticRow(code: string, kind: 'fiat' | 'asset', usdPerUnit: string): OperatorRates['rates'][number] {
  return {
    code,
    kind,
    usd_per_unit: usdPerUnit,
    spread_percent: '0',
    sources: [{ source: 'static table', usd_per_unit: usdPerUnit, as_of: STATIC_AS_OF, fresh: true }],
    divergence_percent: null,
    status: 'static',
    problem: null,
    last_priced_at: STATIC_AS_OF,
  };
}
