import { getNetwork, type RefundStatus } from '@cryptocheckout/core';
import { assetUrl } from '../assets.js';
import { formatFiat, formatText, isHttpUrl } from '../format.js';
import { escapeHtml, html, type TrustedHtml, trusted } from '../html.js';
import {
  isSupportedLanguage,
  LANGUAGE_NAMES,
  type Language,
  messagesFor,
  SUPPORTED_LANGUAGES,
} from '../i18n.js';
import { type RefundMessages, refundMessagesFor } from './i18n.js';
import { type RefundClaimProblem, refundProblemMessage } from './problems.js';
import { refundStylesheetUrl } from './styles.js';

const PRODUCT_NAME = 'Crypto Checkout';
/** Seconds between reloads while the buyer waits for the shop to send the refund. */
export const REFUND_REFRESH_SECONDS = 30;
/** Longest address the form takes; the longest valid one (a Bitcoin taproot address) has 62 characters. */
const ADDRESS_MAX_LENGTH = 128;

/** Element ids of the claim page, for tests and for error text tied to its field. */
export const REFUND_IDS = {
  title: 'cc-refund-title',
  address: 'cc-refund-address',
  addressHint: 'cc-refund-address-hint',
  addressError: 'cc-refund-address-error',
  addressAgain: 'cc-refund-address-again',
  addressAgainHint: 'cc-refund-address-again-hint',
  addressAgainError: 'cc-refund-address-again-error',
  reviewAddress: 'cc-refund-review-address',
  memo: 'cc-refund-memo',
  confirmed: 'cc-refund-confirmed',
  confirmedError: 'cc-refund-confirmed-error',
} as const;

/** What the claim page shows of one refund (docs/refunds.md). */
export interface RefundClaimView {
  claimCode: string;
  status: RefundStatus;
  merchantDomain: string | null;
  externalReference: string;
  /** Exact decimal string in `asset` units. */
  amount: string;
  asset: string;
  /** Catalog id such as "POLYGON"; shown by its human name. */
  network: string;
  fiatAmount: string | null;
  fiatCurrency: string;
  /** The confirmed address; null until the buyer confirmed one. */
  address: string | null;
  claimExpiresAt: string;
  paidAt: string | null;
  txId: string | null;
  txUrl: string | null;
  mode: 'sandbox' | 'live';
}

/** Input of `renderRefundClaimPage`. */
export interface RefundClaimPageInput {
  view: RefundClaimView;
  /** enter: the address form; review: the canonical address to confirm; status: after confirmation. */
  step: 'enter' | 'review' | 'status';
  /** What the buyer typed, shown again with a problem. */
  entered?: { address: string; addressAgain: string };
  /** The canonical address to review (step review). */
  reviewAddress?: string;
  problem?: RefundClaimProblem;
  lang: string;
  now: Date;
}

/**
 * Renders the buyer's refund claim page `GET|POST /refund/<claim code>`: plain HTML forms that
 * work without any script. The step shown follows the refund: only a refund awaiting an address
 * (and before its claim deadline) shows the form or the review; any other shows its status.
 * Every value from the refund is escaped.
 */
export function renderRefundClaimPage(input: RefundClaimPageInput): string {
  const lang = isSupportedLanguage(input.lang) ? input.lang : 'en';
  const t = refundMessagesFor(lang);
  const { view } = input;
  const claimPath = `/refund/${encodeURIComponent(view.claimCode)}`;
  const selfHref = `${claimPath}?lang=${lang}`;
  const page: PageParts = {
    t,
    lang,
    view,
    selfHref,
    networkName: getNetwork(view.network)?.name ?? view.network,
    merchant: view.merchantDomain ?? t.merchantFallback,
  };
  const open = view.status === 'awaiting_address' && input.now.getTime() < Date.parse(view.claimExpiresAt);
  let step = open ? input.step : 'status';
  if (step === 'status' && open) step = 'enter';
  if (step === 'review' && !input.reviewAddress) step = 'enter';
  const shownStatus: RefundStatus = view.status === 'awaiting_address' && !open ? 'expired' : view.status;

  let title: string;
  let main: TrustedHtml;
  if (step === 'enter') {
    title = t.enterTitle;
    main = renderEnter(page, input.entered, input.problem);
  } else if (step === 'review') {
    title = t.reviewTitle;
    main = renderReview(page, input.reviewAddress!, input.problem);
  } else {
    title = statusTitle(shownStatus, t);
    main = renderStatus(page, shownStatus, input.problem);
  }
  const merchantTitle = view.merchantDomain
    ? formatText(t.documentTitle, { merchant: view.merchantDomain })
    : t.documentTitleGeneric;
  const fullTitle = `${title} · ${merchantTitle} · ${PRODUCT_NAME}`;
  return renderDocument({
    lang,
    title: input.problem && step !== 'status' ? formatText(t.errorTitle, { title: fullTitle }) : fullTitle,
    sandbox: view.mode === 'sandbox',
    refreshSeconds: step === 'status' && shownStatus === 'awaiting_payment' ? REFUND_REFRESH_SECONDS : null,
    body: html`${renderHeader(page)}
${main}
${renderFooter(page, claimPath)}`,
  });
}

