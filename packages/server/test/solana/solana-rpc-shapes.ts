import { getBase58Decoder, getBase64Decoder } from '@solana/kit';
import {
  type AccountSnapshot,
  type CompiledInstructionRecord,
  isTokenProgram,
  type LedgerEntry,
  parseTokenAccount,
  type TokenBalanceRecord,
} from './solana-ledger.js';

// The JSON shapes of Solana's JSON-RPC answers (https://solana.com/docs/rpc), built from the ledger.
// Lamports and other u64 values stay bigints here: the server writes them as exact JSON numbers.

const base58 = getBase58Decoder();
const base64 = getBase64Decoder();

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const MEMO_PROGRAMS = new Set([
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]);

/** A token amount as `uiTokenAmount` / `tokenAmount` show it. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  // The validator divides as f64 and gives up (null) past 10^19, where usize overflows.
  const uiAmount = decimals <= 19 ? Number(amount) / 10 ** decimals : null;
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return {
    amount: amount.toString(),
    decimals,
    uiAmount,
    uiAmountString: fraction ? `${whole}.${fraction}` : whole,
  };
}

function tokenBalances(balances: TokenBalanceRecord[]) {
  return balances.map((each) => ({
    accountIndex: each.accountIndex,
    mint: each.mint,
    owner: each.owner,
    programId: each.programId,
    uiTokenAmount: uiTokenAmount(each.amount, each.decimals),
  }));
}

/**
 * The memo field of getSignaturesForAddress: each memo instruction's text as `[length] text`,
 * joined by "; ", null when there is none (the validator's extract_and_fmt_memos).
 */
export function memoOf(entry: LedgerEntry): string | null {
  const memos = entry.instructions
    .filter((instruction) => MEMO_PROGRAMS.has(entry.accountKeys[instruction.programIdIndex] ?? ''))
    .map((instruction) => {
      const text = new TextDecoder().decode(instruction.data);
      return `[${Buffer.byteLength(text)}] ${text}`;
    });
  return memos.length > 0 ? memos.join('; ') : null;
}

/** getTransaction's result for `encoding` ('json', 'jsonParsed', 'base64' or 'base58'). */
export function renderTransaction(entry: LedgerEntry, encoding: 'json' | 'jsonParsed' | 'base64' | 'base58') {
  const parsed = encoding === 'jsonParsed';
  const instruction = (each: CompiledInstructionRecord) =>
    parsed
      ? parseInstruction(entry, each)
      : {
          programIdIndex: each.programIdIndex,
          accounts: each.accounts,
          data: base58.decode(each.data),
          stackHeight: each.stackHeight,
        };
  const lookups = entry.version === 0 ? { addressTableLookups: [] } : {};
  let transaction: unknown;
  if (encoding === 'base64') transaction = [base64.decode(entry.wire), 'base64'];
  else if (encoding === 'base58') transaction = [base58.decode(entry.wire), 'base58'];
  else if (parsed) {
    transaction = {
      signatures: entry.signatures,
      message: {
        accountKeys: entry.accountKeys.map((pubkey, index) => ({
          pubkey,
          signer: index < entry.header.numRequiredSignatures,
          writable: entry.writable[index] ?? false,
          source: 'transaction',
        })),
        recentBlockhash: entry.recentBlockhash,
        instructions: entry.instructions.map(instruction),
        ...lookups,
      },
    };
  } else {
    transaction = {
      signatures: entry.signatures,
      message: {
        accountKeys: entry.accountKeys,
        header: entry.header,
        recentBlockhash: entry.recentBlockhash,
        instructions: entry.instructions.map(instruction),
        ...lookups,
      },
    };
  }
  return {
    slot: entry.slot,
    blockTime: entry.blockTime,
    version: entry.version,
    meta: {
      err: entry.err,
      status: entry.err === null ? { Ok: null } : { Err: entry.err },
      fee: entry.fee,
      preBalances: entry.pre.map((account) => account?.lamports ?? 0n),
      postBalances: entry.post.map((account) => account?.lamports ?? 0n),
      innerInstructions: entry.innerInstructions.map((inner) => ({
        index: inner.index,
        instructions: inner.instructions.map(instruction),
      })),
      logMessages: entry.logMessages,
      preTokenBalances: tokenBalances(entry.preTokenBalances),
      postTokenBalances: tokenBalances(entry.postTokenBalances),
      rewards: [],
      // jsonParsed names each key's source in the message instead.
      ...(parsed ? {} : { loadedAddresses: { writable: [], readonly: [] } }),
      computeUnitsConsumed: entry.computeUnitsConsumed,
    },
    transaction,
  };
}

/**
 * An instruction as jsonParsed shows it: decoded for the programs a payment uses (system transfer
 * and createAccount, SPL Token transfer and transferChecked, associated token account creation,
 * memo), "partially decoded" (account addresses, base58 data) for the rest.
 */
