export { type CallOptions, type CheckoutClient, type ClientOptions, createCheckoutClient } from './client.js';
