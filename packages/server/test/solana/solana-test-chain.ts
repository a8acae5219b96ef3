import { createHash, randomBytes } from 'node:crypto';
import {
  AccountRole,
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  type Instruction,
  isOffCurveAddress,
  type KeyPairSigner,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  lamports as toLamports,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { type Commitment, parseTokenAccount, SolanaLedger } from './solana-ledger.js';
import { type SolanaRpcControls, startSolanaRpcServer } from './solana-rpc-server.js';

/**
 * A throw-away Solana chain for the Solana payment tests: a real SVM (litesvm, in process) running
 * real SPL Token and system transactions, the slots, commitment and transaction history a cluster
 * adds, and a switchable loopback JSON-RPC endpoint in front of it for the server under test.
 *
 * Each transaction lands in a slot of its own and is `confirmed` at once; it becomes `finalized` on
 * finalize() or, with `autoFinalizeSlots`, once that many newer slots exist. A transaction whose
 * program fails lands like on a cluster: listed, `meta.err` set, nothing changed but its fee paid.
 */
export interface SolanaTestChain {
  /** JSON-RPC URL the server is pointed at: http://127.0.0.1:<port>. */
  readonly rpcUrl: string;
  /** What getGenesisHash answers: random per chain unless the `genesisHash` option set it. */
  readonly genesisHash: string;
  /**
   * Creates an SPL Token mint (6 decimals by default) whose mint authority is the chain's own.
   * `at` places it at a given address (e.g. mainnet USDC EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v)
   * by writing the account directly: no transaction. Returns the mint address.
   * @throws when `at` holds an account already.
   */
  createMint(options?: { decimals?: number; at?: string }): Promise<string>;
  /** A new keypair signer holding `lamports` (10 SOL by default), funded outside any transaction. */
  newWallet(lamports?: bigint): Promise<KeyPairSigner>;
  /** A fresh random address (an unfunded wallet, a Solana Pay reference). */
  randomAddress(): Promise<string>;
  /** Mints `amount` base units to `owner`'s associated token account, creating the account (one transaction). */
  mintTo(mint: string, owner: string, amount: bigint): Promise<void>;
  /**
   * A Solana Pay transfer as wallets build it: transferChecked from the payer's associated token
   * account to the recipient wallet's, each reference (then each extra key) appended as a read-only
   * non-signer key of the transfer instruction. With `createRecipientAccount` (default true) the
   * recipient's account is created idempotently first, so the transaction names the recipient wallet
   * and is listed for it too. `toTokenAccount` sends the tokens to another token account (a wrong
   * recipient); the recipient's account is still created when asked. `memo` adds a memo instruction
   * before the transfer. Returns the signature.
   * @throws when the transaction fails (a wallet's preflight: nothing lands) unless `allowFailure`,
   * which lands it failed; always when a cluster would not take it (e.g. the payer cannot pay the fee).
   */
  payToken(request: TokenPayment): Promise<string>;
  /** A SOL transfer (system program) with the references, then extra keys, as read-only keys; as payToken otherwise. */
  paySol(request: SolPayment): Promise<string>;
  /** Base units in `owner`'s associated token account for `mint` at `commitment` (default confirmed); 0n when it is missing. */
  tokenBalance(owner: string, mint: string, commitment?: 'confirmed' | 'finalized'): bigint;
  /** Lamports of `address` at `commitment` (default confirmed); 0n when the account is missing. */
  solBalance(address: string, commitment?: 'confirmed' | 'finalized'): bigint;
  /** The associated token account of `owner` for `mint` (SPL Token program). */
  associatedTokenAccount(owner: string, mint: string): Promise<string>;
  /** The newest slot (confirmed). */
  slot(): number;
  finalizedSlot(): number;
  /** Everything landed so far becomes finalized (transactions sent with dropLater excepted). */
  finalize(): void;
  /** Produces `count` empty slots (auto-finalization follows them). */
  advanceSlots(count: number): void;
  /**
   * Drops a transaction sent with dropLater. Until then it shows at `confirmed` in every method
   * (listed, its status, getTransaction, balances) but is never applied to the canonical state and
   * never finalizes. Afterwards it is gone: null statuses, null getTransaction, absent from
   * signature lists, balances as if it had never been sent.
   * @throws when the signature is unknown or was not sent with dropLater.
   */
  drop(signature: string): void;
  /** Switches of the RPC endpoint and the calls it received. */
  readonly rpc: SolanaRpcControls;
  /** Closes the endpoint (open connections too). Calling it again waits for the first close. */
  stop(): Promise<void>;
}

/** What payToken and paySol share. */
interface Payment {
  payer: KeyPairSigner;
  /** The recipient wallet. */
  recipient: string;
  /** Solana Pay references: read-only non-signer keys of the transfer instruction, in this order. */
  references?: string[];
  /** More read-only keys after the references. */
  extraReadonlyKeys?: string[];
  /** An SPL Memo instruction placed right before the transfer, as Solana Pay puts it. */
  memo?: string;
  /** Land the transaction even when its program fails (it is listed with `err`, only the fee paid). */
  allowFailure?: boolean;
  /** Keep the transaction on a fork: see {@link SolanaTestChain.drop}. */
  dropLater?: boolean;
  /** Message version; default 0 (what wallets send today). */
  transactionVersion?: 'legacy' | 0;
}

/** An SPL token payment. */
export interface TokenPayment extends Payment {
  mint: string;
  /** Base units. */
  amount: bigint;
  /** Create the recipient's associated token account first (idempotent); default true. */
  createRecipientAccount?: boolean;
  /** The token account credited in place of the recipient's associated token account. */
  toTokenAccount?: string;
}

/** A SOL payment. */
export interface SolPayment extends Payment {
  lamports: bigint;
}

const DEFAULT_WALLET_LAMPORTS = 10_000_000_000n; // 10 SOL
const MINT_AUTHORITY_LAMPORTS = 1_000_000_000_000n; // 1,000 SOL: fees and rent for any test
const SYSTEM_PROGRAM = address('11111111111111111111111111111111');
const MEMO_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const MINT_SIZE = 82;

/**
 * Starts the chain and its loopback JSON-RPC endpoint.
 * @param options.autoFinalizeSlots a transaction finalizes once this many newer slots exist (0: at
 * once); unset, only finalize() finalizes.
 * @param options.genesisHash what getGenesisHash answers, e.g. mainnet's
 * 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d for a server that checks it; random by default.
 * @throws when the endpoint cannot listen on loopback.
 */
export async function startSolanaTestChain(
  options: { autoFinalizeSlots?: number; genesisHash?: string } = {},
): Promise<SolanaTestChain> {
  const ledger = new SolanaLedger(options.autoFinalizeSlots);
  const svm = ledger.svm;
  const genesisHash = options.genesisHash ?? getBase58Decoder().decode(randomBytes(32));
  const mintAuthority = await generateKeyPairSigner();
  fund(mintAuthority.address, MINT_AUTHORITY_LAMPORTS);

  const calls = new Map<string, number>();
  const rpc: SolanaRpcControls = {
    down: false,
    downMode: 'error',
    delayMs: 0,
    calls,
    resetCalls: () => calls.clear(),
  };
  const server = await startSolanaRpcServer(ledger, rpc, genesisHash);

  /** Writes a system account holding `lamports`: a faucet without a transaction. */
  function fund(owner: Address, lamports: bigint): void {
    svm.setAccount({
      address: owner,
      lamports: toLamports(lamports),
      data: new Uint8Array(),
      programAddress: SYSTEM_PROGRAM,
      executable: false,
      space: 0n,
    });
  }

  /** Signs `instructions` with a fresh blockhash and lands them; returns the signature. */
  async function send(
    feePayer: KeyPairSigner,
    instructions: Instruction[],
    sending: { allowFailure?: boolean; dropLater?: boolean; transactionVersion?: 'legacy' | 0 } = {},
  ): Promise<string> {
    const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
    const lifetime = {
      blockhash: blockhash as Blockhash,
      lastValidBlockHeight: BigInt(lastValidBlockHeight),
    };
    const message = appendTransactionMessageInstructions(
      instructions,
      setTransactionMessageLifetimeUsingBlockhash(
        lifetime,
        setTransactionMessageFeePayerSigner(
          feePayer,
          createTransactionMessage({ version: sending.transactionVersion ?? 0 }),
        ),
      ),
    );
    const transaction = await signTransactionMessageWithSigners(message);
    const submission = ledger.submit(transaction, {
      preflight: sending.allowFailure !== true,
      fork: sending.dropLater === true,
    });
    if (!submission.landed) {
      throw new Error(
        `the transaction did not land: ${submission.message}${submission.logs.map((line) => `\n  ${line}`).join('')}`,
      );
    }
    return submission.entry.signature;
  }

  const decimalsOf = (mint: string): number => {
    const decimals = ledger.mintDecimals(mint);
    if (decimals === null) throw new Error(`no SPL Token mint at ${mint}`);
    return decimals;
  };

  const associatedTokenAccount = async (owner: string, mint: string): Promise<Address> => {
    const [account] = await findAssociatedTokenPda({
      owner: address(owner),
      mint: address(mint),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    return account;
  };

  /** The references, then the extra keys, as read-only non-signer keys appended to `instruction`. */
  const withReadonlyKeys = (instruction: Instruction, payment: Payment): Instruction => ({
    ...instruction,
    accounts: [
      ...(instruction.accounts ?? []),
      ...[...(payment.references ?? []), ...(payment.extraReadonlyKeys ?? [])].map((key) => ({
        address: address(key),
        role: AccountRole.READONLY,
      })),
    ],
  });

  const memoInstructions = (payment: Payment): Instruction[] =>
    payment.memo === undefined
      ? []
      : [{ programAddress: MEMO_PROGRAM, accounts: [], data: new TextEncoder().encode(payment.memo) }];

  const balanceOf = (owner: string, commitment: Commitment) => ledger.account(owner, commitment);

  let stopped: Promise<void> | null = null;

  return {
    rpcUrl: server.url,
    genesisHash,
    rpc,

    async createMint(mintOptions = {}) {
      const decimals = mintOptions.decimals ?? 6;
      if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
        throw new RangeError(`decimals must be an integer in 0..255, got ${decimals}`);
      }
      const rent = svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE));
      if (mintOptions.at !== undefined) {
        const mint = address(mintOptions.at);
        if (svm.getAccount(mint).exists) throw new Error(`an account exists at ${mint} already`);
        // The SPL Token mint layout: mint authority (option), supply, decimals, initialized, freeze authority (option).
        const data = new Uint8Array(MINT_SIZE);
        new DataView(data.buffer).setUint32(0, 1, true);
        data.set(getAddressEncoder().encode(mintAuthority.address), 4);
        data[44] = decimals;
        data[45] = 1;
        svm.setAccount({
          address: mint,
          lamports: toLamports(rent),
          data,
          programAddress: TOKEN_PROGRAM_ADDRESS,
          executable: false,
          space: BigInt(MINT_SIZE),
        });
        return mint;
      }
      const mint = await generateKeyPairSigner();
      await send(mintAuthority, [
        getCreateAccountInstruction({
          payer: mintAuthority,
          newAccount: mint,
          lamports: rent,
          space: getMintSize(),
          programAddress: TOKEN_PROGRAM_ADDRESS,
        }),
        getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: mintAuthority.address }),
      ]);
      return mint.address;
    },

    async newWallet(lamports = DEFAULT_WALLET_LAMPORTS) {
      const wallet = await generateKeyPairSigner();
      if (lamports > 0n) fund(wallet.address, lamports);
      return wallet;
    },

    async randomAddress() {
      return getAddressDecoder().decode(randomBytes(32));
    },

    async mintTo(mint, owner, amount) {
      const decimals = decimalsOf(mint);
      const account = await associatedTokenAccount(owner, mint);
      await send(mintAuthority, [
        getCreateAssociatedTokenIdempotentInstruction({
          payer: mintAuthority,
          ata: account,
          owner: address(owner),
          mint: address(mint),
        }),
        getMintToCheckedInstruction({
          mint: address(mint),
          token: account,
          mintAuthority,
          amount,
          decimals,
        }),
      ]);
    },

    async payToken(request) {
      const decimals = decimalsOf(request.mint);
      const mint = address(request.mint);
      const recipientAccount = await associatedTokenAccount(request.recipient, request.mint);
      const instructions: Instruction[] = [];
      if (request.createRecipientAccount !== false) {
        instructions.push(
          getCreateAssociatedTokenIdempotentInstruction({
            payer: request.payer,
            ata: recipientAccount,
            owner: address(request.recipient),
            mint,
          }),
        );
      }
      const transfer = getTransferCheckedInstruction({
        source: await associatedTokenAccount(request.payer.address, request.mint),
        mint,
        destination:
          request.toTokenAccount === undefined ? recipientAccount : address(request.toTokenAccount),
        authority: request.payer,
        amount: request.amount,
        decimals,
      });
      instructions.push(...memoInstructions(request), withReadonlyKeys(transfer, request));
      return send(request.payer, instructions, request);
    },

    async paySol(request) {
      const transfer = getTransferSolInstruction({
        source: request.payer,
        destination: address(request.recipient),
        amount: request.lamports,
      });
      return send(
        request.payer,
        [...memoInstructions(request), withReadonlyKeys(transfer, request)],
        request,
      );
    },

    tokenBalance(owner, mint, commitment = 'confirmed') {
      const account = balanceOf(associatedTokenAccountSync(owner, mint), commitment);
      const token = account ? parseTokenAccount(account) : null;
      return token?.mint === mint ? token.amount : 0n;
    },

    solBalance(owner, commitment = 'confirmed') {
      return balanceOf(address(owner), commitment)?.lamports ?? 0n;
    },

    associatedTokenAccount,

    slot: () => ledger.slot(),
    finalizedSlot: () => ledger.finalizedSlot(),
    finalize: () => ledger.finalize(),
    advanceSlots: (count) => ledger.advanceSlots(count),
    drop: (signature) => ledger.drop(signature),

    stop() {
      stopped ??= server.close();
      return stopped;
    },
  };
}

/**
 * The associated token account address, computed synchronously (kit's findAssociatedTokenPda
 * hashes asynchronously): the first bump from 255 down whose hash is off the ed25519 curve.
 */
function associatedTokenAccountSync(owner: string, mint: string): Address {
  const encoder = getAddressEncoder();
  const seeds = [owner, TOKEN_PROGRAM_ADDRESS, mint].map((key) => encoder.encode(address(key)));
  for (let bump = 255; bump >= 0; bump -= 1) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(Uint8Array.from(seed));
    hash.update(Uint8Array.of(bump));
    hash.update(Uint8Array.from(encoder.encode(ASSOCIATED_TOKEN_PROGRAM_ADDRESS)));
    hash.update('ProgramDerivedAddress');
    const candidate = getAddressDecoder().decode(hash.digest());
    if (isOffCurveAddress(candidate)) return candidate;
  }
  throw new Error(`no associated token account for ${owner} and ${mint}`);
}
