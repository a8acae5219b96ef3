import {
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SolanaTestChain, startSolanaTestChain } from './solana-test-chain.js';

interface RpcAnswer<T> {
  jsonrpc: '2.0';
  id: unknown;
  result?: T;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  memo: string | null;
  blockTime: number;
  confirmationStatus: 'confirmed' | 'finalized';
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

interface TransactionJson {
  slot: number;
  blockTime: number;
  version: 'legacy' | 0;
  meta: {
    err: unknown;
    status: unknown;
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances: TokenBalance[];
    postTokenBalances: TokenBalance[];
    innerInstructions: { index: number; instructions: { stackHeight: number }[] }[];
    logMessages: string[];
    loadedAddresses: { writable: string[]; readonly: string[] };
    computeUnitsConsumed: number;
  };
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header: {
        numRequiredSignatures: number;
        numReadonlySignedAccounts: number;
        numReadonlyUnsignedAccounts: number;
      };
      recentBlockhash: string;
      instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: null }[];
    };
  };
}

const USDC_MAINNET = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

let chain: SolanaTestChain;
let mint: string;
let payer: KeyPairSigner;

async function call<T>(method: string, params: unknown[] = [], url = chain.rpcUrl): Promise<RpcAnswer<T>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as RpcAnswer<T>;
}

async function result<T>(method: string, params: unknown[] = [], url = chain.rpcUrl): Promise<T> {
  const answer = await call<T>(method, params, url);
  if (answer.error) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result as T;
}

const signaturesFor = (owner: string, options: Record<string, unknown> = {}) =>
  result<SignatureInfo[]>('getSignaturesForAddress', [owner, { commitment: 'confirmed', ...options }]);

const transaction = (signature: string, options: Record<string, unknown> = {}) =>
  result<TransactionJson | null>('getTransaction', [
    signature,
    { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0, ...options },
  ]);

const statuses = (signatures: string[]) =>
  result<{
    context: { slot: number };
    value: ({
      slot: number;
      confirmations: number | null;
      err: unknown;
      confirmationStatus: string;
    } | null)[];
  }>('getSignatureStatuses', [signatures, { searchTransactionHistory: true }]);

/** A compute budget instruction: 2 sets the unit limit (u32), 3 the price in micro-lamports a unit (u64). */
function computeBudget(kind: 2 | 3, value: bigint): Instruction {
  const data = new Uint8Array(kind === 2 ? 5 : 9);
  data[0] = kind;
  if (kind === 2) new DataView(data.buffer).setUint32(1, Number(value), true);
  else new DataView(data.buffer).setBigUint64(1, value, true);
  return { programAddress: address('ComputeBudget111111111111111111111111111111'), accounts: [], data };
}

/** A SOL transfer signed here and sent as a wallet would, through the endpoint. */
async function signedTransfer(
  from: KeyPairSigner,
  to: string,
  lamports: bigint,
  blockhash?: string,
  budget: Instruction[] = [],
): Promise<string> {
  const latest = await result<{ value: { blockhash: string; lastValidBlockHeight: number } }>(
    'getLatestBlockhash',
    [{ commitment: 'confirmed' }],
  );
  const message = appendTransactionMessageInstructions(
    [...budget, getTransferSolInstruction({ source: from, destination: address(to), amount: lamports })],
    setTransactionMessageLifetimeUsingBlockhash(
      {
        blockhash: (blockhash ?? latest.value.blockhash) as Blockhash,
        lastValidBlockHeight: BigInt(latest.value.lastValidBlockHeight),
      },
      setTransactionMessageFeePayerSigner(from, createTransactionMessage({ version: 'legacy' })),
    ),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message));
}

beforeAll(async () => {
  chain = await startSolanaTestChain();
  mint = await chain.createMint();
  payer = await chain.newWallet();
  await chain.mintTo(mint, payer.address, 1_000_000_000n); // 1,000 tokens
  chain.finalize();
});

afterAll(async () => {
  await chain?.stop();
});

