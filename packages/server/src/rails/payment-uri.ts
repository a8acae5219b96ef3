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
  /** A configured token contract (or mint) and chain id in place of the catalogue's (live mode on a test chain). */
  override?: { contract: string; chainId?: number },
  /** Solana Pay: the reference key that identifies the checkout or refund, and the message wallets show. */
  solanaPay?: { reference: string; message?: string },
): string {
  const info = getNetwork(network);
  const token = getAsset(network, asset);
  if (!info || !token) throw new Error(`No ${asset} on ${network}`);
  switch (info.family) {
    case 'evm': {
      const baseUnits = decimalToScaled(amount, token.decimals).toString();
      const contract = override?.contract ?? token.contract;
      const chainId = override?.chainId ?? info.chainId;
      return contract
        ? `ethereum:${contract}@${chainId}/transfer?address=${address}&uint256=${baseUnits}`
        : `ethereum:${address}@${chainId}?value=${baseUnits}`;
    }
    case 'bitcoin':
      return `bitcoin:${address}?amount=${amount}&label=${encodeURIComponent(label)}`;
    case 'solana': {
      // https://docs.solanapay.com/spec: recipient, amount, spl-token, reference, label, message.
      const mint = override?.contract ?? token.contract;
      const splToken = mint ? `&spl-token=${mint}` : '';
      const reference = solanaPay ? `&reference=${solanaPay.reference}` : '';
      const message = solanaPay?.message ? `&message=${encodeURIComponent(solanaPay.message)}` : '';
      return `solana:${address}?amount=${amount}${splToken}${reference}&label=${encodeURIComponent(label)}${message}`;
    }
    case 'tron': {
      const tokenPart = token.contract ? `&token=${token.contract}` : '';
      return `tron:${address}?amount=${amount}${tokenPart}`;
    }
  }
}
