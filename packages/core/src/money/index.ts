export {
  FIAT_CURRENCIES,
  FIAT_CURRENCY_CODES,
  type FiatCurrency,
  isSupportedFiatCurrency,
} from './currencies.js';
export {
  addDecimals,
  compareDecimals,
  decimalPlaces,
  decimalToScaled,
  divideDecimals,
  multiplyDecimals,
  parseDecimal,
  type Rounding,
  scaledToDecimal,
  subtractDecimalsAtLeastZero,
} from './decimal.js';
export { fiatMinorUnits, formatMinorUnits, normalizeFiatAmount, toMinorUnits } from './fiat.js';
