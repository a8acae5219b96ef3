import { attachSettingsForm } from './admin.js';

const start = () => attachSettingsForm(document);
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
