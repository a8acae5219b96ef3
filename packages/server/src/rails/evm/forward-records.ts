import type { WaitingDeposit } from '../../db/deposit-repository.js';

/** A deposit carried by a forward, as stored in its `items`. */
export interface StoredItem {
  address: string;
  merchant: string;
  salt: string;
  token: string;
  transfers: { txHash: string; logIndex: number; transactionCode: string | null }[];
}

/** What `/api/health` and the dashboard show about forwarding on a network. */
export interface ForwarderHealth {
  sweeper: string;
  /** The sweeper's gas balance in wei, as a decimal string; null before the first look. */
  sweeperBalanceWei: string | null;
  /** Set while forwards wait because the sweeper cannot pay for one. */
  needsGas: { neededWei: string; balanceWei: string } | null;
  /** Deposits (address and token) waiting for a forward after the last look. */
  depositsWaiting: number;
  forwardsInFlight: number;
  forwardsSent: number;
  /** False while another server node holds the right to send forwards. */
  sending: boolean;
  lastError: string | null;
}

/** The `forward_id` of deposits whose balance someone else forwarded (to the merchant: nowhere else is possible). */
export const FORWARDED_ELSEWHERE = 'elsewhere';

export function itemOf(deposit: WaitingDeposit): StoredItem {
  return {
    address: deposit.address,
    merchant: deposit.merchant,
    salt: deposit.salt,
    token: deposit.tokenContract,
    transfers: deposit.transfers.map(({ txHash, logIndex, transactionCode }) => ({
      txHash,
      logIndex,
      transactionCode,
    })),
  };
}

export function codesOf(items: readonly StoredItem[]): string[] {
  return items.flatMap((item) =>
    item.transfers.flatMap((transfer) => (transfer.transactionCode ? [transfer.transactionCode] : [])),
  );
}
