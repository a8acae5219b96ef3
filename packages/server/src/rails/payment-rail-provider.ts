import type { Rail } from './catalog.js';
import { derivedAddress } from './deposit-addresses.js';

/** A payment seen by a rail: `amount` in the rail's asset units, as a decimal string. */
export interface ObservedPayment {
  transactionCode: string;
  paymentMethod: string;
  amount: string;
  txId: string;
  seenAt: Date;
  /** When the payment is final (enough confirmations, card captured). */
  confirmAt: Date;
}

/** Where providers report payments; the checkout service implements it. */
export interface PaymentSink {
  recordPayment(payment: ObservedPayment): Promise<void>;
}

/**
 * The boundary between the service and the outside world of chains and card processors.
 * Sandbox mode plugs in {@link sandboxRailProvider}; a live provider watches chains for payments
 * to the deposit addresses it hands out and reports them to the sink.
 */
export interface PaymentRailProvider {
  /** Whether buyers can pay by this rail now. */
  supports(rail: Rail): boolean;
  /** The address a buyer pays to for a transaction by a crypto rail; stable per (transaction, rail). */
  depositAddress(transactionCode: string, rail: Rail): Promise<string>;
  /** Where a fiat rail sends the buyer. */
  fiatRedirectUrl(transactionCode: string, rail: Rail, publicUrl: string): string;
  /** Starts watching for payments. */
  start?(sink: PaymentSink): Promise<void>;
  stop?(): Promise<void>;
}

/** Sandbox: every rail works, deposit addresses are derived and unowned, card payments are simulated. */
export function sandboxRailProvider(): PaymentRailProvider {
  return {
    supports: () => true,
    depositAddress: async (transactionCode, rail) =>
      derivedAddress(rail.network ?? '', `${transactionCode}:${rail.slug}`),
    fiatRedirectUrl: (transactionCode, rail, publicUrl) =>
      `${publicUrl}/sandbox/card/${transactionCode}?method=${encodeURIComponent(rail.slug)}`,
  };
}

/** Live mode until a chain-watching provider is configured: no rail takes payments. */
export function noLiveRailProvider(): PaymentRailProvider {
  return {
    supports: () => false,
    depositAddress: async () => {
      throw new Error('No live payment rail provider is configured.');
    },
    fiatRedirectUrl: () => {
      throw new Error('No live payment rail provider is configured.');
    },
  };
}
