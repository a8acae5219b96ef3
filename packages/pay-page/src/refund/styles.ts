import { createHash } from 'node:crypto';

/**
 * The claim page's own rules, on top of the pay page's stylesheet (pay.css: colour tokens, card,
 * status boxes, buttons). Kept here as text so the server serves it without a build step; the page
 * loads it as a file because the CSP allows no inline style. Every text colour keeps at least 4.5:1
 * contrast and every input border 3:1 on its background, as on the pay page.
 */
export const REFUND_CSS = `
.refund-amount {
  font-size: 22px;
  font-weight: 700;
  line-height: 1.3;
  overflow-wrap: anywhere;
}
.refund-section {
  display: grid;
  gap: 12px;
}
.refund-section h2 {
  font-size: 18px;
}
.refund-form {
  display: grid;
  gap: 16px;
}
.refund-field {
  display: grid;
  gap: 6px;
  min-width: 0;
}
.refund-field label {
  font-weight: 600;
}
.refund-input {
  width: 100%;
  min-height: 48px;
  padding: 10px 12px;
  border: 1px solid #6b7280;
  border-radius: 10px;
  background: var(--surface);
  color: var(--text);
  font:
    16px / 1.4 ui-monospace,
    SFMono-Regular,
    Menlo,
    Consolas,
    monospace;
}
.refund-input[aria-invalid="true"] {
  border: 2px solid var(--bad-text);
  padding: 9px 11px;
}
.field-error {
  color: var(--bad-text);
  font-size: 14px;
  font-weight: 600;
}
.refund-address {
  padding: 12px;
  border-radius: 10px;
  background: var(--page);
  font:
    600 22px / 1.5 ui-monospace,
    SFMono-Regular,
    Menlo,
    Consolas,
    monospace;
  -webkit-user-select: all;
  user-select: all;
}
.refund-address--small {
  font-size: 16px;
}
/* Groups are atomic inline boxes: lines wrap between them, and a copy gives the address as one string. */
.refund-address > span {
  display: inline-block;
  margin-inline-end: 0.45em;
}
.refund-address > span:last-child {
  margin-inline-end: 0;
}
.refund-tx {
  font:
    14px / 1.4 ui-monospace,
    SFMono-Regular,
    Menlo,
    Consolas,
    monospace;
  overflow-wrap: anywhere;
  word-break: break-all;
}
.refund-warning {
  margin-top: 0;
}
.refund-warning strong {
  display: block;
}
.refund-confirm {
  display: flex;
  gap: 10px;
  align-items: flex-start;
  font-weight: 600;
  cursor: pointer;
}
.refund-confirm input {
  flex: none;
  width: 24px;
  height: 24px;
  margin: 0;
}
.refund-confirm--invalid input {
  outline: 2px solid var(--bad-text);
  outline-offset: 2px;
}
.refund-actions {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 12px 24px;
}
.refund-actions a:not(.button) {
  display: inline-block;
  padding: 10px 0;
}
@media (max-width: 479px) {
  .refund-actions .button {
    width: 100%;
  }
}
.refund-status p + p,
.refund-status p + .refund-address {
  margin-top: 8px;
}
`;

/** URL path at which the server serves REFUND_CSS. */
export const REFUND_STYLESHEET_PATH = '/refund/assets/refund.css';

const version = createHash('sha256').update(REFUND_CSS).digest('hex').slice(0, 12);

/** URL of the claim page's stylesheet with a content hash, so a new release reaches every browser. */
export function refundStylesheetUrl(): string {
  return `${REFUND_STYLESHEET_PATH}?v=${version}`;
}
