/**
 * The Bitcoin test node (bitcoin-test-node.ts) on its own, for testing a shop by hand: point the
 * server at its RPC URL, pay the BIP21 URI the pay page shows, mine, reorganise, cut the node off.
 *
 * Run from packages/server. The repository runs TypeScript test support through esbuild (as
 * bench/local-chain-import.mjs does), npm packages staying external and resolved from here:
 *
 *   npx esbuild test/bitcoin/bitcoin-node-runner.ts --bundle --platform=node --format=esm \
 *     --packages=external --log-level=warning | node --input-type=module
 *
 * (or `node --import tsx test/bitcoin/bitcoin-node-runner.ts` where tsx is installed). Ctrl-C stops it.
 *
 * Environment, set for `node` (after the pipe): BITCOIN_NODE_PORT (RPC, default 18443),
 * BITCOIN_NODE_CHAIN (regtest | main, default regtest), BITCOIN_NODE_CONTROL_PORT (default RPC
 * port + 1), BITCOIN_NODE_USER and BITCOIN_NODE_PASSWORD (HTTP Basic credentials the RPC endpoint
 * then requires; the printed RPC URL carries them), e.g.
 *   … | BITCOIN_NODE_USER=shop BITCOIN_NODE_PASSWORD=secret node --input-type=module
 *
 * Control: POST http://127.0.0.1:<control port>/control with a JSON body {action, ...}; GET /control
 * answers the status. Amounts: `sats` (integer, number or string) or `amount` (BTC, as in BIP21).
 *   {"action":"pay","uri":"bitcoin:bcrt1q…?amount=0.001"}             also {"address","sats"|"amount"}
 *                                                                       or {"outputs":[{"address","sats"}]};
 *                                                                       optional "from" (a buyer's address),
 *                                                                       "feeSats", "replaceable"
 *   {"action":"mine","count":1}                                         optional "include", "exclude" (txids)
 *   {"action":"replace","txid":"…","uri":"bitcoin:…"}                   outputs as for pay; "feeSats"
 *   {"action":"doubleSpend","txid":"…","mine":true}                     optional "outputs", "feeSats"
 *   {"action":"reorg","depth":1}                                        "newBlocks", "dropTransactions",
 *                                                                       "includeInNewBranch"
 *   {"action":"evict","txid":"…"}
 *   {"action":"outage","mode":"down"|"error"|"warmup"|"slow"|null,"ms":3000}
 *   {"action":"newBuyer","sats":100000000}                             answers its address and WIF
 *   {"action":"mineFiller","count":1000}
 *   {"action":"status"}
 * Payments come from a buyer the runner funds on first use (newBuyer mines one block to fund it).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  type BitcoinChain,
  type BitcoinTestNode,
  type Buyer,
  type PaymentOutput,
  startBitcoinTestNode,
} from './bitcoin-test-node.js';

const COIN = 100_000_000n;

/** BTC as a decimal string (BIP21 `amount`) to sats, exactly. */
function btcToSats(value: unknown): bigint {
  const text = String(value).trim();
  const match = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (!match) throw new Error(`amount ${text}: BTC with at most 8 decimals expected`);
  return BigInt(match[1]!) * COIN + BigInt((match[2] ?? '').padEnd(8, '0'));
}

function satsOf(value: unknown): bigint {
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) throw new Error(`sats ${text}: a whole number expected`);
  return BigInt(text);
}

/** bitcoin:<address>?amount=<BTC>&… (BIP21); an upper-case bech32 address (QR codes) is lowered. */
function parseBip21(uri: string): PaymentOutput {
  const match = /^bitcoin:([^?]+)(?:\?(.*))?$/i.exec(uri.trim());
  if (!match) throw new Error(`${uri} is not a bitcoin: URI`);
  let address = decodeURIComponent(match[1]!);
  if (/^(BC|TB|BCRT)1[A-Z0-9]+$/.test(address)) address = address.toLowerCase();
  const amount = new URLSearchParams(match[2] ?? '').get('amount');
  if (amount === null) throw new Error(`${uri} has no amount: add "sats" or "amount"`);
  return { address, sats: btcToSats(amount) };
}

type Command = Record<string, unknown>;

function outputsOf(command: Command): PaymentOutput[] {
  if (typeof command.uri === 'string') return [parseBip21(command.uri)];
  if (Array.isArray(command.outputs)) {
    return command.outputs.map((output: Command) => ({
      address: String(output.address),
      sats: output.sats !== undefined ? satsOf(output.sats) : btcToSats(output.amount),
    }));
  }
  if (typeof command.address === 'string') {
    return [
      {
        address: command.address,
        sats: command.sats !== undefined ? satsOf(command.sats) : btcToSats(command.amount),
      },
    ];
  }
  throw new Error('say what to pay: "uri", "address" with "sats" or "amount", or "outputs"');
}

const optionalSats = (value: unknown): bigint | undefined =>
  value === undefined ? undefined : satsOf(value);
const txidsOf = (value: unknown): string[] | undefined =>
  value === undefined ? undefined : (value as unknown[]).map(String);

