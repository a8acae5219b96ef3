/**
 * @cryptocheckout/core/node — helpers that need Node built-ins: signing and verifying the optional
 * webhook signature (docs/api.md, "Webhook signature"). Only `node:crypto`, so a
 * merchant verifies webhooks without the server's dependencies.
 */
export { SIGNATURE_HEADER, signWebhook, verifyWebhookSignature } from './webhook-signature.js';
