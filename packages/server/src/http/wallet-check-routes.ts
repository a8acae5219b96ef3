import { errorEnvelopeSchema, successEnvelopeSchema, validateWalletAddress } from '@cryptocheckout/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServiceProblem } from '../domain/service-problem.js';
import type { BitcoinChain } from '../rails/bitcoin/bitcoin-keys.js';
import { describeBitcoinWallet } from '../rails/bitcoin/bitcoin-wallets.js';
import { sendSuccess } from './envelope.js';

const walletCheckQuery = z.object({
  network: z.string().min(1, { error: 'network is required (BITCOIN, POLYGON, …)' }),
  wallet_address: z.string().min(1, { error: 'wallet_address is required' }).max(512),
});

const walletCheckAnswer = z.object({
  network: z.string(),
  wallet_address: z.string(),
  kind: z.enum(['address', 'extended_key']),
  description: z.string(),
  first_addresses: z.array(z.string()),
});

/**
 * `GET /api/wallet_check` (docs/api.md "Checking a wallet"): whether a merchant's wallet can be
 * paid, in the form the service stores it, and for a Bitcoin extended public key the first receive
 * addresses derived from it, so a settings page can show them to check against the wallet's own.
 * Public keys only; nothing is stored.
 */
export function registerWalletCheckRoutes(app: FastifyInstance, chain: BitcoinChain): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/wallet_check',
    {
      schema: {
        summary: "Check a merchant's wallet (and show a Bitcoin key's first addresses)",
        tags: ['checkout'],
        querystring: walletCheckQuery,
        response: { 200: successEnvelopeSchema(walletCheckAnswer), 400: errorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const network = request.query.network.trim().toUpperCase();
      const text = request.query.wallet_address.trim();
      const checked = validateWalletAddress(network, text);
      if (!checked.valid) {
        const field = checked.code === 'unknown_network' ? 'network' : 'wallet_address';
        throw new ServiceProblem('invalid_request', `${field}: ${checked.message}`, field);
      }
      if (network !== 'BITCOIN') {
        return sendSuccess(reply, {
          network,
          wallet_address: checked.address,
          kind: 'address' as const,
          description: 'an address',
          first_addresses: [],
        });
      }
      const described = describeBitcoinWallet(checked.address, chain);
      if ('problem' in described) {
        throw new ServiceProblem('invalid_request', `wallet_address: ${described.problem}`, 'wallet_address');
      }
      return sendSuccess(reply, { network, wallet_address: checked.address, ...described });
    },
  );
}
