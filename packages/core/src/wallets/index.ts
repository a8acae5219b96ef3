export { type AddressProblemCode, type AddressValidation, validateWalletAddress } from './address.js';
export {
  type AssetOnNetwork,
  DEFAULT_SETTLEMENT,
  getAsset,
  getNetwork,
  isAssetOnNetwork,
  NETWORK_IDS,
  NETWORKS,
  type NetworkFamily,
  type NetworkId,
  type NetworkInfo,
  RECOMMENDED_ASSET,
} from './networks.js';
