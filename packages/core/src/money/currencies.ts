/**
 * Fiat currencies the service accepts, with their ISO 4217 minor units (the number of decimals
 * an amount may carry). The set matches the server's rate table.
 */
export const FIAT_CURRENCIES = {
  AED: { name: 'UAE Dirham', minorUnits: 2 },
  ARS: { name: 'Argentine Peso', minorUnits: 2 },
  AUD: { name: 'Australian Dollar', minorUnits: 2 },
  BGN: { name: 'Bulgarian Lev', minorUnits: 2 },
  BHD: { name: 'Bahraini Dinar', minorUnits: 3 },
  BRL: { name: 'Brazilian Real', minorUnits: 2 },
  CAD: { name: 'Canadian Dollar', minorUnits: 2 },
  CHF: { name: 'Swiss Franc', minorUnits: 2 },
  CLP: { name: 'Chilean Peso', minorUnits: 0 },
  CNY: { name: 'Yuan Renminbi', minorUnits: 2 },
  COP: { name: 'Colombian Peso', minorUnits: 2 },
  CZK: { name: 'Czech Koruna', minorUnits: 2 },
  DKK: { name: 'Danish Krone', minorUnits: 2 },
  EUR: { name: 'Euro', minorUnits: 2 },
  GBP: { name: 'Pound Sterling', minorUnits: 2 },
  HKD: { name: 'Hong Kong Dollar', minorUnits: 2 },
  HUF: { name: 'Forint', minorUnits: 2 },
  IDR: { name: 'Rupiah', minorUnits: 2 },
  ILS: { name: 'New Israeli Sheqel', minorUnits: 2 },
  INR: { name: 'Indian Rupee', minorUnits: 2 },
  ISK: { name: 'Iceland Krona', minorUnits: 0 },
  JOD: { name: 'Jordanian Dinar', minorUnits: 3 },
  JPY: { name: 'Yen', minorUnits: 0 },
  KES: { name: 'Kenyan Shilling', minorUnits: 2 },
  KRW: { name: 'Won', minorUnits: 0 },
  KWD: { name: 'Kuwaiti Dinar', minorUnits: 3 },
  MXN: { name: 'Mexican Peso', minorUnits: 2 },
  MYR: { name: 'Malaysian Ringgit', minorUnits: 2 },
  NGN: { name: 'Naira', minorUnits: 2 },
  NOK: { name: 'Norwegian Krone', minorUnits: 2 },
  NZD: { name: 'New Zealand Dollar', minorUnits: 2 },
  OMR: { name: 'Rial Omani', minorUnits: 3 },
  PHP: { name: 'Philippine Peso', minorUnits: 2 },
  PLN: { name: 'Zloty', minorUnits: 2 },
  RON: { name: 'Romanian Leu', minorUnits: 2 },
  SAR: { name: 'Saudi Riyal', minorUnits: 2 },
  SEK: { name: 'Swedish Krona', minorUnits: 2 },
  SGD: { name: 'Singapore Dollar', minorUnits: 2 },
  THB: { name: 'Baht', minorUnits: 2 },
  TND: { name: 'Tunisian Dinar', minorUnits: 3 },
  TRY: { name: 'Turkish Lira', minorUnits: 2 },
  UGX: { name: 'Uganda Shilling', minorUnits: 0 },
  USD: { name: 'US Dollar', minorUnits: 2 },
  VND: { name: 'Dong', minorUnits: 0 },
  ZAR: { name: 'Rand', minorUnits: 2 },
} as const satisfies Record<string, { name: string; minorUnits: number }>;

/** ISO 4217 code of a supported fiat currency. */
export type FiatCurrency = keyof typeof FIAT_CURRENCIES;

/** The supported ISO 4217 codes, sorted. */
export const FIAT_CURRENCY_CODES = Object.keys(FIAT_CURRENCIES).sort() as FiatCurrency[];

/** True when `code` is a supported ISO 4217 code (uppercase, exact). */
export function isSupportedFiatCurrency(code: unknown): code is FiatCurrency {
  return typeof code === 'string' && Object.hasOwn(FIAT_CURRENCIES, code);
}
