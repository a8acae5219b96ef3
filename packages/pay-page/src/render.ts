import { type CryptoPaymentLink, getNetwork, type PaymentOption } from '@cryptocheckout/core';
import { assetUrl } from './assets.js';
import {
  formatCountdown,
  formatFiat,
  formatText,
  formatUsd,
  isHttpUrl,
  isSafeWalletUri,
  statusTitle,
  usdStillDue,
} from './format.js';
import { html, jsonForScriptBlock, type TrustedHtml, trusted } from './html.js';
import {
  isSupportedLanguage,
  LANGUAGE_NAMES,
  type Messages,
  messagesFor,
  SUPPORTED_LANGUAGES,
} from './i18n.js';
import { qrSvg } from './qr.js';
import { type RateLine, rateLine } from './rate.js';
import { IDS, type PayNote, type PayPageContext, type PayPageState, type RailView } from './state.js';

const PRODUCT_NAME = 'Crypto Checkout';
/** Id prefix of an unavailable rail's reason; the rail's position keeps ids valid whatever its slug. */
const RAIL_REASON_ID_PREFIX = 'cc-rail-reason-';

/**
 * Renders the complete hosted pay page. Amount, address and QR code are in the markup, so the page
 * is usable without JavaScript; the browser script adds live status, copy buttons and rail
 * switching on top. Every value from the order is escaped.
 */
export function renderPayPage(context: PayPageContext): string {
  const lang = isSupportedLanguage(context.lang) ? context.lang : 'en';
  const t = messagesFor(lang);
  const { transaction } = context;
  const status = transaction.status;
  const merchant = context.merchantDomain ?? t.merchantFallback;
  const terminal = status === 'settled' || status === 'expired';
  const rails = context.paymentOptions.map((option) => railView(option, context.mode));
  const selected = terminal ? undefined : context.selected;
  const pagePath = pathOf(transaction.checkout_url, transaction.transaction_code);
  const linkParams = { pagePath, lang, embed: context.embed };

  const state: PayPageState = {
    code: transaction.transaction_code,
    status,
    amountInUsd: transaction.amount_in_usd,
    receivedUsd: transaction.received_usd,
    late: transaction.late,
    expiresAt: transaction.expires_at,
    serverNow: context.now.toISOString(),
    apiBase: context.apiBase,
    pagePath,
    mode: context.mode,
    lang,
    merchant,
    successUrl: safeUrl(context.successUrl),
    cancelUrl: safeUrl(context.cancelUrl),
    embed: context.embed,
    rails,
    selected: selected?.link ?? null,
    text: t,
  };

  const title = context.merchantDomain
    ? `${formatText(t.documentTitle, { merchant: context.merchantDomain })} · ${PRODUCT_NAME}`
    : PRODUCT_NAME;
  const bodyClasses = [
    `status-${status}`,
    context.embed.embedded ? 'is-embedded' : '',
    context.mode === 'sandbox' ? 'is-sandbox' : '',
  ].filter(Boolean);
  const cryptoLink = selected?.link.kind === 'crypto' ? selected.link : null;
  const fiatLink = selected?.link.kind === 'fiat' ? selected.link : null;

  const page = html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetUrl('pay.css')}">
<script src="${assetUrl('pay.js')}" defer></script>
</head>
<body class="${bodyClasses.join(' ')}">
${context.mode === 'sandbox' ? html`<p class="sandbox-banner" role="note"><strong>${t.sandboxBanner}</strong></p>` : ''}
<main class="card">
<header class="merchant">
${context.merchantDomain ? html`<p class="pay-to">${t.payTo}</p><h1 class="merchant-name">${context.merchantDomain}</h1>` : html`<h1 class="merchant-name">${PRODUCT_NAME}</h1>`}
<p class="reference">${formatText(t.orderReference, { reference: transaction.external_reference })}</p>
</header>
<section class="amount" aria-labelledby="cc-amount-label">
<h2 id="cc-amount-label" class="label">${t.amountDue}</h2>
<p class="fiat">${formatFiat(transaction.fiat_amount, transaction.fiat_currency, lang)}</p>
<p class="usd">${formatText(t.usdEquivalent, { amount: formatUsd(transaction.amount_in_usd, lang) })}</p>
${renderRate(rateLine(transaction, t, lang, context.now))}
</section>
${renderStatus(context, t, merchant, state)}
<p id="${IDS.error}" class="error" role="alert" hidden></p>
${renderCryptoInstructions(cryptoLink, selected?.qrSvg, rails, t, context.mode)}
${renderFiatContinue(fiatLink, rails, t, context.embed.embedded)}
${terminal ? '' : renderRails(rails, context.paymentOptions, selected?.link.payment_method, t, lang, linkParams)}
<footer class="footer">
${state.cancelUrl && !terminal ? html`<p><a id="${IDS.cancel}" class="cancel" href="${state.cancelUrl}"${context.embed.embedded ? trusted(' target="_top"') : ''}>${formatText(t.cancel, { merchant })}</a></p>` : ''}
<nav aria-label="${t.language}"><ul class="languages">${SUPPORTED_LANGUAGES.map(
    (code) =>
      html`<li><a href="${pageHref({ ...linkParams, lang: code }, selected?.link.payment_method)}" hreflang="${code}" lang="${code}"${code === lang ? trusted(' aria-current="true"') : ''}>${LANGUAGE_NAMES[code]}</a></li>`,
  )}</ul></nav>
