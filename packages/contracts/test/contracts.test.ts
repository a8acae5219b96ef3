/**
 * The deposit contracts on a local EVM (ganache, Shanghai), compiled from source as the build does:
 * the destination is fixed by the address, anyone may forward and it still pays only the merchant,
 * tokens without a bool (USDT), forwarding twice or nothing, and the offline address.
 */
import { fileURLToPath } from 'node:url';
import { type Abi, type Address, erc20Abi, getAddress, type Hex, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileContracts } from '../scripts/solidity.mjs';
import type { ContractArtifact } from '../src/artifacts.js';
import {
  checkoutSalt,
  compiledContracts,
  depositAddress,
  expectedFactoryCode,
  forwarderImplementationOf,
} from '../src/index.js';
import { startTestChain, type TestChain } from './chain.js';

const MERCHANT = getAddress('0x3c499c542cef5e3811e1192ce70d8cc03d5c3359');
const OTHER_MERCHANT = getAddress('0x0000000000000000000000000000000000c0ffee');

let chain: TestChain;
let contracts: Record<string, ContractArtifact>;
let factory: Address;
let usdc: Address;
let usdt: Address;
let falseToken: Address;

const balanceOf = (token: Address, holder: Address) =>
  chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
const codeAt = (address: Address) => chain.client.getCode({ address });
const factoryAbi = () => contracts.DepositFactory!.abi;
const forwarderAbi = () => contracts.DepositForwarder!.abi;

/** The buyer pays `amount` base units of `token` to `to`. */
async function pay(token: Address, to: Address, amount: bigint, abi: Abi = erc20Abi): Promise<void> {
  await chain.send(chain.accounts.buyer, {
    address: token,
    abi,
    functionName: 'transfer',
    args: [to, amount],
  });
}

beforeAll(async () => {
  // The deposit contracts as the build compiled them (what the server deploys), the test tokens here.
  const { DepositFactory, DepositForwarder } = compiledContracts();
  contracts = {
    DepositFactory,
    DepositForwarder,
    ...compileContracts(fileURLToPath(new URL('.', import.meta.url)), ['TestTokens.sol']),
  };
  chain = await startTestChain();
  factory = await chain.deploy(contracts.DepositFactory!);
  usdc = await chain.deploy(contracts.StandardToken!, chain.accounts.buyer);
  usdt = await chain.deploy(contracts.NoBoolToken!, chain.accounts.buyer);
  falseToken = await chain.deploy(contracts.FalseToken!, chain.accounts.buyer);
});

afterAll(async () => {
  await chain?.close();
});

describe('deposit address', () => {
  it('computed offline equals the factory’s own answer and the address the forward deploys to', async () => {
    const salt = checkoutSalt('T-OFFLINE-1');
    const offline = depositAddress({ factory, merchant: MERCHANT, salt });
    const onChain = await chain.client.readContract({
      address: factory,
      abi: factoryAbi(),
      functionName: 'depositAddress',
      args: [MERCHANT, salt],
    });
    expect(onChain).toBe(offline);
    expect(await codeAt(offline)).toBeUndefined();

    await pay(usdc, offline, 1_000_000n);
    await chain.send(chain.accounts.deployer, {
      address: factory,
      abi: factoryAbi(),
      functionName: 'forward',
      args: [MERCHANT, salt, usdc],
    });
    expect(await codeAt(offline)).toMatch(/^0x[0-9a-f]+$/);
    expect(
      await chain.client.readContract({ address: offline, abi: forwarderAbi(), functionName: 'merchant' }),
    ).toBe(MERCHANT);
  });

  it('differs for another merchant or another checkout', () => {
    const salt = checkoutSalt('T-1');
    const base = depositAddress({ factory, merchant: MERCHANT, salt });
    expect(depositAddress({ factory, merchant: OTHER_MERCHANT, salt })).not.toBe(base);
    expect(depositAddress({ factory, merchant: MERCHANT, salt: checkoutSalt('T-2') })).not.toBe(base);
  });

  it('names the implementation the factory deployed, and the factory’s code is the compiled one', async () => {
    const implementation = await chain.client.readContract({
      address: factory,
      abi: factoryAbi(),
      functionName: 'implementation',
    });
    expect(implementation).toBe(forwarderImplementationOf(factory));
    expect(await codeAt(factory)).toBe(expectedFactoryCode(factory));
  });
});

