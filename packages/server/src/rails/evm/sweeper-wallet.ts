import { compiledContracts } from '@cryptocheckout/contracts';
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  keccak256,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

/** One deposit in a forward: whose forwarder, which token. */
export interface ForwardItem {
  merchant: string;
  salt: string;
  token: string;
}

/** A forward signed and ready to send. */
export interface SignedForward {
  hash: Hex;
  raw: Hex;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The fee a replacement must offer over the one it replaces: nodes ask for 10 % more; 12.5 % leaves room. */
const BUMP_NUMERATOR = 1125n;
const BUMP_DENOMINATOR = 1000n;

/**
 * The sweeper: a key that holds only gas and signs forwards through the DepositFactory. It can pay
 * nobody but the merchants the forwarders were made for. The key stays inside this object; nothing
 * here puts it in a message, a log or an answer.
 */
export class SweeperWallet {
  readonly address: Address;
  readonly #account: PrivateKeyAccount;

  constructor(
    private readonly client: PublicClient,
    key: Hex,
    private readonly chainId: number,
  ) {
    this.#account = privateKeyToAccount(key);
    this.address = this.#account.address;
  }

  /** The sweeper's balance of the chain's own coin, in wei. */
  balance(): Promise<bigint> {
    return this.client.getBalance({ address: this.address });
  }

  /** The next nonce counting transactions the node holds but has not mined. */
  pendingNonce(): Promise<number> {
    return this.client.getTransactionCount({ address: this.address, blockTag: 'pending' });
  }

  /** Transactions of the sweeper mined up to and including block `blockNumber`. */
  minedNonce(blockNumber: bigint): Promise<number> {
    return this.client.getTransactionCount({ address: this.address, blockNumber });
  }

  /** A token balance held at an address, in base units. */
  tokenBalance(token: string, holder: string): Promise<bigint> {
    return this.client.readContract({
      address: getAddress(token),
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [getAddress(holder)],
    });
  }

  /** The calldata of `forwardBatch(items)`. */
  batchCall(items: readonly ForwardItem[]): Hex {
    return encodeFunctionData({
      abi: compiledContracts().DepositFactory.abi,
      functionName: 'forwardBatch',
      args: [
        items.map((item) => ({
          merchant: getAddress(item.merchant),
          salt: item.salt as Hex,
          token: getAddress(item.token),
        })),
      ],
    });
  }

  /** Gas for a forward, with a quarter on top (a batch's deployments make estimates tight). */
  async estimateGas(factory: string, data: Hex): Promise<bigint> {
    const estimate = await this.client.estimateGas({ account: this.address, to: getAddress(factory), data });
    return (estimate * 5n) / 4n;
  }

  /** EIP-1559 fees the node suggests now. */
  async currentFees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const fees = await this.client.estimateFeesPerGas();
    return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
  }

  /** Fees for a replacement of `previous`: at least 12.5 % more, and at least what the node suggests now. */
  async bumpedFees(previous: {
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
  }): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const now = await this.currentFees();
    const bump = (value: bigint) => (value * BUMP_NUMERATOR) / BUMP_DENOMINATOR + 1n;
    return {
      maxFeePerGas: maxBigInt(bump(previous.maxFeePerGas), now.maxFeePerGas),
      maxPriorityFeePerGas: maxBigInt(bump(previous.maxPriorityFeePerGas), now.maxPriorityFeePerGas),
    };
  }

  /** Signs a call to the factory with a given nonce, gas and fees. */
  async sign(request: {
    factory: string;
    data: Hex;
    nonce: number;
    gas: bigint;
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
  }): Promise<SignedForward> {
    const raw = await this.#account.signTransaction({
      type: 'eip1559',
      chainId: this.chainId,
      to: getAddress(request.factory),
      data: request.data,
      nonce: request.nonce,
      gas: request.gas,
      maxFeePerGas: request.maxFeePerGas,
      maxPriorityFeePerGas: request.maxPriorityFeePerGas,
      value: 0n,
    });
    return {
      hash: keccak256(raw),
      raw,
      maxFeePerGas: request.maxFeePerGas,
      maxPriorityFeePerGas: request.maxPriorityFeePerGas,
    };
  }

  /**
   * Hands a signed forward to the node. A node that has it already, or has mined its nonce, is
   * not an error: the forward's receipt or its nonce tells what happened.
   * @throws Error from the node otherwise (e.g. the sweeper cannot pay the gas).
   */
  async broadcast(raw: Hex): Promise<void> {
    try {
      await this.client.request({ method: 'eth_sendRawTransaction', params: [raw] });
    } catch (error) {
      const message = String((error as Error).message);
      if (
        /already known|known transaction|nonce too low|already imported|replacement transaction underpriced/i.test(
          message,
        )
      ) {
        return;
      }
      throw error;
    }
  }

  /** The receipt of a transaction, or undefined while it is not mined. */
  async receipt(hash: Hex): Promise<TransactionReceipt | undefined> {
    try {
      return await this.client.getTransactionReceipt({ hash });
    } catch (error) {
      if ((error as Error).name === 'TransactionReceiptNotFoundError') return undefined;
      throw error;
    }
  }
}

function maxBigInt(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
