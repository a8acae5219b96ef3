// The storage floor: bare node:http doing the same SQLite work as the server, for bench/load.mjs.
// POST parses the JSON body, INSERTs one transactions row and answers the created JSON; GET SELECTs
// one row by primary key and answers it, as SQLite returns it, as JSON. The schema is the server's own (its migrations run
// first on a fresh data directory, argv 2), opened the way the server opens it (WAL, synchronous=NORMAL).
// argv 3 and 4 are the server's own answers, used as the shape of the JSON bodies.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { startServer } from '../packages/server/dist/index.js';

const [dataDir, lookupBody, createdBody] = process.argv.slice(2);
const migrated = await startServer({ port: 0, dataDir, logLevel: 'warn' });
await migrated.close();

const db = new SQLite(join(dataDir, 'cryptocheckout.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
db.pragma('foreign_keys = ON');
const insert = db.prepare(
  `INSERT INTO transactions (transaction_code, status, external_reference, fiat_amount, fiat_currency,
   usd_rate, rate_source, amount_in_usd, received_usd, webhook_url, success_url, cancel_url, wallet_address,
   wallet_currency, wallet_network, payout_dispatched, payment_method, late, created_at, expires_at,
   monitor_until, settled_at, version) VALUES (?, 'pending', ?, ?, ?, '1.08', 'static', '27.00', '0', ?, ?, ?,
   ?, ?, ?, 0, NULL, 0, ?, ?, ?, NULL, 0)`,
);
const select = db.prepare('SELECT * FROM transactions WHERE transaction_code = ?');
const lookupShape = JSON.parse(lookupBody).data;
const createdShape = JSON.parse(createdBody).data;
insertRow(lookupShape.transaction_code, {
  external_reference: lookupShape.external_reference,
  fiat_amount: String(lookupShape.fiat_amount),
  fiat_currency: lookupShape.fiat_currency,
  customer: {
    wallet_address: lookupShape.wallet_address,
    crypto_currency: lookupShape.wallet_currency,
    crypto_currency_network: lookupShape.wallet_network,
  },
});

function insertRow(code, body) {
  const now = new Date();
  insert.run(
    code,
    body.external_reference,
    String(body.fiat_amount),
    body.fiat_currency,
    body.webhook_url ?? null,
    body.success_url ?? null,
    body.cancel_url ?? null,
    body.customer.wallet_address,
    body.customer.crypto_currency,
    body.customer.crypto_currency_network,
    now.toISOString(),
    new Date(now.getTime() + 900_000).toISOString(),
    new Date(now.getTime() + 3_600_000).toISOString(),
  );
}

function answer(response, status, data) {
  const body = JSON.stringify({ status: 'success', data });
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method === 'POST') {
      const code = randomUUID();
      insertRow(code, JSON.parse(Buffer.concat(chunks).toString('utf8')));
      return answer(response, 201, { ...createdShape, transaction_code: code });
    }
    const code = new URL(request.url, 'http://localhost').searchParams.get('transaction_code');
    // The row as SQLite returns it: the least work a lookup can do.
    return answer(response, 200, select.get(code));
  });
});
server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
