import { describe, expect, it } from 'vitest';
import type { ForwardingHealth } from '../api.js';
import { openFakeDashboard, settle } from '../fake-api.test-helpers.js';
import { formatNativeAmount } from './forwarding.js';

// The "Forwarding" panel of the home view against a scripted `GET /api/health`: a sweeper out of
// gas cannot be arranged on demand on a local chain without racing the forwarder.

const SWEEPER = '0x9C3b1D6f0b4E7a2c5D8e1F3a6B9c2D5e8F1a4B7c';

function forwarding(overrides: Partial<ForwardingHealth> = {}): ForwardingHealth {
  return {
    sweeper: SWEEPER,
    sweeperBalanceWei: '1234500000000000000',
    needsGas: null,
    depositsWaiting: 3,
    forwardsInFlight: 1,
    forwardsSent: 17,
    sending: true,
    lastError: null,
    ...overrides,
  };
}

function openHome(networks: Record<string, unknown>, mode: 'live' | 'sandbox' = 'live') {
  return openFakeDashboard(
    '#/transactions',
    (request) => (request.path === '/api/health' ? { data: { ok: true, mode, networks } } : undefined),
    { mode },
  );
}

const definitions = (card: Element) =>
  Object.fromEntries(
    [...card.querySelectorAll('dt')].map((term) => [term.textContent, term.nextElementSibling?.textContent]),
  );

describe('formatNativeAmount', () => {
  it('spells wei as whole coins exactly, with every decimal and no float', () => {
    expect(formatNativeAmount('1234500000000000000', 'POLYGON')).toBe('1.2345 POL');
    expect(formatNativeAmount('1', 'ETHEREUM')).toBe('0.000000000000000001 ETH');
    // Beyond 2^53 a float would round the last digits.
    expect(formatNativeAmount('9007199254740993123456789', 'BASE')).toBe('9,007,199.254740993123456789 ETH');
    expect(formatNativeAmount('0', 'ARBITRUM')).toBe('0 ETH');
  });
});

describe('forwarding card', () => {
  it('shows each deposit network: sweeper, balance in the native coin, deposits waiting, forwards, last error', async () => {
    const page = openHome({
      POLYGON: { lastError: null, forwarding: forwarding({ lastError: 'nonce too low <script>' }) },
      // Direct mode on this network: no card.
      ETHEREUM: { lastError: null },
    });
    await settle(() => expect(page.doc.querySelectorAll('.forwarding-card')).toHaveLength(1));
    const panel = page.doc.querySelector<HTMLElement>('section[aria-labelledby="forwarding-heading"]')!;
    expect(panel.hidden).toBe(false);
    const card = page.doc.querySelector('.forwarding-card')!;
    expect(card.querySelector('h3')!.textContent).toBe('Forwarding on POLYGON');
    expect(definitions(card)).toEqual({
      Sweeper: SWEEPER,
      'Sweeper balance': '1.2345 POL',
      'Deposits waiting': '3',
      'Forwards in flight': '1',
      'Forwards sent': '17',
      Sending: 'Yes, this node',
      'Last error': 'nonce too low <script>',
    });
    expect(card.querySelector('script')).toBeNull();
    expect(card.querySelector('.warning')).toBeNull();
    // The health summary is public: the operator token is not sent there.
    const healthRequest = page.requests.find((request) => request.path === '/api/health')!;
    expect(healthRequest.authorization).toBeNull();
  });

  it('warns in plain words when the sweeper needs gas', async () => {
    const page = openHome({
      POLYGON: {
        forwarding: forwarding({
          sweeperBalanceWei: '1000000000000000',
          needsGas: { neededWei: '2500000000000000', balanceWei: '1000000000000000' },
          sending: false,
        }),
      },
    });
    await settle(() => expect(page.doc.querySelector('.forwarding-card .warning')).not.toBeNull());
    expect(page.text('.forwarding-card .warning')).toBe(
      `Needs gas: the sweeper cannot pay for the next forward, so deposits wait. Send POL to ${SWEEPER} (the next forward needs about 0.0025 POL).`,
    );
    expect(definitions(page.doc.querySelector('.forwarding-card')!)).toMatchObject({
      'Sweeper balance': '0.001 POL',
      Sending: 'No: another node holds the right to send',
    });
  });

  it('stays hidden without a deposit network, and sandbox mode does not ask', async () => {
    const live = openHome({ POLYGON: { lastError: null } });
    await settle(() => expect(live.requests.some((request) => request.path === '/api/health')).toBe(true));
    await settle(() =>
      expect(live.doc.querySelector('#transactions-table .message-row')?.textContent).toMatch(/./),
    );
    expect(live.doc.querySelector<HTMLElement>('section[aria-labelledby="forwarding-heading"]')!.hidden).toBe(
      true,
    );

    const sandbox = openHome({}, 'sandbox');
    await settle(() =>
      expect(sandbox.requests.some((request) => request.path === '/api/operator/transactions')).toBe(true),
    );
    expect(sandbox.doc.querySelector('section[aria-labelledby="forwarding-heading"]')).toBeNull();
    expect(sandbox.requests.some((request) => request.path === '/api/health')).toBe(false);
  });
});
