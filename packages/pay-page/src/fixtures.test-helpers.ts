import type { CryptoPaymentLink, LockedRate, PaymentOption, Transaction } from '@cryptocheckout/core';
import type { PayPageContext } from './state.js';

export const CODE = '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60';
export const NOW = new Date('2025-01-01T12:00:00.000Z');

export function transaction(overrides: Partial<Transaction> = {}): Transaction {
  return {
    transaction_code: CODE,
    status: 'pending',
    external_reference: 'order-1001',
    fiat_amount: 12.5,
    fiat_currency: 'EUR',
    amount_in_usd: 13.6,
    received_usd: 0,
    checkout_url: `https://pay.example/pay/${CODE}`,
    wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
    wallet_currency: 'USDC',
    wallet_network: 'POLYGON',
    payout_dispatched: false,
    payment_method: null,
    late: false,
    created_at: '2025-01-01T11:50:00.000Z',
    expires_at: '2025-01-01T12:50:00.000Z',
    settled_at: null,
    payments: [],
    ...overrides,
  };
}

/** The rate a EUR checkout locked at creation: two market sources, no spread, held until it expires. */
export function lockedRate(overrides: Partial<LockedRate> = {}): LockedRate {
  return {
    usd_per_unit: '1.0612',
    source: 'ECB 2025-01-01 · ExchangeRate-API 2025-01-01 11:02 UTC',
    sources: ['ECB', 'ExchangeRate-API'],
    as_of: '2025-01-01T11:00:00.000Z',
    spread_percent: '0',
    held_until: '2025-01-01T12:50:00.000Z',
    ...overrides,
  };
}

export const OPTIONS: PaymentOption[] = [
  {
    slug: 'usdc_polygon',
    name: 'USDC',
    kind: 'crypto',
    asset: 'USDC',
    network: 'POLYGON',
    amount: '13.6',
    amount_usd: 13.6,
    min_usd: 0.5,
    max_usd: 100000,
    available: true,
  },
  {
    slug: 'btc',
    name: 'Bitcoin',
    kind: 'crypto',
    asset: 'BTC',
    network: 'BITCOIN',
    amount: '0.00014321',
    amount_usd: 13.6,
    min_usd: 20,
    max_usd: 100000,
    available: false,
  },
  {
    slug: 'card',
    name: 'Card',
    kind: 'fiat',
    asset: 'EUR',
    network: null,
    amount: '12.5',
    amount_usd: 13.6,
    min_usd: 1,
    max_usd: 10000,
    available: true,
  },
];

export const CRYPTO_LINK: CryptoPaymentLink = {
  kind: 'crypto',
  payment_method: 'usdc_polygon',
  address: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
  amount: '13.6',
  asset: 'USDC',
  network: 'POLYGON',
  uri: 'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x8ba1f109551bD432803012645Ac136ddd64DBA72&uint256=13600000',
  expires_at: '2025-01-01T12:50:00.000Z',
};

/** USDC on Solana: offered beside {@link OPTIONS} where a test needs a Solana rail. */
export const SOLANA_OPTION: PaymentOption = {
  slug: 'usdc_solana',
  name: 'USDC',
  kind: 'crypto',
  asset: 'USDC',
  network: 'SOLANA',
  amount: '13.6',
  amount_usd: 13.6,
  min_usd: 0.5,
  max_usd: 100000,
  available: true,
};

/** A Solana Pay transfer request to the merchant's wallet, with the checkout's reference key. */
export const SOLANA_LINK: CryptoPaymentLink = {
  kind: 'crypto',
  payment_method: 'usdc_solana',
  address: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
  amount: '13.6',
  asset: 'USDC',
  network: 'SOLANA',
  uri: 'solana:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU?amount=13.6&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&reference=82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny&label=Crypto%20Checkout&message=Order%20order-1001',
  expires_at: '2025-01-01T12:50:00.000Z',
};

export function context(overrides: Partial<PayPageContext> = {}): PayPageContext {
  return {
    transaction: transaction(),
    paymentOptions: OPTIONS,
    merchantDomain: 'shop.example',
    successUrl: 'https://shop.example/thanks',
    cancelUrl: 'https://shop.example/cart',
    mode: 'live',
    lang: 'en',
    apiBase: '/api',
    embed: { embedded: false, parentOrigin: null },
    now: NOW,
    ...overrides,
  };
}