async function main(): Promise<void> {
  const port = Number(process.env.BITCOIN_NODE_PORT ?? 18443);
  const controlPort = Number(process.env.BITCOIN_NODE_CONTROL_PORT ?? port + 1);
  const chain = (process.env.BITCOIN_NODE_CHAIN ?? 'regtest') as BitcoinChain;
  const user = process.env.BITCOIN_NODE_USER || undefined;
  const password = process.env.BITCOIN_NODE_PASSWORD || undefined;
  const node: BitcoinTestNode = await startBitcoinTestNode({ port, chain, user, password });

  const buyers = new Map<string, Buyer>();
  let payer: Buyer | undefined;
  const newBuyer = (sats: bigint): Buyer => {
    const buyer = node.newBuyer(sats);
    buyers.set(buyer.address, buyer);
    return buyer;
  };
  /** The buyer named by `from`, or the runner's own, refunded when it runs short. */
  const buyerFor = (command: Command, needed: bigint): Buyer => {
    if (command.from !== undefined) {
      const buyer = buyers.get(String(command.from));
      if (!buyer) throw new Error(`no buyer ${String(command.from)}: create one with {"action":"newBuyer"}`);
      return buyer;
    }
    if (!payer || node.balance(payer) < needed + 10_000n) {
      const sats = needed * 2n > 10n * COIN ? needed * 2n : 10n * COIN;
      payer = newBuyer(sats);
    }
    return payer;
  };
  const status = () => ({
    chain: node.chain,
    rpcUrl: node.url,
    height: node.tipHeight(),
    tip: node.tipHash(),
    mempool: node.mempool(),
  });

  const run = (command: Command): unknown => {
    switch (command.action) {
      case 'pay': {
        const outputs = outputsOf(command);
        const feeSats = optionalSats(command.feeSats);
        const needed = outputs.reduce((total, output) => total + output.sats, feeSats ?? 500n);
        const buyer = buyerFor(command, needed);
        const paid = node.pay(buyer, outputs, { feeSats, replaceable: command.replaceable === true });
        return { ...paid, from: buyer.address };
      }
      case 'mine': {
        const blockHashes = node.mine(command.count === undefined ? 1 : Number(command.count), {
          include: txidsOf(command.include),
          exclude: txidsOf(command.exclude),
        });
        return { blockHashes, height: node.tipHeight() };
      }
      case 'replace':
        return node.replace(String(command.txid), outputsOf(command), {
          feeSats: optionalSats(command.feeSats),
        });
      case 'doubleSpend':
        return node.doubleSpend(String(command.txid), {
          outputs: command.outputs === undefined ? undefined : outputsOf({ outputs: command.outputs }),
          feeSats: optionalSats(command.feeSats),
          mine: command.mine !== false,
        });
      case 'reorg': {
        const blockHashes = node.reorg(Number(command.depth ?? 1), {
          newBlocks: command.newBlocks === undefined ? undefined : Number(command.newBlocks),
          dropTransactions: txidsOf(command.dropTransactions),
          includeInNewBranch: txidsOf(command.includeInNewBranch),
        });
        return { blockHashes, height: node.tipHeight(), mempool: node.mempool() };
      }
      case 'evict':
        node.evict(String(command.txid));
        return { mempool: node.mempool() };
      case 'outage': {
        const mode = (command.mode ?? null) as Parameters<BitcoinTestNode['setOutage']>[0];
        if (![null, 'down', 'error', 'warmup', 'slow'].includes(mode))
          throw new Error(`outage mode ${String(mode)}`);
        node.setOutage(mode, command.ms === undefined ? undefined : Number(command.ms));
        return { outage: mode };
      }
      case 'newBuyer': {
        const buyer = newBuyer(command.sats === undefined ? COIN : satsOf(command.sats));
        return {
          address: buyer.address,
          wif: buyer.wif,
          fundingTxid: buyer.fundingTxid,
          height: node.tipHeight(),
        };
      }
      case 'mineFiller':
        return { blockHash: node.mineFiller(Number(command.count ?? 1000)), height: node.tipHeight() };
      case 'status':
        return status();
      default:
        throw new Error(
          `unknown action ${String(command.action)}: pay, mine, replace, doubleSpend, reorg, evict, outage, newBuyer, mineFiller, status`,
        );
    }
  };

  const reply = (res: ServerResponse, code: number, body: unknown): void => {
    const text = `${JSON.stringify(body, (_, value) => (typeof value === 'bigint' ? Number(value) : value), 2)}\n`;
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(text);
  };
  const sockets = new Set<Socket>();
  const control = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.split('?')[0] !== '/control') {
      reply(res, 404, { error: 'POST /control' });
      return;
    }
    if (req.method === 'GET') {
      reply(res, 200, status());
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const command = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Command;
        const result = run(command);
        console.log(
          `${String(command.action)}: ${JSON.stringify(result, (_, v) => (typeof v === 'bigint' ? Number(v) : v))}`,
        );
        reply(res, 200, result);
      } catch (error) {
        reply(res, 400, { error: error instanceof Error ? error.message : String(error) });
      }
    });
  });
  control.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    control.once('error', reject);
    control.listen(controlPort, '127.0.0.1', () => resolve());
  });

  const controlUrl = `http://127.0.0.1:${controlPort}/control`;
  const example = `bitcoin:${node.randomAddress()}?amount=0.001`;
  console.log(`Bitcoin test node (${node.chain}), tip ${node.tipHeight()} ${node.tipHash()}`);
  console.log(`  RPC URL: ${node.url}`);
  console.log(
    `  Control: POST ${controlUrl}  {"action": "pay" | "mine" | "replace" | "doubleSpend" | "reorg" | "evict" | "outage" | "newBuyer" | "mineFiller" | "status", …}`,
  );
  console.log('  Pay the BIP21 URI the pay page shows, then mine a block:');
  console.log(`    curl -s ${controlUrl} -d '{"action":"pay","uri":"${example}"}'`);
  console.log(`    curl -s ${controlUrl} -d '{"action":"mine","count":1}'`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    for (const socket of sockets) socket.destroy();
    control.close();
    void node.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
