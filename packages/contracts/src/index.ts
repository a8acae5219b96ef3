export { type CompiledContracts, type ContractArtifact, compiledContracts } from './artifacts.js';
export {
  checkoutSalt,
  depositAddress,
  expectedFactoryCode,
  forwarderImplementationOf,
  forwarderInitCode,
} from './deposit-address.js';
