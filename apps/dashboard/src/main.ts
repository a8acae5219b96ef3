import { startDashboard } from './app.js';

// Loaded with `defer`: the document is parsed when this runs.
startDashboard({
  document,
  window,
  fetch: (input, init) => window.fetch(input, init),
});