describe('SolanaTestChain: payments and their history', () => {
  it('lists a token payment with a reference for the recipient token account, the recipient wallet and the reference', async () => {
    const merchant = await chain.randomAddress();
    const reference = await chain.randomAddress();
    const merchantAccount = await chain.associatedTokenAccount(merchant, mint);
    const signature = await chain.payToken({
      payer,
      recipient: merchant,
      mint,
      amount: 12_500_000n,
      references: [reference],
    });

    for (const owner of [merchantAccount, merchant, reference]) {
      const listed = await signaturesFor(owner);
      expect(listed.map((each) => each.signature)).toEqual([signature]);
      expect(listed[0]).toMatchObject({
        slot: chain.slot(),
        err: null,
        memo: null,
        confirmationStatus: 'confirmed',
      });
    }
    // Not final yet: the default (finalized) listing leaves it out until the chain finalizes it.
    expect(await result('getSignaturesForAddress', [reference])).toEqual([]);
    chain.finalize();
    const final = await result<SignatureInfo[]>('getSignaturesForAddress', [reference]);
    expect(final).toMatchObject([{ signature, confirmationStatus: 'finalized' }]);

    // Without the recipient's account created in the transaction, the wallet is not named.
    const unnamed = await chain.randomAddress();
    await chain.mintTo(mint, unnamed, 1n);
    const second = await chain.payToken({
      payer,
      recipient: unnamed,
      mint,
      amount: 1n,
      createRecipientAccount: false,
    });
    expect((await signaturesFor(unnamed)).map((each) => each.signature)).not.toContain(second);
    expect(
      (await signaturesFor(await chain.associatedTokenAccount(unnamed, mint))).map((each) => each.signature),
    ).toContain(second);
    expect(chain.tokenBalance(unnamed, mint)).toBe(2n);
  });

  it('shows the balance changes and the reference key in getTransaction', async () => {
    const merchant = await chain.randomAddress();
    const reference = await chain.randomAddress();
    const payerAccount = await chain.associatedTokenAccount(payer.address, mint);
    const merchantAccount = await chain.associatedTokenAccount(merchant, mint);
    const payerTokensBefore = chain.tokenBalance(payer.address, mint);
    const lamportsBefore = chain.solBalance(payer.address);
    const signature = await chain.payToken({
      payer,
      recipient: merchant,
      mint,
      amount: 2_500_000n,
      references: [reference],
    });

    const found = await transaction(signature);
    expect(found).not.toBeNull();
    const { meta, transaction: sent, version, slot, blockTime } = found!;
    expect(version).toBe(0);
    expect(slot).toBe(chain.slot());
    expect(Math.abs(blockTime - Date.now() / 1000)).toBeLessThan(60);
    expect(sent.signatures[0]).toBe(signature);
    expect(meta).toMatchObject({
      err: null,
      status: { Ok: null },
      fee: 5000,
      loadedAddresses: { writable: [], readonly: [] },
    });
    expect(meta.computeUnitsConsumed).toBeGreaterThan(0);
    expect(meta.logMessages.at(-1)).toBe(`Program ${TOKEN_PROGRAM} success`);
    // Creating the merchant's account runs the token and system programs inside the associated token program.
    expect(meta.innerInstructions).toHaveLength(1);
    expect(meta.innerInstructions[0]).toMatchObject({
      index: 0,
      instructions: [{ stackHeight: 2 }, {}, {}, {}],
    });

    const keys = sent.message.accountKeys;
    expect(keys[0]).toBe(payer.address);
    expect(sent.message.header.numRequiredSignatures).toBe(1);
    const transfer = sent.message.instructions.at(-1)!;
    expect(keys[transfer.programIdIndex]).toBe(TOKEN_PROGRAM);
    expect(transfer.stackHeight).toBeNull();
    // source, mint, destination, authority, then the reference as a read-only key.
    expect(transfer.accounts.map((index) => keys[index])).toEqual([
      payerAccount,
      mint,
      merchantAccount,
      payer.address,
      reference,
    ]);
    const referenceIndex = keys.indexOf(reference);
    expect(referenceIndex).toBeGreaterThanOrEqual(
      keys.length - sent.message.header.numReadonlyUnsignedAccounts,
    );

    const merchantIndex = keys.indexOf(merchantAccount);
    // The merchant's account did not exist before: only a post balance.
    expect(meta.preTokenBalances.find((each) => each.accountIndex === merchantIndex)).toBeUndefined();
    expect(meta.postTokenBalances.find((each) => each.accountIndex === merchantIndex)).toEqual({
      accountIndex: merchantIndex,
      mint,
      owner: merchant,
      programId: TOKEN_PROGRAM,
      uiTokenAmount: { amount: '2500000', decimals: 6, uiAmount: 2.5, uiAmountString: '2.5' },
    });
    const payerIndex = keys.indexOf(payerAccount);
    const payerBefore = meta.preTokenBalances.find((each) => each.accountIndex === payerIndex)!;
    const payerAfter = meta.postTokenBalances.find((each) => each.accountIndex === payerIndex)!;
    expect(BigInt(payerBefore.uiTokenAmount.amount)).toBe(payerTokensBefore);
    expect(BigInt(payerBefore.uiTokenAmount.amount) - BigInt(payerAfter.uiTokenAmount.amount)).toBe(
      2_500_000n,
    );
    // The payer paid the fee and the rent of the merchant's new account.
    const rent = await result<number>('getMinimumBalanceForRentExemption', [165]);
    expect(meta.preBalances[0]).toBe(Number(lamportsBefore));
    expect(meta.preBalances[0]! - meta.postBalances[0]!).toBe(5000 + rent);
    expect(meta.postBalances[merchantIndex]).toBe(rent);
    expect(meta.preBalances[referenceIndex]).toBe(0);

    // The helpers, getTokenAccountBalance and kit's address derivation agree.
    expect(chain.tokenBalance(merchant, mint)).toBe(2_500_000n);
    const balance = await result<{ value: { amount: string; uiAmountString: string } }>(
      'getTokenAccountBalance',
      [merchantAccount, { commitment: 'confirmed' }],
    );
    expect(balance.value).toMatchObject({ amount: '2500000', uiAmountString: '2.5' });

    // Version 0 needs maxSupportedTransactionVersion; finalized does not show it yet.
    const refused = await call('getTransaction', [signature, { encoding: 'json', commitment: 'confirmed' }]);
    expect(refused.error?.code).toBe(-32015);
    expect(await transaction(signature, { commitment: 'finalized' })).toBeNull();
    expect(await transaction('1'.repeat(88))).toBeNull();
  });

  it('answers jsonParsed with the account keys and the decoded transfer', async () => {
    const merchant = await chain.randomAddress();
    const reference = await chain.randomAddress();
    const signature = await chain.payToken({
      payer,
      recipient: merchant,
      mint,
      amount: 1_000_000n,
      references: [reference],
      memo: 'order 42',
    });
    const parsed = await result<{
      meta: Record<string, unknown>;
      transaction: {
        message: {
          accountKeys: { pubkey: string; signer: boolean; writable: boolean; source: string }[];
          instructions: { program?: string; parsed?: { type: string; info: Record<string, unknown> } }[];
        };
      };
    }>('getTransaction', [
      signature,
      { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
    const keys = parsed.transaction.message.accountKeys;
    expect(keys[0]).toEqual({ pubkey: payer.address, signer: true, writable: true, source: 'transaction' });
    expect(keys.find((each) => each.pubkey === reference)).toEqual({
      pubkey: reference,
      signer: false,
      writable: false,
      source: 'transaction',
    });
    const [create, memo, transfer] = parsed.transaction.message.instructions;
    expect(create).toMatchObject({
      program: 'spl-associated-token-account',
      parsed: { type: 'createIdempotent', info: { wallet: merchant, mint } },
    });
    expect(memo).toMatchObject({ program: 'spl-memo', parsed: 'order 42' });
    // The validator's parser takes keys after the authority for multisig signers: a reference shows there.
    expect(transfer).toMatchObject({
      program: 'spl-token',
      parsed: {
        type: 'transferChecked',
        info: {
          mint,
          multisigAuthority: payer.address,
          signers: [reference],
          tokenAmount: { amount: '1000000', decimals: 6 },
        },
      },
    });
    expect(parsed.meta).not.toHaveProperty('loadedAddresses');
    expect((await signaturesFor(reference))[0]?.memo).toBe('[8] order 42');
  });

  it('answers getSignatureStatuses confirmed, then finalized, and null for unknown signatures', async () => {
    const signature = await chain.paySol({
      payer,
      recipient: await chain.randomAddress(),
      lamports: 1_000_000n,
    });
    const landedAt = chain.slot();
    chain.advanceSlots(3);
    const unknown = '1'.repeat(88);
    const before = await statuses([signature, unknown]);
    expect(before.context.slot).toBe(landedAt + 3);
    expect(before.value).toEqual([
      { slot: landedAt, confirmations: 3, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' },
      null,
    ]);
    chain.finalize();
    expect(chain.finalizedSlot()).toBe(chain.slot());
    expect((await statuses([signature])).value[0]).toMatchObject({
      confirmations: null,
      confirmationStatus: 'finalized',
    });
    expect(await result('getSlot', [{ commitment: 'finalized' }])).toBe(chain.slot());
  });

  it('pages getSignaturesForAddress newest first with before and until, and follows a node for unknown ones', async () => {
    const tag = await chain.randomAddress();
    const signatures: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      signatures.push(
        await chain.paySol({
          payer,
          recipient: await chain.randomAddress(),
          lamports: 1_000_000n,
          references: [tag],
        }),
      );
    }
    const newestFirst = [...signatures].reverse();
    const page = async (options: Record<string, unknown>) =>
      (await signaturesFor(tag, options)).map((each) => each.signature);
    expect(await page({})).toEqual(newestFirst);
    expect(await page({ limit: 2 })).toEqual(newestFirst.slice(0, 2));
    expect(await page({ limit: 2, before: newestFirst[1] })).toEqual(newestFirst.slice(2, 4));
    expect(await page({ until: newestFirst[3] })).toEqual(newestFirst.slice(0, 3));
    expect(await page({ before: newestFirst[0], until: newestFirst[3] })).toEqual(newestFirst.slice(1, 3));
    // A `before` the node does not know gives nothing; an unknown `until` is no stop.
    const unknown = '1'.repeat(88);
    expect(await page({ before: unknown })).toEqual([]);
    expect(await page({ until: unknown })).toEqual(newestFirst);
    // At finalized, a confirmed-only `before` is unknown too.
    expect(await page({ commitment: 'finalized', before: newestFirst[0] })).toEqual([]);
    expect((await call('getSignaturesForAddress', [tag, { limit: 1001 }])).error?.code).toBe(-32602);
    expect(
      (await call('getSignaturesForAddress', [tag, { commitment: 'processed' }])).error?.message,
    ).toMatch(/below `confirmed`/);
  });

  it('shows a dropLater transaction at confirmed only, and drop() makes it vanish with its balances', async () => {
    const merchant = await chain.randomAddress();
    const reference = await chain.randomAddress();
    const payerTokens = chain.tokenBalance(payer.address, mint);
    const payerLamports = chain.solBalance(payer.address);
    const signature = await chain.payToken({
      payer,
      recipient: merchant,
      mint,
      amount: 3_000_000n,
      references: [reference],
      dropLater: true,
    });

    expect((await signaturesFor(reference)).map((each) => each.signature)).toEqual([signature]);
    expect((await statuses([signature])).value[0]).toMatchObject({
      confirmationStatus: 'confirmed',
      err: null,
    });
    const shown = await transaction(signature);
    expect(shown?.meta.postTokenBalances.find((each) => each.owner === merchant)?.uiTokenAmount.amount).toBe(
      '3000000',
    );
    expect(chain.tokenBalance(merchant, mint)).toBe(3_000_000n);
    expect(chain.tokenBalance(payer.address, mint)).toBe(payerTokens - 3_000_000n);
    const merchantAccount = await chain.associatedTokenAccount(merchant, mint);
    const confirmedBalance = await result<{ value: { amount: string } }>('getTokenAccountBalance', [
      merchantAccount,
      { commitment: 'confirmed' },
    ]);
    expect(confirmedBalance.value.amount).toBe('3000000');

    // It never finalizes, while a later canonical payment from the same payer does.
    const later = await chain.paySol({ payer, recipient: await chain.randomAddress(), lamports: 1_000_000n });
    chain.finalize();
    expect((await statuses([signature, later])).value.map((each) => each?.confirmationStatus)).toEqual([
      'confirmed',
      'finalized',
    ]);
    expect(await result('getSignaturesForAddress', [reference])).toEqual([]);
    expect(await transaction(signature, { commitment: 'finalized' })).toBeNull();
    expect(chain.tokenBalance(merchant, mint, 'finalized')).toBe(0n);

    chain.drop(signature);
    expect(await signaturesFor(reference)).toEqual([]);
    expect(await signaturesFor(merchant)).toEqual([]);
    expect((await statuses([signature])).value).toEqual([null]);
    expect(await transaction(signature)).toBeNull();
    expect(chain.tokenBalance(merchant, mint)).toBe(0n);
    expect(chain.tokenBalance(payer.address, mint)).toBe(payerTokens);
    // Only the later transfer's amount and fee left the payer.
    expect(chain.solBalance(payer.address)).toBe(payerLamports - 1_000_000n - 5_000n);
    expect(
      (await call('getTokenAccountBalance', [merchantAccount, { commitment: 'confirmed' }])).error?.code,
    ).toBe(-32602);
    expect(() => chain.drop(signature)).toThrow(/unknown/);
    expect(() => chain.drop(later)).toThrow(/dropLater/);
  });

  it('lists a failed transfer with its error; only the fee is paid', async () => {
    const merchant = await chain.randomAddress();
    await chain.mintTo(mint, merchant, 1n); // the merchant's account exists: creating it again costs nothing
    const poor = await chain.newWallet(100_000_000n);
    await chain.mintTo(mint, poor.address, 5n);
    const slot = chain.slot();
    await expect(chain.payToken({ payer: poor, recipient: merchant, mint, amount: 10n })).rejects.toThrow(
      /custom program error: 0x1/,
    );
    expect(chain.slot()).toBe(slot); // the preflight kept it off the chain

    const signature = await chain.payToken({
      payer: poor,
      recipient: merchant,
      mint,
      amount: 10n,
      allowFailure: true,
    });
    const error = { InstructionError: [1, { Custom: 1 }] }; // SPL Token: insufficient funds
    expect(await signaturesFor(merchant)).toMatchObject([{ signature, err: error }, {}]);
    const failed = await transaction(signature);
    expect(failed?.meta).toMatchObject({ err: error, status: { Err: error }, fee: 5000 });
    expect(failed!.meta.preBalances[0]! - failed!.meta.postBalances[0]!).toBe(5000);
    expect(failed!.meta.postTokenBalances).toEqual(failed!.meta.preTokenBalances);
    expect(chain.solBalance(poor.address)).toBe(100_000_000n - 5_000n);
    expect(chain.tokenBalance(poor.address, mint)).toBe(5n);
    expect(chain.tokenBalance(merchant, mint)).toBe(1n);
    expect((await statuses([signature])).value[0]).toMatchObject({ err: error, status: { Err: error } });
  });

  it('creates a mint at a given address (mainnet USDC) that pays like any other', async () => {
    const usdc = await chain.createMint({ at: USDC_MAINNET });
    expect(usdc).toBe(USDC_MAINNET);
    await expect(chain.createMint({ at: USDC_MAINNET })).rejects.toThrow(/exists/);
    const buyer = await chain.newWallet();
    const merchant = await chain.randomAddress();
    await chain.mintTo(usdc, buyer.address, 50_000_000n);
    await chain.payToken({ payer: buyer, recipient: merchant, mint: usdc, amount: 49_990_000n });
    expect(chain.tokenBalance(merchant, usdc)).toBe(49_990_000n);
    expect(chain.tokenBalance(buyer.address, usdc)).toBe(10_000n);
    const info = await result<{
      value: {
        owner: string;
        data: { parsed: { type: string; info: { decimals: number; supply: string } } };
      };
    }>('getAccountInfo', [usdc, { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    expect(info.value).toMatchObject({
      owner: TOKEN_PROGRAM,
      data: { parsed: { type: 'mint', info: { decimals: 6, supply: '50000000' } } },
    });
  });

  it('takes wallet transactions through sendTransaction, with preflight, expiry and duplicates as a node answers them', async () => {
    const sender = await chain.newWallet(1_000_000_000n);
    const recipient = await chain.randomAddress();
    const wire = await signedTransfer(sender, recipient, 250_000_000n);
    const signature = await result<string>('sendTransaction', [wire, { encoding: 'base64' }]);
    const sent = await transaction(signature, { maxSupportedTransactionVersion: undefined });
    expect(sent).toMatchObject({ version: 'legacy', meta: { err: null } });
    expect(sent?.meta.postBalances[1]).toBe(250_000_000);
    const balance = await result<{ context: { slot: number }; value: number }>('getBalance', [
      recipient,
      { commitment: 'confirmed' },
    ]);
    expect(balance.value).toBe(250_000_000);
    // Not final yet: finalized still shows the account as it was.
    expect((await result<{ value: number }>('getBalance', [recipient])).value).toBe(0);

    const again = await call('sendTransaction', [wire, { encoding: 'base64' }]);
    expect(again.error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });

    const tooMuch = await signedTransfer(sender, recipient, 10_000_000_000n);
    const refused = await call('sendTransaction', [tooMuch, { encoding: 'base64' }]);
    expect(refused.error).toMatchObject({
      code: -32002,
      data: { err: { InstructionError: [0, { Custom: 1 }] } },
    });
    expect(refused.error?.message).toMatch(/^Transaction simulation failed: Error processing Instruction 0/);
    const landedAnyway = await result<string>('sendTransaction', [
      tooMuch,
      { encoding: 'base64', skipPreflight: true },
    ]);
    expect((await statuses([landedAnyway])).value[0]).toMatchObject({
      err: { InstructionError: [0, { Custom: 1 }] },
    });

    // A blockhash lasts 150 slots.
    const stale = await signedTransfer(sender, recipient, 1n);
    chain.advanceSlots(151);
    const expired = await call('sendTransaction', [stale, { encoding: 'base64' }]);
    expect(expired.error).toMatchObject({ code: -32002, data: { err: 'BlockhashNotFound' } });
    const garbage = await call('sendTransaction', [
      Buffer.from('not a transaction').toString('base64'),
      { encoding: 'base64' },
    ]);
    expect(garbage.error?.code).toBe(-32602);
    const unknownBlockhash = await signedTransfer(sender, recipient, 1n, '11111111111111111111111111111111');
    expect(
      (await call('sendTransaction', [unknownBlockhash, { encoding: 'base64' }])).error?.data?.['err'],
    ).toBe('BlockhashNotFound');
  });
});

describe('SolanaTestChain: fees and clients', () => {
  it('reports the fee the runtime charged, priority fees included', async () => {
    const sender = await chain.newWallet(1_000_000_000n);
    const recipient = await chain.randomAddress();
    const cases: [Instruction[], number][] = [
      [[], 5_000],
      // 20,000 units at 0.5 lamports each.
      [[computeBudget(2, 20_000n), computeBudget(3, 500_000n)], 5_000 + 10_000],
      // No limit set: two builtin instructions reserve 3,000 units each, at 1 lamport each.
      [[computeBudget(3, 1_000_000n)], 5_000 + 6_000],
    ];
    for (const [budget, fee] of cases) {
      const wire = await signedTransfer(sender, recipient, 1_000_000n, undefined, budget);
      const signature = await result<string>('sendTransaction', [wire, { encoding: 'base64' }]);
      const { meta } = (await transaction(signature))!;
      expect(meta.fee).toBe(fee);
      expect(meta.preBalances[0]! - meta.postBalances[0]!).toBe(fee + 1_000_000);
    }
  });

  it("serves kit's own RPC client", async () => {
    const client = createSolanaRpc(chain.rpcUrl);
    const sender = await chain.newWallet(1_000_000_000n);
    const recipient = await chain.randomAddress();
    const wire = await signedTransfer(sender, recipient, 2_000_000n);
    const signature = await client
      .sendTransaction(wire as Parameters<typeof client.sendTransaction>[0], { encoding: 'base64' })
      .send();
    const found = await client
      .getTransaction(signature, {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    expect(found?.meta?.postBalances[1]).toBe(2_000_000n);
    const listed = await client
      .getSignaturesForAddress(address(recipient), { commitment: 'confirmed', limit: 10 })
      .send();
    expect(listed.map((each) => each.signature)).toEqual([signature]);
    expect(await client.getSlot({ commitment: 'confirmed' }).send()).toBe(BigInt(chain.slot()));
    const account = await client
      .getAccountInfo(address(recipient), { commitment: 'confirmed', encoding: 'base64' })
      .send();
    expect(account.value).toMatchObject({
      lamports: 2_000_000n,
      owner: '11111111111111111111111111111111',
      executable: false,
    });
  });
});

describe('SolanaTestChain: finality and the endpoint', () => {
  it('finalizes on its own after autoFinalizeSlots newer slots', async () => {
    const fast = await startSolanaTestChain({
      autoFinalizeSlots: 2,
      genesisHash: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
    });
    try {
      expect(await result('getGenesisHash', [], fast.rpcUrl)).toBe(
        '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
      );
      const wallet = await fast.newWallet();
      const signature = await fast.paySol({
        payer: wallet,
        recipient: await fast.randomAddress(),
        lamports: 1_000_000n,
      });
      const status = async () =>
        (
          await result<{ value: ({ confirmationStatus: string } | null)[] }>(
            'getSignatureStatuses',
            [[signature]],
            fast.rpcUrl,
          )
        ).value[0]?.confirmationStatus;
      expect(await status()).toBe('confirmed');
      fast.advanceSlots(1);
      expect(await status()).toBe('confirmed');
      fast.advanceSlots(1);
      expect(await status()).toBe('finalized');
      expect(await result('getSlot', [{ commitment: 'finalized' }], fast.rpcUrl)).toBe(fast.slot() - 2);
      expect(await result('getSlot', [{ commitment: 'confirmed' }], fast.rpcUrl)).toBe(fast.slot());
      const height = await result<number>('getBlockHeight', [{ commitment: 'confirmed' }], fast.rpcUrl);
      expect(height).toBeLessThan(fast.slot());
    } finally {
      await fast.stop();
    }
  });

  it('answers batches, unknown methods, and counts calls', async () => {
    chain.rpc.resetCalls();
    const response = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'getSlot', params: [{ commitment: 'confirmed' }] },
        { jsonrpc: '2.0', id: 'b', method: 'getHealth' },
        { jsonrpc: '2.0', id: 'c', method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 'd', method: 'getSlot' },
      ]),
    });
    const answers = (await response.json()) as RpcAnswer<unknown>[];
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 'a', result: chain.slot() },
      { jsonrpc: '2.0', id: 'b', result: 'ok' },
      { jsonrpc: '2.0', id: 'c', error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 'd', result: chain.finalizedSlot() },
    ]);
    expect(Object.fromEntries(chain.rpc.calls)).toEqual({ getSlot: 2, getHealth: 1, eth_blockNumber: 1 });
    const version = await result<Record<string, unknown>>('getVersion');
    expect(version['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    const latest = await result<{
      context: { slot: number };
      value: { blockhash: string; lastValidBlockHeight: number };
    }>('getLatestBlockhash');
    expect(latest.value.lastValidBlockHeight).toBe(
      (await result<number>('getBlockHeight', [{ commitment: 'confirmed' }])) + 150,
    );
    const parseError = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(((await parseError.json()) as RpcAnswer<unknown>).error?.code).toBe(-32700);
  });

  it('goes down (503 or a refused socket) and delays answers on request', async () => {
    chain.rpc.resetCalls();
    chain.rpc.down = true;
    try {
      const down = await fetch(chain.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] }),
      });
      expect(down.status).toBe(503);
      await down.text();
      chain.rpc.downMode = 'refuse';
      await expect(call('getSlot')).rejects.toThrow(/fetch failed/);
    } finally {
      chain.rpc.down = false;
      chain.rpc.downMode = 'error';
    }
    expect(chain.rpc.calls.get('getSlot')).toBe(2);

    chain.rpc.delayMs = 300;
    try {
      const started = performance.now();
      expect(await result('getHealth')).toBe('ok');
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      chain.rpc.delayMs = 0;
    }
  });
});
