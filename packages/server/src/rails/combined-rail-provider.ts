import type { Rail } from './catalog.js';
import type { MerchantWallet, PaymentRailProvider } from './payment-rail-provider.js';

/** A chain family's provider and the networks it watches. */
export interface RailFamily {
  networks: readonly string[];
  provider: PaymentRailProvider;
}

/**
 * Live mode with several chain families (EVM and Solana): each rail and wallet goes to the family
 * that watches its network; anything else to the first family, which says it is not offered.
 */
export function combinedRailProvider(families: readonly RailFamily[]): PaymentRailProvider {
  const first = families[0]!.provider;
  const forNetwork = (network: string | null | undefined): PaymentRailProvider =>
    families.find((family) => family.networks.includes((network ?? '').toUpperCase()))?.provider ?? first;
  const forRail = (rail: Rail) => forNetwork(rail.network);
  const forWallet = (wallet: MerchantWallet) => forNetwork(wallet.network);
  return {
    availability: (rail, wallet) => forRail(rail).availability(rail, wallet),
    paymentRequest: (request) => forRail(request.rail).paymentRequest(request),
    tokenOverride: (rail) => forRail(rail).tokenOverride?.(rail),
    paysOutByForward: (wallet) => forWallet(wallet).paysOutByForward?.(wallet) ?? false,
    sharesAmountPool: (wallet) => forWallet(wallet).sharesAmountPool?.(wallet) ?? false,
    inspectWallet: async (wallet) => forWallet(wallet).inspectWallet?.(wallet),
    isTokenAccount: async (network, address) =>
      (await forNetwork(network).isTokenAccount?.(network, address)) ?? false,
    fiatRedirectUrl: (transactionCode, rail, publicUrl) =>
      forRail(rail).fiatRedirectUrl(transactionCode, rail, publicUrl),
    async start(sink, refunds) {
      for (const family of families) await family.provider.start?.(sink, refunds);
    },
    async stop() {
      await Promise.all(families.map((family) => family.provider.stop?.()));
    },
    health: () => Object.assign({}, ...families.map((family) => family.provider.health?.() ?? {})),
  };
}