<p class="secured">${t.securedBy}</p>
</footer>
</main>
<script type="application/json" id="${IDS.state}">${trusted(jsonForScriptBlock(state))}</script>
</body>
</html>
`;
  return page.value;
}

/**
 * The locked rate as one small line of parts that wrap between each other, not inside: on a
 * 320 px screen it takes two or three short lines instead of a paragraph. A separator ends the
 * part before it, so no line starts with one.
 */
function renderRate(line: RateLine | null): TrustedHtml | string {
  if (!line) return '';
  const groups = [[line.rate, line.spread], [line.sources], [line.asOf], [line.heldUntil]]
    .map((group) => group.filter((part): part is string => part !== null))
    .filter((group) => group.length > 0);
  const parts = groups.flatMap((group, groupIndex) =>
    group.map((part, index) => {
      const last = index === group.length - 1 && groupIndex < groups.length - 1;
      return html`<span class="rate-part">${part}${last ? trusted('<span class="rate-sep" aria-hidden="true"> ·</span>') : ''}</span>`;
    }),
  );
  return html`<p id="${IDS.rate}" class="rate">${parts.map((part, index) => (index > 0 ? html` ${part}` : part))}</p>`;
}

function renderStatus(
  context: PayPageContext,
  t: Messages,
  merchant: string,
  state: PayPageState,
): TrustedHtml {
  const { transaction } = context;
  const status = transaction.status;
  const remaining = Date.parse(transaction.expires_at) - context.now.getTime();
  const showCountdown = status === 'pending' || status === 'underpaid';
  const target = context.embed.embedded ? trusted(' target="_top"') : '';
  let action: TrustedHtml | string = '';
  if (status === 'settled' && state.successUrl) {
    action = html`<a class="button" href="${state.successUrl}"${target}>${formatText(t.continueToMerchant, { merchant })}</a>`;
  } else if (status === 'expired' && state.cancelUrl) {
    action = html`<a class="button" href="${state.cancelUrl}"${target}>${formatText(t.backToMerchant, { merchant })}</a>`;
  }
  return html`<section id="${IDS.status}" class="status status--${status}" aria-labelledby="${IDS.statusTitle}">
<div role="status" aria-live="polite" aria-atomic="true">
<h2 id="${IDS.statusTitle}" tabindex="-1">${statusTitle(status, t)}</h2>
<p id="${IDS.statusDetail}" class="detail">${statusDetail(context, t)}</p>
</div>
<p id="${IDS.countdown}" class="countdown"${showCountdown ? '' : trusted(' hidden')}>${formatText(t.expiresIn, { time: formatCountdown(remaining) })}</p>
<p id="${IDS.statusAction}" class="status-action">${action}</p>
${status === 'settled' || status === 'expired' ? '' : html`<noscript><p class="noscript">${t.noscript} <a href="${pageHref({ pagePath: state.pagePath, lang: state.lang, embed: context.embed }, context.selected?.link.payment_method)}">${t.refreshStatus}</a></p></noscript>`}
</section>`;
}

function statusDetail(context: PayPageContext, t: Messages): string {
  const { transaction } = context;
  if (transaction.status === 'underpaid') {
    const due = usdStillDue(transaction.amount_in_usd, transaction.received_usd);
    return formatText(t.stillDue, { amount: formatUsd(due, context.lang) });
  }
  if (transaction.status === 'settled' && transaction.late) return t.paidLate;
  return '';
}

function renderRails(
  rails: readonly RailView[],
  options: readonly PaymentOption[],
  selectedSlug: string | undefined,
  t: Messages,
  lang: string,
  linkParams: LinkParams,
): TrustedHtml {
  const items = options.map((option, index) => ({ option, rail: rails[index]!, index }));
  const railDetails = ({ option, rail }: (typeof items)[number]) => {
    const amount =
      option.kind === 'fiat'
        ? formatFiat(Number(option.amount), option.asset, lang)
        : `${option.amount} ${option.asset}`;
    return html`<span class="rail-name">${option.name}</span>${
      rail.networkName ? html`<span class="rail-network">${rail.networkName}</span>` : ''
    }<span class="rail-amount">${amount}</span>`;
  };
  const group = (kind: 'crypto' | 'fiat', heading: string): TrustedHtml | string => {
    const offered = items.filter(({ option }) => option.kind === kind && option.available);
    if (offered.length === 0) return '';
    return html`<h3>${heading}</h3>