/**
 * The page for an unknown or malformed claim code. It depends on the language alone, so both
 * cases answer the very same bytes and a visitor cannot tell a malformed code from an unknown one.
 */
export function renderRefundNotFoundPage(lang: string): string {
  const language = isSupportedLanguage(lang) ? lang : 'en';
  const t = refundMessagesFor(language);
  return renderMessagePage(language, t.notFoundTitle, html`<p>${t.notFound}</p>`);
}

/**
 * The page for a claim form the server could not read (too large, not a form), with a way back.
 * `claimCode` must already be a well-formed claim code.
 */
export function renderRefundBadFormPage(lang: string, claimCode: string): string {
  const language = isSupportedLanguage(lang) ? lang : 'en';
  const t = refundMessagesFor(language);
  const back = `/refund/${encodeURIComponent(claimCode)}?lang=${language}`;
  return renderMessagePage(
    language,
    t.badFormTitle,
    html`<p>${t.badForm}</p>
<p><a class="button" href="${back}">${t.backToRefund}</a></p>`,
  );
}

/** The claim code's address split into groups of four for reading aloud and comparing ("0x" alone). */
export function addressGroups(address: string): string[] {
  const prefix = /^0x/i.test(address) ? address.slice(0, 2) : '';
  const groups = address.slice(prefix.length).match(/[\s\S]{1,4}/g) ?? [];
  return prefix ? [prefix, ...groups] : groups;
}

interface PageParts {
  t: RefundMessages;
  lang: Language;
  view: RefundClaimView;
  /** This claim's page in this language: form target, way back, refresh. */
  selfHref: string;
  networkName: string;
  merchant: string;
}

function renderHeader({ t, view, lang, networkName }: PageParts): TrustedHtml {
  const fiat =
    view.fiatAmount === null
      ? ''
      : html`<p class="usd">${formatText(t.fiatValue, { amount: formatFiat(Number(view.fiatAmount), view.fiatCurrency, lang) })}</p>`;
  return html`<header class="merchant">
${view.merchantDomain ? html`<p class="pay-to">${t.refundFrom}</p><h1 class="merchant-name">${view.merchantDomain}</h1>` : html`<h1 class="merchant-name">${t.documentTitleGeneric}</h1>`}
<p class="reference">${formatText(t.orderReference, { reference: view.externalReference })}</p>
</header>
<section class="amount" aria-labelledby="cc-refund-amount-label">
<h2 id="cc-refund-amount-label" class="label">${t.amountLabel}</h2>
<p class="refund-amount">${formatText(t.amountOnNetwork, { amount: view.amount, asset: view.asset, network: networkName })}</p>
${fiat}
</section>`;
}

function renderEnter(
  page: PageParts,
  entered: RefundClaimPageInput['entered'],
  problem: RefundClaimProblem | undefined,
): TrustedHtml {
  const { t, view, networkName, lang } = page;
  const values = { network: networkName, asset: view.asset };
  const deadline = html`<time datetime="${view.claimExpiresAt}">${formatDateTime(view.claimExpiresAt, lang)}</time>`;
  return html`<section class="refund-section" aria-labelledby="${REFUND_IDS.title}">
<h2 id="${REFUND_IDS.title}">${t.enterTitle}</h2>
<p>${formatText(t.enterIntro, values)}</p>
<p class="hint">${richText(t.deadline, { deadline })}</p>
<form class="refund-form" method="post" action="${page.selfHref}">
<input type="hidden" name="step" value="check">
${addressField(page, {
  id: REFUND_IDS.address,
  hintId: REFUND_IDS.addressHint,
  errorId: REFUND_IDS.addressError,
  name: 'address',
  label: formatText(t.addressLabel, values),
  hint: formatText(t.addressHint, values),
  value: entered?.address ?? '',
  problem: problem?.field === 'address' ? problem : undefined,
})}
${addressField(page, {
  id: REFUND_IDS.addressAgain,
  hintId: REFUND_IDS.addressAgainHint,
  errorId: REFUND_IDS.addressAgainError,
  name: 'address_again',
  label: t.addressAgainLabel,
  hint: t.addressAgainHint,
  value: entered?.addressAgain ?? '',
  problem: problem?.field === 'address_again' ? problem : undefined,
})}
<div class="refund-actions"><button type="submit" class="button">${t.check}</button></div>
</form>
</section>`;
}

