import { startPayPage } from './page.js';

// The script is loaded with `defer`, so the server-rendered document is complete here.
startPayPage({
  document,
  window,
  fetch: (input, init) => window.fetch(input, init),
  navigate: (url) => window.location.assign(url),
});
