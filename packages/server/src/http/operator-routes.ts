import { Readable } from 'node:stream';
import {
  type OperatorTransactionSummary,
  TRANSACTION_STATUSES,
  transactionCodeSchema,
} from '@cryptocheckout/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FailedCredentials } from '../domain/failed-credentials.js';
import type { OperatorService, TransactionFilter } from '../domain/operator-service.js';
import { ServiceProblem } from '../domain/service-problem.js';
import { sendSuccess } from './envelope.js';
import { cursorField, limitOf, optional } from './list-query.js';
import { requireOperatorToken } from './operator-access.js';

const utcDate = (field: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: `${field} must be a date like 2026-01-31` })
    .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), {
      error: `${field} must be a real calendar date`,
    });

const filterQuery = z.object({
  q: optional(z.string().trim().max(128, { error: 'q must be at most 128 characters' })),
  status: optional(z.enum(TRANSACTION_STATUSES)),
  from: optional(utcDate('from')),
  to: optional(utcDate('to')),
});
const listQuery = filterQuery.extend({
  limit: limitOf(50),
  cursor: cursorField,
});
const unmatchedQuery = z.object({
  limit: limitOf(50),
  cursor: cursorField,
});
const statsQuery = z.object({
  days: z.preprocess(
    (value) => (value === '' || value === undefined ? 30 : Number(value)),
    z
      .number({ error: 'days must be a whole number from 1 to 366' })
      .int({ error: 'days must be a whole number from 1 to 366' })
      .min(1, { error: 'days must be a whole number from 1 to 366' })
      .max(366, { error: 'days must be a whole number from 1 to 366' }),
  ),
});
const deliveryParams = z.object({
  deliveryId: z.string().regex(/^[0-9a-f-]{36}$/i, { error: 'delivery_id must be a delivery id (a UUID)' }),
});