interface AddressFieldSpec {
  id: string;
  hintId: string;
  errorId: string;
  name: string;
  label: string;
  hint: string;
  value: string;
  problem: RefundClaimProblem | undefined;
}

function addressField(page: PageParts, field: AddressFieldSpec): TrustedHtml {
  const values = { network: page.networkName, asset: page.view.asset };
  const describedBy = field.problem ? `${field.hintId} ${field.errorId}` : field.hintId;
  // Autofocus takes the buyer (and a screen reader) straight to the field to fix, with no script.
  const invalid = field.problem ? trusted(' aria-invalid="true" autofocus') : '';
  return html`<div class="refund-field">
<label for="${field.id}">${field.label}</label>
<p id="${field.hintId}" class="hint">${field.hint}</p>
${field.problem ? html`<p id="${field.errorId}" class="field-error">${refundProblemMessage(field.problem, page.t, values)}</p>` : ''}
<input class="refund-input" type="text" id="${field.id}" name="${field.name}" value="${field.value}" maxlength="${ADDRESS_MAX_LENGTH}" autocomplete="off" spellcheck="false" autocapitalize="off" autocorrect="off" aria-required="true" aria-describedby="${describedBy}"${invalid}>
</div>`;
}

function renderReview(
  page: PageParts,
  address: string,
  problem: RefundClaimProblem | undefined,
): TrustedHtml {
  const { t, view, networkName } = page;
  const values = { amount: view.amount, asset: view.asset, network: networkName };
  const confirmProblem = problem?.field === 'confirmed' ? problem : undefined;
  const describedBy = confirmProblem ? `${REFUND_IDS.memo} ${REFUND_IDS.confirmedError}` : REFUND_IDS.memo;
  return html`<section class="refund-section" aria-labelledby="${REFUND_IDS.title}">
<h2 id="${REFUND_IDS.title}">${t.reviewTitle}</h2>
<p>${formatText(t.reviewIntro, values)}</p>
${groupedAddress(address, REFUND_IDS.reviewAddress)}
<p class="hint">${t.reviewCompare}</p>
<dl class="fields">
<div class="field"><dt>${t.network}</dt><dd>${networkName}</dd></div>
<div class="field"><dt>${t.asset}</dt><dd>${view.asset}</dd></div>
</dl>
<p id="${REFUND_IDS.memo}" class="warning refund-warning"><strong>${t.memoTitle}</strong> ${t.memoWarning}</p>
<form class="refund-form" method="post" action="${page.selfHref}">
<input type="hidden" name="step" value="confirm">
<input type="hidden" name="address" value="${address}">
${confirmProblem ? html`<p id="${REFUND_IDS.confirmedError}" class="field-error">${refundProblemMessage(confirmProblem, t, values)}</p>` : ''}
<label class="refund-confirm${confirmProblem ? ' refund-confirm--invalid' : ''}" for="${REFUND_IDS.confirmed}"><input type="checkbox" id="${REFUND_IDS.confirmed}" name="confirmed" value="yes" aria-describedby="${describedBy}"${confirmProblem ? trusted(' aria-invalid="true" autofocus') : ''}> <span>${formatText(t.confirmLabel, values)}</span></label>
<div class="refund-actions"><button type="submit" class="button">${t.confirm}</button> <a href="${page.selfHref}">${t.change}</a></div>
</form>
</section>`;
}

