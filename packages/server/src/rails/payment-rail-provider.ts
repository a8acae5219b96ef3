import { getNetwork } from '@cryptocheckout/core';
import type { WriteScope } from '../db/database.js';
import type { RefundPayments } from '../domain/refund-payments.js';
import type { Rail } from './catalog.js';
import { derivedAddress } from './deposit-addresses.js';

/** Writes a provider's own records in the database transaction that stores a payment change. */
export type AlongsideWrite = (scope: WriteScope) => Promise<void>;

/** A payment seen by a rail: `amount` in the rail's asset units, as a decimal string. */
export interface ObservedPayment {
  transactionCode: string;
  paymentMethod: string;
  amount: string;
  txId: string;
  seenAt: Date;
  /**
   * When the payment is final (card captured, sandbox delay over); null when the provider decides
   * later (chain confirmations) and calls {@link PaymentSink.confirmPayment}.
   */
  confirmAt: Date | null;
  /** The payment's id, for a provider that confirms or retracts it later; generated when absent. */
  paymentId?: string;
  /** Writes the provider's own records in the same database transaction as the payment. */
  alongside?: AlongsideWrite;
}

/** A provider cannot hand out payment instructions right now; the API answers 503 `unavailable`. */
export class RailUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RailUnavailable';
  }
}

/**
 * Whether an error from {@link PaymentSink.recordPayment} is the transaction refusing the payment
 * (settled, no longer monitored: a ServiceProblem with a code other than `unavailable`) rather
 * than a failure worth retrying.
 */
export function isRefusedPayment(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof Error &&
    error.name === 'ServiceProblem' &&
    typeof code === 'string' &&
    code !== 'unavailable'
  );
}

/** Where providers report payments; the checkout service implements it. */
export interface PaymentSink {
  /**
   * Records a payment and the state it leads to.
   * @throws ServiceProblem `conflict` when the transaction is settled or no longer monitored.
   */
  recordPayment(payment: ObservedPayment): Promise<void>;
  /** Makes a payment recorded with `confirmAt: null` final now; settles the transaction when it completes it. */
  confirmPayment(transactionCode: string, paymentId: string, alongside?: AlongsideWrite): Promise<void>;
  /**
   * Removes an unconfirmed payment whose block left the chain (a reorganisation) and returns the
   * transaction to the state its other payments give it. Confirmed payments are never retracted.
   */
  retractPayment(transactionCode: string, paymentId: string, alongside?: AlongsideWrite): Promise<void>;
}

/** The merchant's destination wallet, as sent in the checkout's `customer` object. */
export interface MerchantWallet {
  address: string;
  asset: string;
  network: string;
}

/** Whether a rail can take a payment now; `reason` says why not in words a buyer understands. */
export type RailAvailability = { available: true } | { available: false; reason: string };

/** Card and bank rails in live mode. */
export const FIAT_NOT_IN_LIVE_MODE: RailAvailability = {
  available: false,
  reason: 'Not offered in live mode: card and bank payments need a payment processor.',
};

/** With the merchant's wallet known, the one reason that matters to the buyer: the merchant is paid in another asset. */
export function walletMismatch(rail: Rail, wallet?: MerchantWallet): RailAvailability | undefined {
  if (
    !wallet ||
    (wallet.network.toUpperCase() === rail.network && wallet.asset.toUpperCase() === rail.asset)
  ) {
    return undefined;
  }
  const walletNetwork = getNetwork(wallet.network.toUpperCase())?.name ?? wallet.network;
  return {
    available: false,
    reason: `Not offered: this merchant is paid in ${wallet.asset.toUpperCase()} on ${walletNetwork} only.`,
  };
}

/** What a buyer is asked to pay by a crypto rail. */
export interface PaymentRequest {
  address: string;
  /** In the rail's asset units, as a decimal string. */
  amount: string;
  /** Solana Pay: the reference key the buyer's wallet adds to the transfer; it identifies the checkout. */
  reference?: string;
}

/**
 * The boundary between the service and the outside world of chains and card processors.
 * Sandbox mode plugs in {@link sandboxRailProvider}; live mode the EVM rail (rails/evm), which
 * watches chains for payments straight to the merchant's wallet and reports them to the sink.
 */
export interface PaymentRailProvider {
  /** Whether buyers can pay by this rail now, for this merchant wallet when one is known. */
  availability(rail: Rail, wallet?: MerchantWallet): RailAvailability;
  /**
   * The address and exact amount a buyer pays for a transaction by a crypto rail; stable per
   * (transaction, rail). `dueAmount` is what the transaction owes in the rail's asset.
   * @throws RailUnavailable when the provider cannot hand out a request now.
   */
  paymentRequest(request: {
    transactionCode: string;
    rail: Rail;
    wallet: MerchantWallet;
    dueAmount: string;
    /** Until when the request must stay recognisable (the end of the late-payment window). */
    holdUntil: string;
  }): Promise<PaymentRequest>;
  /** The wallet URI target of a rail when it differs from the catalogue's (a configured token contract or mint, a chain id). */
  tokenOverride?(rail: Rail): { contract: string; chainId?: number } | undefined;
  /**
   * Whether checkouts paying this wallet are told apart by exact amounts from a shared pool (EVM
   * direct mode), whose new holds the new-hold limits ration.
   */
  sharesAmountPool?(wallet: MerchantWallet): boolean;
  /**
   * Whether payments to this wallet arrive at a deposit address and reach the wallet by a forward
   * (deposit mode), so `payout_dispatched` follows the forward rather than the settlement.
   */
  paysOutByForward?(wallet: MerchantWallet): boolean;
  /**
   * Looks a merchant's wallet up on its chain (at most once per address), so that
   * {@link availability} can give the reason a wallet cannot be paid (a Solana token account).
   */
  inspectWallet?(wallet: MerchantWallet): Promise<void>;
  /**
   * Whether `address` on `network` is a token account rather than a wallet (Solana): a token sent to a
   * payment request for it lands where ordinary wallets cannot reach. False when unknown.
   */
  isTokenAccount?(network: string, address: string): Promise<boolean>;
  /** Where a fiat rail sends the buyer. */
  fiatRedirectUrl(transactionCode: string, rail: Rail, publicUrl: string): string;
  /** Starts watching for payments (and, given `refunds`, for the merchant's transfers that pay refunds). */
  start?(sink: PaymentSink, refunds?: RefundPayments): Promise<void>;
  stop?(): Promise<void>;
  /** What the provider is doing, for `GET /api/health`. */
  health?(): Record<string, unknown>;
}

/** Sandbox: every rail works, deposit addresses are derived and unowned, card payments are simulated. */
export function sandboxRailProvider(): PaymentRailProvider {
  return {
    availability: () => ({ available: true }),
    paymentRequest: async ({ transactionCode, rail, dueAmount }) => ({
      address: derivedAddress(rail.network ?? '', `${transactionCode}:${rail.slug}`),
      amount: dueAmount,
    }),
    fiatRedirectUrl: (transactionCode, rail, publicUrl) =>
      `${publicUrl}/sandbox/card/${transactionCode}?method=${encodeURIComponent(rail.slug)}`,
  };
}

/** Live mode without any network configured: no rail takes payments, and the reason says how to add one. */
export function noLiveRailProvider(): PaymentRailProvider {
  const reason = 'Not offered: this server watches no network yet (start it with --rpc-url).';
  const refuse = (): never => {
    throw new Error('No live payment rail is configured; start the server with --rpc-url <network>=<url>.');
  };
  return {
    availability: () => ({ available: false, reason }),
    paymentRequest: async () => refuse(),
    fiatRedirectUrl: refuse,
  };
}