<ul class="rails">${offered.map((item) => {
      const current = item.option.slug === selectedSlug;
      return html`<li><a class="rail" href="${pageHref(linkParams, item.option.slug)}" data-rail="${item.option.slug}"${current ? trusted(' aria-current="true"') : ''}>${railDetails(item)}</a></li>`;
    })}</ul>`;
  };
  // Rails this order cannot use are folded away with their reasons: the buyer sees what they can
  // pay with first, and can still find out why the rest are missing. Open when nothing is offered.
  const unavailable = items.filter(({ option }) => !option.available);
  const notOffered =
    unavailable.length === 0
      ? ''
      : html`<details class="rails-unavailable"${unavailable.length === items.length ? trusted(' open') : ''}>
<summary>${formatText(t.notOfferedGroup, { count: String(unavailable.length) })}</summary>
<ul class="rails">${unavailable.map((item) => {
          // Disabled, with the server's reason as its description; the reason sits outside the
          // rail so it is not read twice, once in the name and again as the description.
          const reasonId = `${RAIL_REASON_ID_PREFIX}${item.index}`;
          return html`<li><span class="rail rail--unavailable" role="link" aria-disabled="true" aria-describedby="${reasonId}">${railDetails(item)}</span><span id="${reasonId}" class="rail-reason">${item.option.unavailable_reason ?? t.unavailable}</span></li>`;
        })}</ul>
</details>`;
  return html`<section id="${IDS.methods}" class="methods" aria-labelledby="${IDS.methodsTitle}">
<h2 id="${IDS.methodsTitle}">${selectedSlug ? t.chooseOtherMethod : t.chooseMethod}</h2>
${group('crypto', t.cryptoGroup)}
${group('fiat', t.fiatGroup)}
${notOffered}
</section>`;
}

function renderCryptoInstructions(
  link: CryptoPaymentLink | null,
  prerenderedQr: string | undefined,
  rails: readonly RailView[],
  t: Messages,
  mode: 'sandbox' | 'live',
): TrustedHtml {
  const rail = link ? rails.find((candidate) => candidate.slug === link.payment_method) : undefined;
  const networkName = link ? (rail?.networkName ?? networkDisplayName(link.network)) : '';
  const walletUri = link && isSafeWalletUri(link.uri) ? link.uri : null;
  // Both notes are in a live page, the chosen rail's shown: the script switches them with the rail.
  const payNote = link ? (rail?.payNote ?? payNoteFor(link.network, mode)) : null;
  const note = (id: string, kind: PayNote, message: string) =>
    mode === 'live'
      ? html`<dd id="${id}" class="field-note"${payNote === kind ? '' : trusted(' hidden')}>${message}</dd>`
      : '';
  const copyButton = (target: string, label: string) =>
    html`<button type="button" class="copy" data-copy="${target}" aria-label="${label}" hidden>${t.copy}</button>`;
  return html`<section id="${IDS.pay}" class="pay" aria-labelledby="${IDS.payTitle}"${link ? '' : trusted(' hidden')}>
<h2 id="${IDS.payTitle}" tabindex="-1">${link ? formatText(t.sendTitle, { amount: link.amount, asset: link.asset }) : ''}</h2>
<div class="pay-body">
<div id="${IDS.qr}" class="qr" role="img" aria-label="${t.qrLabel}"${walletUri ? '' : trusted(' hidden')}>${walletUri ? trusted(prerenderedQr ?? qrSvg(walletUri)) : ''}</div>
<div class="pay-fields">
<dl class="fields">
<div class="field"><dt>${t.amount}</dt><dd><code id="${IDS.amount}" class="value">${link?.amount ?? ''}</code> <span id="${IDS.asset}">${link?.asset ?? ''}</span> ${copyButton(IDS.amount, t.copyAmount)}</dd>${
    // Live amounts carry a few extra base units that tell this order apart; sandbox amounts do not.
    note(IDS.exactAmount, 'exact_amount', t.sendExactly)
  }</div>
