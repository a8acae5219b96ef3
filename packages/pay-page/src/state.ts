import type { PaymentLink, PaymentOption, Transaction, TransactionStatus } from '@cryptocheckout/core';
import type { Messages } from './i18n.js';

/** Everything the server knows when it renders `GET /pay/<transaction_code>`. */
export interface PayPageContext {
  transaction: Transaction;
  paymentOptions: PaymentOption[];
  /** The rail chosen with `?method=<slug>`, pre-fetched so the page works without JavaScript. */
  selected?: { link: PaymentLink; qrSvg?: string };
  /** Shown as the payee; taken from the checkout's own URLs. */
  merchantDomain: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  mode: 'sandbox' | 'live';
  /** A supported language code, as returned by `resolveLanguage`. */
  lang: string;
  /** Path prefix of the JSON API, e.g. "/api". */
  apiBase: string;
  /** `parentOrigin` has already been checked against the origins of the order's own URLs. */
  embed: { embedded: boolean; parentOrigin: string | null };
  now: Date;
}

/** A rail as the browser script needs it to render instructions and label buttons. */
export interface RailView {
  slug: string;
  kind: 'crypto' | 'fiat';
  name: string;
  asset: string;
  network: string | null;
  /** Human network name ("Polygon PoS"), or null for fiat rails. */
  networkName: string | null;
  /**
   * What live mode tells the buyer beside the instructions: `exact_amount` where the order is found
   * by its tagged amount (EVM, TRON, Bitcoin), `reference` where it is found by the Solana Pay
   * reference the QR code and wallet link carry; null in the sandbox and for fiat rails.
   */
  payNote: PayNote | null;
}

/** See {@link RailView.payNote}. */
export type PayNote = 'exact_amount' | 'reference';

/**
 * The data the server hands to the browser script in `<script type="application/json" id="cc-state">`.
 * Field names are the page's own; wire shapes are kept where they pass through (`selected`).
 */
export interface PayPageState {
  code: string;
  status: TransactionStatus;
  amountInUsd: number;
  receivedUsd: number;
  late: boolean;
  expiresAt: string;
  /** Server time at render; the script measures its own clock's offset against it. */
  serverNow: string;
  apiBase: string;
  /** Path of this page without query, e.g. "/pay/<code>". */
  pagePath: string;
  mode: 'sandbox' | 'live';
  lang: string;
  /** Display name of the payee used in sentences: the merchant's domain or a neutral fallback. */
  merchant: string;
  successUrl: string | null;
  cancelUrl: string | null;
  embed: { embedded: boolean; parentOrigin: string | null };
  rails: RailView[];
  selected: PaymentLink | null;
  text: Messages;
}

/** Element ids shared by the rendered markup and the browser script. */
export const IDS = {
  state: 'cc-state',
  status: 'cc-status',
  statusTitle: 'cc-status-title',
  statusDetail: 'cc-status-detail',
  statusAction: 'cc-status-action',
  countdown: 'cc-countdown',
  rate: 'cc-rate',
  methods: 'cc-methods',
  methodsTitle: 'cc-methods-title',
  pay: 'cc-pay',
  payTitle: 'cc-pay-title',
  qr: 'cc-qr',
  amount: 'cc-amount',
  exactAmount: 'cc-exact-amount',
  referenceNote: 'cc-reference-note',
  asset: 'cc-asset',
  network: 'cc-network',
  address: 'cc-address',
  warning: 'cc-warning',
  wallet: 'cc-wallet',
  copyStatus: 'cc-copy-status',
  sandbox: 'cc-sandbox',
  sandboxResult: 'cc-sandbox-result',
  unconfirmed: 'cc-unconfirmed',
  fiat: 'cc-fiat',
  fiatLink: 'cc-fiat-link',
  cancel: 'cc-cancel',
  error: 'cc-error',
} as const;
