import { describe, expect, it } from 'vitest';
import { resolveSolanaNetwork, solanaExplorerUrl } from './solana-network.js';

const RPC = 'https://solana-rpc.example';
const MINT = 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr';

describe('resolveSolanaNetwork', () => {
  it('watches mainnet USDC, USDT and SOL at finalized by default', () => {
    const config = resolveSolanaNetwork({ rpcUrl: RPC });
    expect(config).toMatchObject({
      network: 'SOLANA',
      rpcUrl: RPC,
      commitment: 'finalized',
      customMints: false,
    });
    expect(config.assets).toEqual([
      { asset: 'USDC', decimals: 6, mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      { asset: 'USDT', decimals: 6, mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },
      { asset: 'SOL', decimals: 9 },
    ]);
  });

  it('takes a devnet mint and the confirmed commitment', () => {
    const config = resolveSolanaNetwork({ rpcUrl: RPC, mints: { usdc: MINT }, commitment: 'Confirmed' });
    expect(config.commitment).toBe('confirmed');
    expect(config.customMints).toBe(true);
    expect(config.assets[0]).toEqual({ asset: 'USDC', decimals: 6, mint: MINT });
    // Explorer links only for mainnet's own mints.
    expect(solanaExplorerUrl(config, '5'.repeat(88))).toBeNull();
    expect(solanaExplorerUrl(resolveSolanaNetwork({ rpcUrl: RPC }), '5'.repeat(88))).toBe(
      `https://explorer.solana.com/tx/${'5'.repeat(88)}`,
    );
  });

  it('refuses settings that cannot work, naming the flag and the fix', () => {
    const cases: Array<[Parameters<typeof resolveSolanaNetwork>[0], RegExp]> = [
      [
        { rpcUrl: 'wss://solana.example' },
        /--rpc-url SOLANA: "wss:\/\/solana.example" is not an http\(s\) JSON-RPC URL/,
      ],
      [
        { rpcUrl: RPC, commitment: 'processed' },
        /--solana-commitment must be "finalized" .* not "processed"/,
      ],
      [
        { rpcUrl: RPC, mints: { SOL: MINT } },
        /--token SOLANA:SOL: Solana mints can be set for USDC and USDT/,
      ],
      [
        { rpcUrl: RPC, mints: { USDC: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } },
        /is not a Solana mint address/,
      ],
    ];
    for (const [options, message] of cases) expect(() => resolveSolanaNetwork(options)).toThrow(message);
  });
});
