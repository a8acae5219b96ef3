import { validateWalletAddress } from '@cryptocheckout/core';

/** window.cryptocheckoutSettings, printed by Admin\SettingsScript. */
export interface SettingsFormConfig {
  fieldPrefix: string;
  assetsByNetwork: Record<string, string[]>;
  recommendedAsset: string;
}

export interface SettingsForm {
  /** Re-checks the wallet address; true when it is valid for the chosen network. */
  check(): boolean;
}

/**
 * Live checks on the gateway settings form, with the same wallet validation the server and the
 * PHP save use: the address is checked against the chosen network as it is typed, and the asset
 * list follows the network. The save itself is validated again in PHP.
 */
export function mountSettingsForm(doc: Document, config: SettingsFormConfig): SettingsForm | null {
  const field = (name: string) => doc.getElementById(config.fieldPrefix + name);
  const address = field('wallet_address') as HTMLInputElement | null;
  const network = field('wallet_network') as HTMLSelectElement | null;
  const asset = field('wallet_currency') as HTMLSelectElement | null;
  if (address === null || network === null || asset === null) return null;

  const feedback = doc.createElement('p');
  feedback.className = 'cryptocheckout-wallet-feedback';
  feedback.id = `${config.fieldPrefix}wallet_address_feedback`;
  feedback.setAttribute('aria-live', 'polite');
  address.insertAdjacentElement('afterend', feedback);
  address.setAttribute('aria-describedby', feedback.id);

  const syncAssets = () => {
    const allowed = config.assetsByNetwork[network.value] ?? [];
    for (const option of Array.from(asset.options)) {
      const ok = allowed.includes(option.value);
      option.disabled = !ok;
      option.hidden = !ok;
    }
    if (!allowed.includes(asset.value)) {
      asset.value = allowed.includes(config.recommendedAsset) ? config.recommendedAsset : (allowed[0] ?? '');
    }
  };

  const check = (): boolean => {
    const value = address.value;
    if (value === '') {
      feedback.textContent = '';
      address.removeAttribute('aria-invalid');
      address.setCustomValidity('');
      return false;
    }
    const result = validateWalletAddress(network.value, value);
    if (result.valid) {
      feedback.textContent = `✓ ${result.address}`;
      feedback.setAttribute('data-valid', 'true');
      address.removeAttribute('aria-invalid');
      address.setCustomValidity('');
      return true;
    }
    feedback.textContent = result.message;
    feedback.setAttribute('data-valid', 'false');
    address.setAttribute('aria-invalid', 'true');
    address.setCustomValidity(result.message);
    return false;
  };

  address.addEventListener('input', check);
  network.addEventListener('change', () => {
    syncAssets();
    check();
  });
  syncAssets();
  check();
  return { check };
}
