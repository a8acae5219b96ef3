import type { RateProvider } from './rate-provider.js';

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

/** The embedded default provider over the dated static table. */
export function staticRateProvider(): RateProvider {
  return {
    fiatToUsd: async (currency) => {
      const usdPerUnit = FIAT_USD_PER_UNIT[currency];
      return usdPerUnit ? { usdPerUnit, source: STATIC_RATES_SOURCE } : undefined;
    },
    assetToUsd: async (symbol) => {
      const usdPerUnit = ASSET_USD_PER_UNIT[symbol];
      return usdPerUnit ? { usdPerUnit, source: STATIC_RATES_SOURCE } : undefined;
    },
  };
}
