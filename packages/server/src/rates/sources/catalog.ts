import { bitstampSource } from './bitstamp.js';
import { coinbaseSource } from './coinbase.js';
import { ecbSource } from './ecb.js';
import { exchangeRateApiSource } from './exchange-rate-api.js';
import { krakenSource } from './kraken.js';
import type { RateSource } from './rate-source.js';

/** Every live rate source, fiat first (docs/rates.md "Sources"). */
export const RATE_SOURCES: readonly RateSource[] = [
  ecbSource,
  exchangeRateApiSource,
  krakenSource,
  coinbaseSource,
  bitstampSource,
];

/** The names `--rate-source NAME=url` accepts. */
export const RATE_SOURCE_NAMES = RATE_SOURCES.map((source) => source.name);
