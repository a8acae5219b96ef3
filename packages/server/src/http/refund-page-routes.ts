import { validateWalletAddress } from '@cryptocheckout/core';
import {
  REFUND_CSS,
  REFUND_STYLESHEET_PATH,
  type RefundClaimPageInput,
  refundPageSecurityHeaders,
  renderRefundBadFormPage,
  renderRefundClaimPage,
  renderRefundNotFoundPage,
  resolveLanguage,
} from '@cryptocheckout/pay-page';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { drainRefusedBody } from './refused-body.js';

/** A claim code: 43 base64url characters, 256 random bits (docs/refunds.md). */
export const CLAIM_CODE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Largest claim form body accepted; the real form is well under 300 bytes. */
export const REFUND_FORM_LIMIT_BYTES = 4 * 1024;

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** What the claim page needs of the refunds: implemented by the refund service. */
export interface RefundClaimPort {
  /** undefined for an unknown claim code */
  view(claimCode: string): Promise<RefundClaimPageInput['view'] | undefined>;
  /** Stores the address if the refund still awaits one. */
  confirmAddress(
    claimCode: string,
    address: string,
  ): Promise<'confirmed' | 'not_awaiting_address' | 'not_found'>;
  /**
   * Why a well-formed (canonical) address cannot take the refund, as a problem code the page
   * words (`zero_address`, `token_contract`, `token_account`, `extended_key`, `service_address`, `shop_wallet`); undefined when it can.
   */
  addressRefusal(claimCode: string, address: string): Promise<string | undefined>;
}

// Framework errors of a form post that are the sender's fault, answered with a page, not JSON.
const FORM_ERROR_STATUS: Readonly<Record<string, number>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
};

/**
 * The buyer's refund claim page (docs/refunds.md): `GET /refund/<claim code>` shows the address
 * form or the refund's status; `POST /refund/<claim code>` takes the plain HTML form (no script):
 * `step=check` with `address` and `address_again` answers the review page, `step=confirm` with
 * `address` and `confirmed=yes` stores the address and redirects (303) to the GET page. A
 * confirmed address is never changed: later posts only redirect to the page that shows it.
 * Unknown and malformed claim codes answer the very same 404 page.
 */