function renderStatus(
  page: PageParts,
  status: RefundStatus,
  problem: RefundClaimProblem | undefined,
): TrustedHtml {
  const { t, view, networkName, lang, merchant } = page;
  const values = { amount: view.amount, asset: view.asset, network: networkName, merchant };
  const deadline = html`<time datetime="${view.claimExpiresAt}">${formatDateTime(view.claimExpiresAt, lang)}</time>`;
  const note =
    problem?.code === 'already_confirmed'
      ? html`<p class="field-error">${refundProblemMessage(problem, t, values)}</p>`
      : '';
  let body: TrustedHtml;
  let tone = '';
  switch (status) {
    case 'awaiting_address':
    case 'awaiting_payment':
      body = html`<p>${t.confirmedAddress}</p>
${view.address ? groupedAddress(view.address, null, true) : ''}
<p>${formatText(t.willSend, values)}</p>
<p><a href="${page.selfHref}">${t.refreshNow}</a></p>`;
      break;
    case 'paid': {
      const txUrl = view.txUrl !== null && isHttpUrl(view.txUrl) ? view.txUrl : null;
      body = html`<p>${formatText(t.paidDetail, values)}</p>
${view.address ? groupedAddress(view.address, null, true) : ''}
${view.paidAt ? html`<p>${richText(t.paidAt, { date: html`<time datetime="${view.paidAt}">${formatDateTime(view.paidAt, lang)}</time>` })}</p>` : ''}
${txUrl ? html`<p><a href="${txUrl}" rel="noopener noreferrer">${t.viewTransaction}</a></p>` : ''}
${view.txId ? html`<p>${t.transaction}: <code class="refund-tx">${view.txId}</code></p>` : ''}`;
      tone = ' status--settled';
      break;
    }
    case 'cancelled':
      body = html`<p>${formatText(t.cancelledDetail, values)}</p>`;
      tone = ' status--expired';
      break;
    case 'expired':
      body = html`<p>${richText(t.expiredDetail, { deadline, merchant })}</p>`;
      tone = ' status--expired';
      break;
  }
  return html`<section class="status refund-status${tone}" aria-labelledby="${REFUND_IDS.title}">
<h2 id="${REFUND_IDS.title}">${statusTitle(status, t)}</h2>
${note}
${body}
</section>`;
}

function statusTitle(status: RefundStatus, t: RefundMessages): string {
  switch (status) {
    case 'awaiting_address':
    case 'awaiting_payment':
      return t.confirmedTitle;
    case 'paid':
      return t.paidTitle;
    case 'cancelled':
      return t.cancelledTitle;
    case 'expired':
      return t.expiredTitle;
  }
}

/**
 * The address in groups of four. The groups are adjacent elements with no text between them, so
 * selecting and copying gives the address as one string; the gaps are CSS margins only.
 */
function groupedAddress(address: string, id: string | null, small = false): TrustedHtml {
  const groups = addressGroups(address).map((group) => html`<span>${group}</span>`);
  return html`<p${id ? html` id="${id}"` : ''} class="refund-address${small ? ' refund-address--small' : ''}" translate="no">${groups}</p>`;
}

function renderFooter({ t, lang }: PageParts, claimPath: string): TrustedHtml {
  const languages = SUPPORTED_LANGUAGES.map(
    (code) =>
      html`<li><a href="${claimPath}?lang=${code}" hreflang="${code}" lang="${code}"${code === lang ? trusted(' aria-current="true"') : ''}>${LANGUAGE_NAMES[code]}</a></li>`,
  );
  return html`<footer class="footer">
<nav aria-label="${messagesFor(lang).language}"><ul class="languages">${languages}</ul></nav>
<p class="secured">${t.handledBy}</p>
</footer>`;
}

function renderMessagePage(lang: Language, title: string, body: TrustedHtml): string {
  const t = refundMessagesFor(lang);
  return renderDocument({
    lang,
    title: `${title} · ${PRODUCT_NAME}`,
    sandbox: false,
    refreshSeconds: null,
    body: html`<header class="merchant"><h1 class="merchant-name">${title}</h1></header>
${body}
<footer class="footer"><p class="secured">${t.handledBy}</p></footer>`,
  });
}

interface DocumentParts {
  lang: Language;
  title: string;
  sandbox: boolean;
  refreshSeconds: number | null;
  body: TrustedHtml;
}

function renderDocument(parts: DocumentParts): string {
  return html`<!doctype html>
<html lang="${parts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
${parts.refreshSeconds === null ? '' : html`<meta http-equiv="refresh" content="${parts.refreshSeconds}">`}
<title>${parts.title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetUrl('pay.css')}">
<link rel="stylesheet" href="${refundStylesheetUrl()}">
</head>
<body class="refund-page${parts.sandbox ? ' is-sandbox' : ''}">
${parts.sandbox ? html`<p class="sandbox-banner" role="note"><strong>${messagesFor(parts.lang).sandboxBanner}</strong></p>` : ''}
<main class="card">
${parts.body}
</main>
</body>
</html>
`.value;
}

/**
 * Fills a message template whose placeholders take markup (a `<time>` element): the template's
 * own text is escaped, string values are escaped, markup values go in as they are.
 */
function richText(template: string, values: Readonly<Record<string, string | TrustedHtml>>): TrustedHtml {
  const out = template
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined || !Object.hasOwn(values, name)) return escapeHtml(part);
      const value = values[name]!;
      return typeof value === 'string' ? escapeHtml(value) : value.value;
    })
    .join('');
  return trusted(out);
}

/** A moment in the page language, in UTC (the server does not know the buyer's zone). */
function formatDateTime(iso: string, lang: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const formatted = new Intl.DateTimeFormat(lang, {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(date);
  return `${formatted} UTC`;
}
