import ganache from 'ganache';
import {
  type Abi,
  type Account,
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  getAddress,
  type Hex,
  keccak256,
  type Log,
  type PublicClient,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** Ganache in process, mining each transaction as it comes, with a few funded accounts. */
export interface TestChain {
  client: PublicClient;
  accounts: Record<'deployer' | 'buyer' | 'stranger', Account>;
  /** Deploys a contract from `from`; returns its address. */
  deploy(artifact: { abi: Abi; bytecode: Hex }, from?: Account): Promise<Address>;
  /** Sends a call and waits for its receipt; throws when it reverted. */
  send(
    from: Account,
    call: { address: Address; abi: Abi; functionName: string; args?: readonly unknown[] },
  ): Promise<{ gasUsed: bigint; logs: Log[] }>;
  /** Sends `wei` of the chain's own coin and waits for the receipt. */
  sendValue(from: Account, to: Address, wei: bigint): Promise<void>;
  close(): Promise<void>;
}

const keyOf = (name: string) => keccak256(toHex(`cryptocheckout contracts test ${name}`));

/** Starts the chain (chain id 137, Shanghai: what the contracts are compiled for). */
export async function startTestChain(): Promise<TestChain> {
  const names = ['deployer', 'buyer', 'stranger'] as const;
  const accounts = Object.fromEntries(
    names.map((name) => [name, privateKeyToAccount(keyOf(name))]),
  ) as Record<(typeof names)[number], Account>;
  const provider = ganache.provider({
    logging: { quiet: true },
    chain: { chainId: 137, hardfork: 'shanghai' },
    wallet: { accounts: names.map((name) => ({ secretKey: keyOf(name), balance: toHex(10n ** 22n) })) },
  });
  // No retries: the node is in this process, and viem's first try of eth_fillTransaction (which
  // ganache lacks) would otherwise be retried for 4 s before each transaction falls back.
  const transport = custom(provider as unknown as { request(args: unknown): Promise<unknown> }, {
    retryCount: 0,
  });
  const client = createPublicClient({ transport, pollingInterval: 10 });
  const wallet = (account: Account) => createWalletClient({ account, transport });
  const receipt = async (hash: Hex) => {
    const mined = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    if (mined.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return mined;
  };
  return {
    client,
    accounts,
    async deploy(artifact, from = accounts.deployer) {
      const hash = await wallet(from).deployContract({
        abi: artifact.abi,
        bytecode: artifact.bytecode,
        chain: null,
      });
      const mined = await receipt(hash);
      if (!mined.contractAddress) throw new Error(`deployment ${hash} created no contract`);
      return getAddress(mined.contractAddress);
    },
    async send(from, call) {
      const hash = await wallet(from).writeContract({
        ...call,
        args: call.args ?? [],
        chain: null,
        gas: 5_000_000n,
      });
      const mined = await receipt(hash);
      return { gasUsed: mined.gasUsed, logs: mined.logs };
    },
    async sendValue(from, to, wei) {
      await receipt(await wallet(from).sendTransaction({ to, value: wei, chain: null }));
    },
    close: () => provider.disconnect(),
  };
}
