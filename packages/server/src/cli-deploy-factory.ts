import { parseArgs } from 'node:util';
import { compiledContracts, expectedFactoryCode } from '@cryptocheckout/contracts';
import { getNetwork } from '@cryptocheckout/core';
import { createPublicClient, createWalletClient, formatEther, getAddress, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { readSweeperKey } from './sweeper-key.js';

export const DEPLOY_FACTORY_HELP = `cryptocheckout-server deploy-factory — deploys the DepositFactory of deposit mode

Usage: cryptocheckout-server deploy-factory --rpc-url <NET=url> [--chain-id <NET=id>] --sweeper-key-file <path>

The sweeper's key (--sweeper-key-file, --sweeper-key or CRYPTOCHECKOUT_SWEEPER_KEY) pays the gas
of the deployment. The factory has no owner and no settings: anyone may use it, and a deposit
address made by it can only pay the merchant wallet it was made for. Prints the factory's address
for --deposit-factory.
`;

/**
 * `cryptocheckout-server deploy-factory`: deploys the DepositFactory compiled from source in this
 * build, waits for it to be mined, checks its code and prints its address.
 * @throws Error naming the option and the fix.
 */
export async function deployFactoryCommand(argv: string[], out: (line: string) => void): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'rpc-url': { type: 'string' },
      'chain-id': { type: 'string' },
      'sweeper-key-file': { type: 'string' },
      'sweeper-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    out(DEPLOY_FACTORY_HELP);
    return;
  }
  const [network = '', url = ''] = (values['rpc-url'] ?? '').split(/=(.*)/s);
  const known = getNetwork(network.toUpperCase());
  if (!known || !/^https?:\/\/\S+$/.test(url)) {
    throw new Error(
      'deploy-factory needs --rpc-url NETWORK=<http(s) JSON-RPC URL>, like POLYGON=https://polygon-rpc.example.',
    );
  }
  const key = readSweeperKey({
    file: values['sweeper-key-file'],
    flag: values['sweeper-key'],
    env: process.env.CRYPTOCHECKOUT_SWEEPER_KEY,
  });
  if (!key)
    throw new Error(
      'deploy-factory needs the key that pays the gas: --sweeper-key-file <path> or CRYPTOCHECKOUT_SWEEPER_KEY.',
    );
  const account = privateKeyToAccount(key as Hex);
  const transport = http(url, { retryCount: 2, timeout: 30_000 });
  const client = createPublicClient({ transport });
  const chainId = await client.getChainId();
  const wanted = values['chain-id'] ? Number(values['chain-id'].split('=').at(-1)) : known.chainId;
  if (chainId !== wanted) {
    throw new Error(
      `The node at --rpc-url reports chain id ${chainId}, not ${wanted} (${known.name}); pass --chain-id ${network.toUpperCase()}=${chainId} for a testnet or a local chain.`,
    );
  }
  const balance = await client.getBalance({ address: account.address });
  out(
    `Deploying the DepositFactory on ${known.name} (chain ${chainId}) from ${account.address} (balance ${formatEther(balance)}) …`,
  );
  const wallet = createWalletClient({ account, transport });
  const { abi, bytecode } = compiledContracts().DepositFactory;
  const hash = await wallet.deployContract({ abi, bytecode, chain: null });
  out(`  sent ${hash}; waiting for it to be mined …`);
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: 600_000 });
  if (receipt.status !== 'success' || !receipt.contractAddress)
    throw new Error(`The deployment ${hash} failed (${receipt.status}).`);
  const code = await client.getCode({ address: receipt.contractAddress });
  if (code?.toLowerCase() !== expectedFactoryCode(receipt.contractAddress).toLowerCase()) {
    throw new Error(
      `The contract at ${receipt.contractAddress} does not have the expected code; do not use it.`,
    );
  }
  out(`  mined in block ${receipt.blockNumber}, gas used ${receipt.gasUsed}`);
  const factory = getAddress(receipt.contractAddress);
  out(`DepositFactory: ${factory}`);
  out(`Start the server with --deposit-factory ${network.toUpperCase()}=${factory}`);
}
