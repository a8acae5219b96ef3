// Gateway settings form: live wallet-address check and asset choices per network.
import { mountSettingsForm, type SettingsFormConfig } from './lib/settings-form.js';

const config = (window as unknown as { cryptocheckoutSettings?: SettingsFormConfig }).cryptocheckoutSettings;
if (config !== undefined) mountSettingsForm(document, config);