describe('forwarding', () => {
  it('pays the merchant exactly what arrived, whoever triggers it, deploying on the first forward', async () => {
    const salt = checkoutSalt('T-ANYONE');
    const deposit = depositAddress({ factory, merchant: MERCHANT, salt });
    const before = await balanceOf(usdc, MERCHANT);
    await pay(usdc, deposit, 12_500_000n);
    await pay(usdc, deposit, 14_610_001n);

    // A stranger, not the server, triggers it: the money still goes to the merchant.
    await chain.send(chain.accounts.stranger, {
      address: factory,
      abi: factoryAbi(),
      functionName: 'forward',
      args: [MERCHANT, salt, usdc],
    });
    expect((await balanceOf(usdc, MERCHANT)) - before).toBe(27_110_001n);
    expect(await balanceOf(usdc, deposit)).toBe(0n);
    expect(await balanceOf(usdc, chain.accounts.stranger.address)).toBe(0n);

    // A top-up after the deployment: the deployed forwarder is called directly by anyone.
    await pay(usdc, deposit, 1n);
    const { logs } = await chain.send(chain.accounts.stranger, {
      address: deposit,
      abi: forwarderAbi(),
      functionName: 'forward',
      args: [usdc],
    });
    const [event] = parseEventLogs({ abi: forwarderAbi(), logs, eventName: 'Forwarded' });
    expect(event?.args).toEqual({ token: usdc, merchant: MERCHANT, amount: 1n });
    expect((await balanceOf(usdc, MERCHANT)) - before).toBe(27_110_002n);
  });

  it('cannot be pointed elsewhere: the same checkout under another merchant is another, empty address', async () => {
    const salt = checkoutSalt('T-STEAL');
    const deposit = depositAddress({ factory, merchant: MERCHANT, salt });
    await pay(usdc, deposit, 5_000_000n);
    const thief = chain.accounts.stranger.address;
    await chain.send(chain.accounts.stranger, {
      address: factory,
      abi: factoryAbi(),
      functionName: 'forward',
      args: [thief, salt, usdc],
    });
    expect(await balanceOf(usdc, thief)).toBe(0n);
    expect(await balanceOf(usdc, deposit)).toBe(5_000_000n);
  });

  it('forwards a token whose transfer returns no bool (USDT)', async () => {
    const salt = checkoutSalt('T-USDT');
    const deposit = depositAddress({ factory, merchant: MERCHANT, salt });
    await pay(usdt, deposit, 3_000_000n, contracts.NoBoolToken!.abi);
    await chain.send(chain.accounts.deployer, {
      address: factory,
      abi: factoryAbi(),
      functionName: 'forward',
      args: [MERCHANT, salt, usdt],
    });
    expect(await balanceOf(usdt, MERCHANT)).toBe(3_000_000n);
    expect(await balanceOf(usdt, deposit)).toBe(0n);
  });

  it('forwarding twice, or an empty address, moves nothing and does not revert', async () => {
    const salt = checkoutSalt('T-TWICE');
    const deposit = depositAddress({ factory, merchant: MERCHANT, salt });
    await pay(usdc, deposit, 2_000_000n);
    const forward = {
      address: factory,
      abi: factoryAbi(),
      functionName: 'forward',
      args: [MERCHANT, salt, usdc],
    } as const;
    const before = await balanceOf(usdc, MERCHANT);
    await chain.send(chain.accounts.deployer, forward);
    const second = await chain.send(chain.accounts.deployer, forward);
    expect((await balanceOf(usdc, MERCHANT)) - before).toBe(2_000_000n);
    expect(parseEventLogs({ abi: forwarderAbi(), logs: second.logs, eventName: 'Forwarded' })).toEqual([]);

    const empty = checkoutSalt('T-EMPTY');
    await chain.send(chain.accounts.deployer, { ...forward, args: [MERCHANT, empty, usdc] });
    expect(await balanceOf(usdc, MERCHANT)).toBe(before + 2_000_000n);
  });

  it('a batch forwards every deposit, and one token that fails does not hold back the others', async () => {
    const salts = ['T-B1', 'T-B2', 'T-B3'].map(checkoutSalt);
    const deposits = salts.map((salt) => depositAddress({ factory, merchant: MERCHANT, salt }));
    await pay(usdc, deposits[0]!, 1_000_000n);
    await pay(usdt, deposits[1]!, 2_000_000n, contracts.NoBoolToken!.abi);
    await chain.send(chain.accounts.buyer, {
      address: falseToken,
      abi: contracts.FalseToken!.abi,
      functionName: 'give',
      args: [deposits[2]!, 7n],
    });
    const usdcBefore = await balanceOf(usdc, MERCHANT);
    const usdtBefore = await balanceOf(usdt, MERCHANT);
    const { logs } = await chain.send(chain.accounts.deployer, {
      address: factory,
      abi: factoryAbi(),
      functionName: 'forwardBatch',
      args: [
        [
          { merchant: MERCHANT, salt: salts[0]!, token: usdc },
          { merchant: MERCHANT, salt: salts[1]!, token: usdt },
          { merchant: MERCHANT, salt: salts[2]!, token: falseToken },
        ],
      ],
    });
    expect((await balanceOf(usdc, MERCHANT)) - usdcBefore).toBe(1_000_000n);
    expect((await balanceOf(usdt, MERCHANT)) - usdtBefore).toBe(2_000_000n);
    const failed = parseEventLogs({ abi: factoryAbi(), logs, eventName: 'ForwardFailed' });
    expect(failed.map((log) => (log.args as { depositAddress: Hex }).depositAddress)).toEqual([deposits[2]]);
    expect(await balanceOf(falseToken, deposits[2]!)).toBe(7n);
  });

  it('forwards the chain’s own coin a buyer sent before the address had code', async () => {
    const salt = checkoutSalt('T-NATIVE');
    const deposit = depositAddress({ factory, merchant: OTHER_MERCHANT, salt });
    await chain.sendValue(chain.accounts.buyer, deposit, 10n ** 18n);
    await chain.send(chain.accounts.stranger, {
      address: factory,
      abi: factoryAbi(),
      functionName: 'forwardNative',
      args: [OTHER_MERCHANT, salt],
    });
    expect(await chain.client.getBalance({ address: OTHER_MERCHANT })).toBe(10n ** 18n);
    expect(await chain.client.getBalance({ address: deposit })).toBe(0n);
  });

  it('refuses a deposit address that would pay nobody', async () => {
    await expect(
      chain.send(chain.accounts.stranger, {
        address: factory,
        abi: factoryAbi(),
        functionName: 'forward',
        args: ['0x0000000000000000000000000000000000000000', checkoutSalt('T-ZERO'), usdc],
      }),
    ).rejects.toThrow(/ZeroMerchant|revert/);
  });
});