export function registerRefundPageRoutes(
  app: FastifyInstance,
  claims: RefundClaimPort,
  clock: () => Date,
): void {
  app.get(REFUND_STYLESHEET_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').type('text/css; charset=utf-8').send(REFUND_CSS),
  );

  app.register(async (scope) => {
    // Only the form's own type, at most 4 KiB: the server's other parsers (JSON, a form parser
    // without this limit) stay outside this scope.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      FORM_TYPE,
      { parseAs: 'string', bodyLimit: REFUND_FORM_LIMIT_BYTES },
      (_request, body, done) => done(null, parseForm(body as string)),
    );
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const status = error.code === undefined ? undefined : FORM_ERROR_STATUS[error.code];
      // Anything else goes on to the server's own error handler.
      if (status === undefined) throw error;
      if (status === 413) drainRefusedBody(request, reply);
      const code = claimCodeOf(request);
      const lang = languageOf(request);
      return sendPage(
        reply,
        status,
        code === undefined ? renderRefundNotFoundPage(lang) : renderRefundBadFormPage(lang, code),
      );
    });

    // A wildcard rather than a parameter: the router refuses over-long parameters with its own
    // error, and a malformed code of any length must get the same page as an unknown one.
    scope.get('/refund/*', { schema: { hide: true } }, async (request, reply) => {
      const lang = languageOf(request);
      const code = claimCodeOf(request);
      const view = code === undefined ? undefined : await claims.view(code);
      if (view === undefined) return sendPage(reply, 404, renderRefundNotFoundPage(lang));
      const step = view.status === 'awaiting_address' ? 'enter' : 'status';
      return sendPage(reply, 200, renderRefundClaimPage({ view, step, lang, now: clock() }));
    });

    scope.post(
      '/refund/*',
      { schema: { hide: true }, bodyLimit: REFUND_FORM_LIMIT_BYTES },
      async (request, reply) => {
        const lang = languageOf(request);
        const code = claimCodeOf(request);
        const view = code === undefined ? undefined : await claims.view(code);
        if (code === undefined || view === undefined) {
          return sendPage(reply, 404, renderRefundNotFoundPage(lang));
        }
        const now = clock();
        // Past the claim step (or its deadline) the GET page says what happened instead.
        if (view.status !== 'awaiting_address' || now.getTime() >= Date.parse(view.claimExpiresAt)) {
          return seeOther(reply, code, lang);
        }
        const fields = request.body instanceof Map ? (request.body as Map<string, string>) : new Map();
        const page = { view, lang, now };
        // A form shown again with its problem is answered 200, like the first: a proxy that swaps
        // error bodies for its own page must not hide the buyer's form.
        const step = fields.get('step');

        if (step === 'check') {
          const entered = {
            address: fields.get('address') ?? '',
            addressAgain: fields.get('address_again') ?? '',
          };
          // Buyers paste with spaces and line breaks around the address; inside it they stay an error.
          const first = validateWalletAddress(view.network, entered.address.trim());
          if (!first.valid) {
            const problem = { field: 'address' as const, code: first.code, message: first.message };
            return sendPage(reply, 200, renderRefundClaimPage({ ...page, step: 'enter', entered, problem }));
          }
          const second = validateWalletAddress(view.network, entered.addressAgain.trim());
          if (!second.valid || second.address !== first.address) {
            const problem = second.valid
              ? { field: 'address_again' as const, code: 'mismatch' }
              : { field: 'address_again' as const, code: second.code, message: second.message };
            return sendPage(reply, 200, renderRefundClaimPage({ ...page, step: 'enter', entered, problem }));
          }
          // Well-formed but lost once sent (the zero address, a token contract, the service's own).
          const refusal = await claims.addressRefusal(code, first.address);
          if (refusal !== undefined) {
            const problem = { field: 'address' as const, code: refusal };
            return sendPage(reply, 200, renderRefundClaimPage({ ...page, step: 'enter', entered, problem }));
          }
          return sendPage(
            reply,
            200,
            renderRefundClaimPage({ ...page, step: 'review', reviewAddress: first.address }),
          );
        }

        if (step === 'confirm') {
          const address = (fields.get('address') ?? '').trim();
          const checked = validateWalletAddress(view.network, address);
          if (!checked.valid) {
            const problem = { field: 'address' as const, code: checked.code, message: checked.message };
            const entered = { address, addressAgain: '' };
            return sendPage(reply, 200, renderRefundClaimPage({ ...page, step: 'enter', entered, problem }));
          }
          // Checked again here: a post may skip the review step.
          const refusal = await claims.addressRefusal(code, checked.address);
          if (refusal !== undefined) {
            const problem = { field: 'address' as const, code: refusal };
            const entered = { address, addressAgain: '' };
            return sendPage(reply, 200, renderRefundClaimPage({ ...page, step: 'enter', entered, problem }));
          }
          if (fields.get('confirmed') !== 'yes') {
            const problem = { field: 'confirmed' as const, code: 'not_confirmed' };
            return sendPage(
              reply,
              200,
              renderRefundClaimPage({ ...page, step: 'review', reviewAddress: checked.address, problem }),
            );
          }
          const outcome = await claims.confirmAddress(code, checked.address);
          if (outcome === 'not_found') return sendPage(reply, 404, renderRefundNotFoundPage(lang));
          // 'not_awaiting_address' too: the GET page shows the address confirmed first.
          return seeOther(reply, code, lang);
        }

        return seeOther(reply, code, lang);
      },
    );
  });
}

/** The claim code of the request's path, when well-formed. */
function claimCodeOf(request: FastifyRequest): string | undefined {
  // One trailing slash is ignored, as the server's router ignores it on every other page.
  const code = (request.params as { '*'?: string } | undefined)?.['*']?.replace(/\/$/, '');
  return code !== undefined && CLAIM_CODE_PATTERN.test(code) ? code : undefined;
}

function languageOf(request: FastifyRequest): string {
  const lang = (request.query as Record<string, unknown> | undefined)?.lang;
  return resolveLanguage(typeof lang === 'string' ? lang : undefined, request.headers['accept-language']);
}

/** Form fields by name; a name given twice keeps its first value, as the query string does. */
function parseForm(body: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(body)) {
    if (!fields.has(name)) fields.set(name, value);
  }
  return fields;
}

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .headers(refundPageSecurityHeaders())
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer');
}

function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return pageHeaders(reply).code(status).type('text/html; charset=utf-8').send(html);
}

/** Post/Redirect/Get: a reload after a post shows the page, never a form resubmission prompt. */
function seeOther(reply: FastifyReply, code: string, lang: string): FastifyReply {
  return pageHeaders(reply).redirect(`/refund/${code}?lang=${encodeURIComponent(lang)}`, 303);
}