function parseInstruction(entry: LedgerEntry, instruction: CompiledInstructionRecord) {
  const programId = entry.accountKeys[instruction.programIdIndex] ?? '';
  const accounts = instruction.accounts.map((index) => entry.accountKeys[index] ?? '');
  const data = instruction.data;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const stackHeight = instruction.stackHeight;
  const decoded = (program: string, parsed: unknown) => ({ parsed, program, programId, stackHeight });
  if (programId === SYSTEM_PROGRAM && data.length >= 4) {
    const kind = view.getUint32(0, true);
    if (kind === 2 && data.length >= 12 && accounts.length >= 2) {
      return decoded('system', {
        info: { destination: accounts[1], lamports: view.getBigUint64(4, true), source: accounts[0] },
        type: 'transfer',
      });
    }
    if (kind === 0 && data.length >= 52 && accounts.length >= 2) {
      return decoded('system', {
        info: {
          lamports: view.getBigUint64(4, true),
          newAccount: accounts[1],
          owner: base58.decode(data.subarray(20, 52)),
          source: accounts[0],
          space: view.getBigUint64(12, true),
        },
        type: 'createAccount',
      });
    }
  }
  if (isTokenProgram(programId)) {
    // A transfer's authority is followed by the multisig signers, if any: the validator's parser
    // reads every extra account (a Solana Pay reference too) as a signer of a multisig authority.
    const authority = (index: number) =>
      accounts.length > index + 1
        ? { multisigAuthority: accounts[index], signers: accounts.slice(index + 1) }
        : { authority: accounts[index] };
    if (data[0] === 3 && data.length >= 9 && accounts.length >= 3) {
      return decoded('spl-token', {
        info: {
          source: accounts[0],
          destination: accounts[1],
          amount: view.getBigUint64(1, true).toString(),
          ...authority(2),
        },
        type: 'transfer',
      });
    }
    if (data[0] === 12 && data.length >= 10 && accounts.length >= 4) {
      return decoded('spl-token', {
        info: {
          source: accounts[0],
          mint: accounts[1],
          destination: accounts[2],
          tokenAmount: uiTokenAmount(view.getBigUint64(1, true), data[9] ?? 0),
          ...authority(3),
        },
        type: 'transferChecked',
      });
    }
  }
  if (programId === ASSOCIATED_TOKEN_PROGRAM && (data.length === 0 || data[0] === 0 || data[0] === 1)) {
    return decoded('spl-associated-token-account', {
      info: {
        account: accounts[1],
        mint: accounts[3],
        source: accounts[0],
        systemProgram: accounts[4],
        tokenProgram: accounts[5],
        wallet: accounts[2],
      },
      type: data[0] === 1 ? 'createIdempotent' : 'create',
    });
  }
  if (MEMO_PROGRAMS.has(programId)) return decoded('spl-memo', new TextDecoder().decode(data));
  return { accounts, data: base58.decode(data), programId, stackHeight };
}

/**
 * getAccountInfo's value. `encoding` undefined is the legacy 'binary' (a bare base58 string);
 * jsonParsed decodes SPL token accounts and mints and falls back to base64 for anything else, as
 * a validator does.
 * @throws RangeError for base58 of more than 128 bytes (the validator refuses it too).
 */
export function renderAccount(
  account: AccountSnapshot,
  data: Uint8Array,
  encoding: 'base58' | 'base64' | 'jsonParsed' | undefined,
  mintDecimals: (mint: string) => number | null,
) {
  let rendered: unknown;
  const parsed = encoding === 'jsonParsed' ? parseTokenProgramAccount(account, data, mintDecimals) : null;
  if (parsed) rendered = parsed;
  else if (encoding === 'base64' || encoding === 'jsonParsed') rendered = [base64.decode(data), 'base64'];
  else {
    if (data.length > 128) {
      throw new RangeError(
        'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
      );
    }
    rendered = encoding === 'base58' ? [base58.decode(data), 'base58'] : base58.decode(data);
  }
  return {
    data: rendered,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    // Accounts are rent-exempt: the validator reports u64::MAX.
    rentEpoch: 18_446_744_073_709_551_615n,
    space: data.length,
  };
}

function parseTokenProgramAccount(
  account: AccountSnapshot,
  data: Uint8Array,
  mintDecimals: (mint: string) => number | null,
) {
  if (!isTokenProgram(account.owner)) return null;
  const program =
    account.owner === 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' ? 'spl-token' : 'spl-token-2022';
  const token = parseTokenAccount(account);
  if (token) {
    const decimals = mintDecimals(token.mint);
    if (decimals === null) return null;
    return {
      program,
      parsed: {
        info: {
          isNative: data[109] === 1,
          mint: token.mint,
          owner: token.owner,
          state: data[108] === 2 ? 'frozen' : 'initialized',
          tokenAmount: uiTokenAmount(token.amount, decimals),
        },
        type: 'account',
      },
      space: data.length,
    };
  }
  if (data.length === 82 && data[45] === 1) {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const optionalKey = (offset: number) =>
      view.getUint32(offset, true) === 1 ? base58.decode(data.subarray(offset + 4, offset + 36)) : null;
    return {
      program,
      parsed: {
        info: {
          decimals: data[44],
          freezeAuthority: optionalKey(46),
          isInitialized: true,
          mintAuthority: optionalKey(0),
          supply: view.getBigUint64(36, true).toString(),
        },
        type: 'mint',
      },
      space: data.length,
    };
  }
  return null;
}
