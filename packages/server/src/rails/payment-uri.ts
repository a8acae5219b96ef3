import { decimalToScaled, getAsset, getNetwork } from '@cryptocheckout/core';

/**
 * The wallet URI for paying `amount` of `asset` on `network` to `address`:
 * EIP-681 on EVM chains, BIP21 on Bitcoin, Solana Pay on Solana, and for TRON the
 * `tron:<address>?amount=&token=` form TRON wallets read.
 */
export function paymentUri(
  network: string,
  asset: string,
  address: string,
  amount: string,
  label: string,
): string {
  const info = getNetwork(network);
  const token = getAsset(network, asset);
  if (!info || !token) throw new Error(`No ${asset} on ${network}`);
  switch (info.family) {
    case 'evm': {
      const baseUnits = decimalToScaled(amount, token.decimals).toString();
      return token.contract
        ? `ethereum:${token.contract}@${info.chainId}/transfer?address=${address}&uint256=${baseUnits}`
        : `ethereum:${address}@${info.chainId}?value=${baseUnits}`;
    }
    case 'bitcoin':
      return `bitcoin:${address}?amount=${amount}&label=${encodeURIComponent(label)}`;
    case 'solana': {
      const splToken = token.contract ? `&spl-token=${token.contract}` : '';
      return `solana:${address}?amount=${amount}${splToken}&label=${encodeURIComponent(label)}`;
    }
    case 'tron': {
      const tokenPart = token.contract ? `&token=${token.contract}` : '';
      return `tron:${address}?amount=${amount}${tokenPart}`;
    }
  }
}
