import {
  type Address,
  concat,
  encodeAbiParameters,
  getAddress,
  getContractAddress,
  type Hex,
  keccak256,
  numberToHex,
  stringToBytes,
} from 'viem';
import { compiledContracts } from './artifacts.js';

// OpenZeppelin 5's Clones.cloneDeterministicWithImmutableArgs: a 45-byte minimal proxy (EIP-1167)
// followed by the immutable arguments, behind a 10-byte constructor that copies it all into place.
const CLONE_CONSTRUCTOR_PREFIX = '0x61';
const CLONE_CONSTRUCTOR_SUFFIX = '0x3d81600a3d39f3363d3d373d3d3d363d73';
const CLONE_RUNTIME_SUFFIX = '0x5af43d82803e903d91602b57fd5bf3';
const CLONE_RUNTIME_LENGTH = 45;

/**
 * The CREATE2 salt of a checkout's deposit address: the checkout's code, hashed. Public on purpose:
 * whoever computes it can at most deploy the forwarder early, which still only pays the merchant.
 */
export function checkoutSalt(transactionCode: string): Hex {
  return keccak256(stringToBytes(`cryptocheckout:deposit:${transactionCode}`));
}

/** The forwarder implementation a factory deploys in its constructor: the factory's first CREATE (nonce 1, EIP-161). */
export function forwarderImplementationOf(factory: Address): Address {
  return getContractAddress({ from: getAddress(factory), nonce: 1n });
}

/** The creation code of a forwarder clone for `merchant` (its immutable argument, ABI-encoded). */
export function forwarderInitCode(implementation: Address, merchant: Address): Hex {
  const args = encodeAbiParameters([{ type: 'address' }], [getAddress(merchant)]);
  const runtimeLength = CLONE_RUNTIME_LENGTH + (args.length - 2) / 2;
  return concat([
    CLONE_CONSTRUCTOR_PREFIX,
    numberToHex(runtimeLength, { size: 2 }),
    CLONE_CONSTRUCTOR_SUFFIX,
    getAddress(implementation),
    CLONE_RUNTIME_SUFFIX,
    args,
  ]);
}

/**
 * A checkout's deposit address, computed offline: the CREATE2 address of the forwarder clone that
 * pays only `merchant`, deployed by `factory` under the checkout's salt. Equal to the factory's own
 * `depositAddress(merchant, salt)`; nothing needs to be deployed for it to receive tokens.
 */
export function depositAddress(options: { factory: Address; merchant: Address; salt: Hex }): Address {
  const implementation = forwarderImplementationOf(options.factory);
  return getContractAddress({
    opcode: 'CREATE2',
    from: getAddress(options.factory),
    salt: options.salt,
    bytecodeHash: keccak256(forwarderInitCode(implementation, options.merchant)),
  });
}

/**
 * The runtime code a genuine DepositFactory at `factory` has: the compiled code with its one
 * immutable, the implementation address, written in. The server compares a configured factory's
 * code with it before handing out deposit addresses, so a wrong or foreign contract is refused.
 */
export function expectedFactoryCode(factory: Address): Hex {
  const artifact = compiledContracts().DepositFactory;
  const implementation = forwarderImplementationOf(factory).slice(2).toLowerCase();
  let code = artifact.deployedBytecode.slice(2).toLowerCase();
  for (const references of Object.values(artifact.immutableReferences)) {
    for (const { start, length } of references) {
      // An address immutable is a 32-byte word, left-padded.
      const word = implementation.padStart(length * 2, '0');
      code = code.slice(0, start * 2) + word + code.slice((start + length) * 2);
    }
  }
  return `0x${code}`;
}