<div class="field"><dt>${t.network}</dt><dd id="${IDS.network}">${networkName}</dd></div>
<div class="field"><dt>${t.address}</dt><dd><code id="${IDS.address}" class="value address">${link?.address ?? ''}</code> ${copyButton(IDS.address, t.copyAddress)}</dd>${
    // On Solana the order is found by the reference the QR code and wallet link carry, not by
    // the amount: any amount counts, but a transfer typed in by hand has no reference.
    note(IDS.referenceNote, 'reference', t.payWithReference)
  }</div>
</dl>
<p id="${IDS.copyStatus}" class="copy-status" role="status" aria-live="polite"></p>
</div>
</div>
<p id="${IDS.warning}" class="warning">${link ? formatText(t.sendOnly, { asset: link.asset, network: networkName }) : ''}</p>
<p class="wallet"><a id="${IDS.wallet}" class="button" href="${walletUri ?? '#'}"${walletUri ? '' : trusted(' hidden')}>${t.openWallet}</a></p>
${mode === 'sandbox' ? renderSandboxControls(t) : ''}
</section>`;
}

function renderSandboxControls(t: Messages): TrustedHtml {
  // Hidden until the script runs: simulating needs a JSON POST.
  return html`<section id="${IDS.sandbox}" class="sandbox" aria-labelledby="cc-sandbox-title" hidden>
<h3 id="cc-sandbox-title">${t.sandboxTitle}</h3>
<p class="hint">${t.sandboxHint}</p>
<div class="sandbox-actions">
<button type="button" class="button button--secondary" data-simulate="full">${t.simulateFull}</button>
<button type="button" class="button button--secondary" data-simulate="partial">${t.simulatePartial}</button>
<button type="button" class="button button--secondary" data-simulate="over">${t.simulateOver}</button>
</div>
<p class="check"><input type="checkbox" id="${IDS.unconfirmed}"> <label for="${IDS.unconfirmed}">${t.simulateUnconfirmed}</label></p>
<p id="${IDS.sandboxResult}" class="sandbox-result" role="status" aria-live="polite"></p>
</section>`;
}

function renderFiatContinue(
  link: { payment_method: string; redirect_url: string } | null,
  rails: readonly RailView[],
  t: Messages,
  embedded: boolean,
): TrustedHtml | string {
  if (!link || !isHttpUrl(link.redirect_url)) return '';
  const method = rails.find((rail) => rail.slug === link.payment_method)?.name ?? link.payment_method;
  return html`<section id="${IDS.fiat}" class="fiat-continue">
<p><a id="${IDS.fiatLink}" class="button" href="${link.redirect_url}"${embedded ? trusted(' target="_blank" rel="noopener"') : ''}>${formatText(t.continueFiat, { method })}</a></p>
</section>`;
}

function railView(option: PaymentOption, mode: 'sandbox' | 'live'): RailView {
  const crypto = option.kind === 'crypto' && option.network !== null;
  return {
    slug: option.slug,
    kind: option.kind,
    name: option.name,
    asset: option.asset,
    network: option.network,
    networkName: crypto && option.network ? networkDisplayName(option.network) : null,
    payNote: crypto && option.network ? payNoteFor(option.network, mode) : null,
  };
}

/**
 * What a live crypto rail asks of the buyer beyond its instructions. Solana Pay transfer requests
 * are matched by their reference, whatever the amount (docs/solana.md); the other live rails by
 * their exact, tagged amount (docs/live-mode.md). Sandbox amounts are neither.
 */
function payNoteFor(network: string, mode: 'sandbox' | 'live'): PayNote | null {
  if (mode !== 'live') return null;
  return getNetwork(network)?.family === 'solana' ? 'reference' : 'exact_amount';
}

function networkDisplayName(network: string): string {
  return getNetwork(network)?.name ?? network;
}

interface LinkParams {
  pagePath: string;
  lang: string;
  embed: { embedded: boolean; parentOrigin: string | null };
}

/** A link back to this page that keeps language and embedding, optionally choosing a rail. */
function pageHref(params: LinkParams, method?: string): string {
  const query = new URLSearchParams();
  if (method) query.set('method', method);
  query.set('lang', params.lang);
  if (params.embed.embedded) {
    query.set('embed', '1');
    if (params.embed.parentOrigin) query.set('parent_origin', params.embed.parentOrigin);
  }
  return `${params.pagePath}?${query}`;
}

function pathOf(checkoutUrl: string, code: string): string {
  try {
    return new URL(checkoutUrl).pathname;
  } catch {
    return `/pay/${encodeURIComponent(code)}`;
  }
}

function safeUrl(value: string | null): string | null {
  return value !== null && isHttpUrl(value) ? value : null;
}
