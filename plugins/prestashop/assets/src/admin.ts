import { getNetwork, validateWalletAddress } from '@cryptocheckout/core';

export const FIELD_NAMES = {
  wallet: 'CRYPTOCHECKOUT_WALLET_ADDRESS',
  network: 'CRYPTOCHECKOUT_NETWORK',
  asset: 'CRYPTOCHECKOUT_ASSET',
} as const;

/**
 * Live checks on the module's settings form, with the same wallet validation the server and the
 * module's PHP apply on save: the wallet address against the chosen network (message under the
 * field), and the asset list limited to what the network settles. PrestaShop's HelperForm marks
 * its form `novalidate`, so the browser's own constraint check never runs: a submit listener
 * stops the form while the wallet is wrong and brings the message into view. Returns a function
 * that re-runs the checks.
 */
export function attachSettingsForm(root: ParentNode): (() => void) | null {
  const wallet = root.querySelector<HTMLInputElement>(`input[name="${FIELD_NAMES.wallet}"]`);
  const network = root.querySelector<HTMLSelectElement>(`select[name="${FIELD_NAMES.network}"]`);
  const asset = root.querySelector<HTMLSelectElement>(`select[name="${FIELD_NAMES.asset}"]`);
  if (!wallet || !network) return null;
  const doc = wallet.ownerDocument;
  const problem = doc.createElement('p');
  problem.className = 'help-block cryptocheckout-wallet-problem';
  problem.id = `${FIELD_NAMES.wallet}-problem`;
  problem.setAttribute('role', 'alert');
  problem.hidden = true;
  wallet.insertAdjacentElement('afterend', problem);
  wallet.setAttribute('aria-describedby', problem.id);

  const syncAssets = () => {
    if (!asset) return;
    const offered = new Set(getNetwork(network.value)?.assets.map((entry) => entry.symbol) ?? []);
    for (const option of asset.options) option.disabled = !offered.has(option.value);
    if (!offered.has(asset.value)) {
      const preferred = offered.has('USDC') ? 'USDC' : [...offered][0];
      if (preferred !== undefined) asset.value = preferred;
    }
  };

  const checkWallet = () => {
    const address = wallet.value.trim();
    const result = address === '' ? null : validateWalletAddress(network.value, address);
    const message = result && !result.valid ? result.message : '';
    wallet.setCustomValidity(message);
    wallet.setAttribute('aria-invalid', message === '' ? 'false' : 'true');
    problem.textContent = message;
    problem.hidden = message === '';
  };

  const check = () => {
    syncAssets();
    checkWallet();
  };
  wallet.addEventListener('input', checkWallet);
  network.addEventListener('change', check);
  wallet.form?.addEventListener('submit', (event) => {
    check();
    if (problem.hidden) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    wallet.focus();
    problem.scrollIntoView?.({ block: 'center' });
  });
  check();
  return check;
}
