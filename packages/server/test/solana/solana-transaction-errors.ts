import type { FailedTransactionMetadata } from 'litesvm';

/**
 * A transaction error as Solana's JSON-RPC writes it (serde's JSON of the validator's
 * `TransactionError`): a bare name such as `"BlockhashNotFound"`, or an object such as
 * `{"InstructionError":[0,{"Custom":1}]}`.
 */
export type RpcTransactionError = string | Record<string, unknown>;

// litesvm hands fieldless errors over as the index of the validator's enum variant. These lists
// follow litesvm 1.5's `TransactionErrorFieldless` and `InstructionErrorFieldless`, in order.
const transactionErrorNames = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

const instructionErrorNames = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

// The validator's own wording (its `Display`), for the errors a payment test meets; others read as
// their name. Only error messages use it: clients match on the JSON `err`, never on the text.
const transactionErrorTexts: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
  UnsupportedVersion: 'Transaction version is unsupported',
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
};

const instructionErrorTexts: Record<string, string> = {
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  IllegalOwner: 'Provided owner is not allowed',
};

type LiteSvmError = ReturnType<FailedTransactionMetadata['err']>;

/** The JSON-RPC form of the error litesvm reports for a failed transaction. */
export function rpcTransactionError(error: LiteSvmError): RpcTransactionError {
  if (typeof error === 'number') return transactionErrorNames[error] ?? `TransactionError${error}`;
  // litesvm's error classes are native (napi) classes with no common base; their names tell them apart.
  const kind = error.constructor.name;
  if ('err' in error && typeof error.err === 'function') {
    return { InstructionError: [error.index, rpcInstructionError(error.err())] };
  }
  if (kind.includes('DuplicateInstruction') && 'index' in error) return { DuplicateInstruction: error.index };
  if ('accountIndex' in error) {
    // serde writes these struct variants' field in snake case.
    const name = kind.includes('ProgramExecutionTemporarilyRestricted')
      ? 'ProgramExecutionTemporarilyRestricted'
      : 'InsufficientFundsForRent';
    return { [name]: { account_index: error.accountIndex } };
  }
  return kind;
}

function rpcInstructionError(error: unknown): RpcTransactionError {
  if (typeof error === 'number') return instructionErrorNames[error] ?? `InstructionError${error}`;
  if (error !== null && typeof error === 'object') {
    if ('code' in error) return { Custom: Number(error.code) };
    if ('msg' in error) return { BorshIoError: String(error.msg) };
  }
  return String(error);
}

/** Whether a failed transaction still makes it into a block (and pays its fee): a program failed. */
export function failsInsideBlock(error: RpcTransactionError): boolean {
  return typeof error !== 'string';
}

/** The validator's sentence for an error, as sendTransaction's preflight message quotes it. */
export function describeTransactionError(error: RpcTransactionError): string {
  if (typeof error === 'string') return transactionErrorTexts[error] ?? error;
  const instructionError = error['InstructionError'];
  if (Array.isArray(instructionError)) {
    const [index, inner] = instructionError as [number, RpcTransactionError];
    return `Error processing Instruction ${index}: ${describeInstructionError(inner)}`;
  }
  const rent = error['InsufficientFundsForRent'] as { account_index: number } | undefined;
  if (rent)
    return `Transaction results in an account (${rent.account_index}) with insufficient funds for rent`;
  return JSON.stringify(error);
}

function describeInstructionError(error: RpcTransactionError): string {
  if (typeof error === 'string') return instructionErrorTexts[error] ?? error;
  if (typeof error['Custom'] === 'number') return `custom program error: 0x${error['Custom'].toString(16)}`;
  return JSON.stringify(error);
}