const transferParams = z.object({
  network: z.string().regex(/^[A-Z]{2,16}$/, { error: 'network must be a network code like POLYGON' }),
  txHash: z.string().regex(/^(0x[0-9a-fA-F]{64}|[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{64,90})$/, {
    error:
      'tx_hash must be a transaction hash (0x and 64 hex digits), a Bitcoin txid (64 hex digits) or a Solana signature (64 to 90 base58 characters)',
  }),
  logIndex: z.coerce
    .number({ error: 'log_index must be a whole number' })
    .int({ error: 'log_index must be a whole number' })
    .min(0, { error: 'log_index must be a whole number' }),
});
const noteField = z
  .string({ error: 'note must be text' })
  .trim()
  .max(500, { error: 'note must be at most 500 characters' })
  .optional();
const resolutionBody = z.object({ note: noteField }).optional();
const attachBody = z.object({ transaction_code: transactionCodeSchema, note: noteField });
const TRANSFER = '/api/operator/transfers/:network/:txHash/:logIndex';

const CSV_COLUMNS: Array<keyof OperatorTransactionSummary> = [
  'transaction_code',
  'created_at',
  'status',
  'external_reference',
  'fiat_amount',
  'fiat_currency',
  'amount_in_usd',
  'received_usd',
  'payment_method',
  'late',
  'settled_at',
  'webhook',
];

/**
 * The operator API under `/api/operator/` (docs/operator-dashboard.md), behind
 * {@link requireOperatorToken}.
 */
export function registerOperatorRoutes(
  app: FastifyInstance,
  operator: OperatorService,
  token: string,
  failedCredentials: FailedCredentials,
): void {
  app.register(async (scope) => {
    scope.addHook('onRequest', requireOperatorToken(token, failedCredentials));
    const api = scope.withTypeProvider<ZodTypeProvider>();
    const hidden = { hide: true };

    api.get('/api/operator/overview', { schema: hidden }, async (_request, reply) =>
      sendSuccess(reply, operator.overview()),
    );

    api.get('/api/operator/rates', { schema: hidden }, async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return sendSuccess(reply, operator.rates());
    });

    api.get(
      '/api/operator/transactions',
      { schema: { ...hidden, querystring: listQuery } },
      async (request, reply) => {
        const { limit, cursor, ...filter } = request.query;
        return sendSuccess(reply, await operator.transactions(filterOf(filter), cursor, limit));
      },
    );

    api.get(
      '/api/operator/transactions.csv',
      { schema: { ...hidden, querystring: filterQuery } },
      async (request, reply) => {
        const filter = filterOf(request.query);
        const day = new Date().toISOString().slice(0, 10);
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="transactions-${day}.csv"`);
        return reply.send(Readable.from(csvLines(operator.allTransactions(filter))));
      },
    );

    api.get<{ Params: { transactionCode: string } }>(
      '/api/operator/transactions/:transactionCode',
      { schema: hidden },
      async (request, reply) => {
        const code = transactionCodeSchema.safeParse(request.params.transactionCode);
        if (!code.success) {
          throw new ServiceProblem(
            'not_found',
            `No transaction has the code ${request.params.transactionCode}.`,
          );
        }
        return sendSuccess(reply, await operator.transaction(code.data));
      },
    );

    api.post(
      '/api/operator/deliveries/:deliveryId/resend',
      { schema: { ...hidden, params: deliveryParams } },
      async (request, reply) => {
        const resend = await operator.resend(request.params.deliveryId.toLowerCase());
        return sendSuccess(reply, resend, resend.created ? 201 : 200);
      },
    );

    api.get(
      '/api/operator/unmatched',
      { schema: { ...hidden, querystring: unmatchedQuery } },
      async (request, reply) =>
        sendSuccess(reply, await operator.transfers.unmatched(request.query.cursor, request.query.limit)),
    );

    const keyOf = (params: z.infer<typeof transferParams>) => ({
      network: params.network,
      // EVM hashes and Bitcoin txids are stored lowercase; a Solana signature is base58, where case matters.
      txHash:
        params.txHash.startsWith('0x') || params.network === 'BITCOIN'
          ? params.txHash.toLowerCase()
          : params.txHash,
      logIndex: params.logIndex,
    });
    api.post(
      `${TRANSFER}/attach`,
      { schema: { ...hidden, params: transferParams, body: attachBody } },
      async (request, reply) => {
        const { transaction_code, note } = request.body;
        return sendSuccess(
          reply,
          await operator.transfers.attach(keyOf(request.params), transaction_code, note ?? null),
        );
      },
    );
    api.post(
      `${TRANSFER}/handled`,
      { schema: { ...hidden, params: transferParams, body: resolutionBody } },
      async (request, reply) =>
        sendSuccess(
          reply,
          await operator.transfers.markHandled(keyOf(request.params), request.body?.note ?? null),
        ),
    );
    api.post(
      `${TRANSFER}/forward`,
      { schema: { ...hidden, params: transferParams, body: resolutionBody } },
      async (request, reply) =>
        sendSuccess(
          reply,
          await operator.transfers.approveForward(keyOf(request.params), request.body?.note ?? null),
        ),
    );

    api.get(
      '/api/operator/stats',
      { schema: { ...hidden, querystring: statsQuery } },
      async (request, reply) => sendSuccess(reply, await operator.stats(request.query.days)),
    );
  });
}

/**
 * The repository's filter for the list's query: dates become creation-time bounds (`to` inclusive).
 * @throws ServiceProblem `invalid_request` (field `to`) when `to` is before `from`.
 */
function filterOf(query: z.infer<typeof filterQuery>): TransactionFilter {
  if (query.from && query.to && query.to < query.from) {
    throw new ServiceProblem('invalid_request', `to (${query.to}) is before from (${query.from}).`, 'to');
  }
  const filter: TransactionFilter = {};
  if (query.q) filter.search = query.q;
  if (query.status) filter.status = query.status;
  if (query.from) filter.createdFrom = `${query.from}T00:00:00.000Z`;
  if (query.to) {
    filter.createdBefore = new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000).toISOString();
  }
  return filter;
}

/** RFC 4180 lines: a header, then one line per transaction. */
async function* csvLines(rows: AsyncIterable<OperatorTransactionSummary>): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  for await (const row of rows) {
    yield `${CSV_COLUMNS.map((column) => csvCell(row[column])).join(',')}\r\n`;
  }
}

/**
 * One CSV cell. Text a spreadsheet would run as a formula (starting with =, +, -, @, tab or
 * carriage return) gets a leading apostrophe: references come from shops and are not trusted.
 */
export function csvCell(value: string | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
