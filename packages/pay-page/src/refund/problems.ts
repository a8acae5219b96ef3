import type { AddressProblemCode } from '@cryptocheckout/core';
import { formatText } from '../format.js';
import type { RefundMessages } from './i18n.js';

/** The form fields a problem can point at. */
export type RefundClaimField = 'address' | 'address_again' | 'confirmed';

/**
 * Why the claim form was shown again: an AddressProblemCode of `validateWalletAddress`, or
 * `mismatch` (the two entries differ), `not_confirmed` (the box was not ticked),
 * `already_confirmed` (an address was confirmed before), or a well-formed address the server refuses
 * because the refund would be lost there: `zero_address`, `token_contract`, `token_account` (a Solana
 * token account), `extended_key` (a Bitcoin xpub or descriptor, not one address), `service_address`
 * (a deposit factory or deposit address of the service), `shop_wallet`. `message` is the English text shown for
 * a code this page does not know.
 */
export interface RefundClaimProblem {
  field: RefundClaimField;
  code: string;
  message?: string;
}

type ProblemKey = {
  [K in keyof RefundMessages]: K extends `problem${string}` ? K : never;
}[keyof RefundMessages];

// Keyed by AddressProblemCode: a code added to the core fails to compile here until it has a text.
const ADDRESS_PROBLEM_KEYS: Readonly<Record<AddressProblemCode, ProblemKey>> = {
  empty: 'problemEmpty',
  whitespace: 'problemWhitespace',
  unknown_network: 'problemUnknownNetwork',
  wrong_network: 'problemWrongNetwork',
  testnet: 'problemTestnet',
  bad_format: 'problemBadFormat',
  bad_length: 'problemBadLength',
  bad_character: 'problemBadCharacter',
  checksum_mismatch: 'problemChecksum',
  private_key: 'problemPrivateKey',
};

const PROBLEM_KEYS: Readonly<Record<string, ProblemKey>> = {
  ...ADDRESS_PROBLEM_KEYS,
  mismatch: 'problemMismatch',
  not_confirmed: 'problemNotConfirmed',
  already_confirmed: 'problemAlreadyConfirmed',
  zero_address: 'problemZeroAddress',
  token_contract: 'problemTokenContract',
  token_account: 'problemTokenAccount',
  extended_key: 'problemExtendedKey',
  service_address: 'problemServiceAddress',
  shop_wallet: 'problemShopWallet',
};

/**
 * The buyer's message for a problem in the page language. The core's own messages are in English
 * and written for whoever configures a wallet; these are for the buyer, who can only paste again.
 * A code this page does not know shows the English `message`, else a general hint.
 */
export function refundProblemMessage(
  problem: RefundClaimProblem,
  t: RefundMessages,
  values: { network: string; asset: string },
): string {
  if (problem.code === 'empty' && problem.field === 'address_again') return t.problemEmptyAgain;
  const key = Object.hasOwn(PROBLEM_KEYS, problem.code) ? PROBLEM_KEYS[problem.code] : undefined;
  if (key !== undefined) return formatText(t[key], values);
  return problem.message?.trim() ? problem.message : t.problemOther;
}
