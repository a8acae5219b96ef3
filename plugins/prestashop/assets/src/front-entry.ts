import { init } from './front.js';

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => init());
else init();
