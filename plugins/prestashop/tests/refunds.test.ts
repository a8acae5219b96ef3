import {
  closedLoopbackUrl,
  EVENT_DEADLINE_MS,
  phpString,
  type SandboxService,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  installAndConfigure,
  type ModuleCopy,
  PRESTASHOP_PHP_VERSIONS,
  prepareModule,
  ShopBridge,
  WALLET,
} from './harness/harness.js';

// Credit slips refunded in crypto, end to end against the real reference server: the order is
// paid in the sandbox and booked by the real webhook, the order page's partial refund stores a
// credit slip and runs actionOrderSlipAdd, the module starts the service refund through the kernel
// (reference = the slip's id), the buyer is told through PrestaShop's own order message and e-mail,
// confirms an address on the claim page over HTTP, the sandbox pays the refund, and the refund.paid
// webhook (or, with the shop unreachable, the cron poll) records it once as a private note with the
// chain reference. Each failure (no key, service down, refusal) reaches the admin as a flash and
// leaves no refund of ours.

const OPERATOR_TOKEN = 'operator-token-for-the-prestashop-refund-test-0123';
/** The buyer's refund address (EIP-55). */
const BUYER = '0x1111111111111111111111111111111111111111';

const copy: ModuleCopy = await prepareModule();
let service: SandboxService;
let merchantKey: string;

beforeAll(async () => {
  service = await startSandboxService({ operatorToken: OPERATOR_TOKEN });
  const response = await fetch(`${service.url}/api/operator/merchant-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ label: 'prestashop harness', wallet_addresses: [WALLET] }),
  });
  const body = (await response.json()) as { data?: { key?: string } };
  expect(response.status, JSON.stringify(body)).toBe(201);
  merchantKey = String(body.data?.key);
});

afterAll(async () => {
  await service?.close();
  copy.remove();
});

/** The buyer confirms `address` on the claim page, as its two plain forms post it. */
async function confirmAddress(claimUrl: string, address = BUYER): Promise<void> {
  const post = (fields: Record<string, string>) =>
    fetch(claimUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
  const checked = await post({ step: 'check', address, address_again: address });
  expect(checked.status).toBe(200);
  const confirmed = await post({ step: 'confirm', address, confirmed: 'yes' });
  expect(confirmed.status).toBe(303);
}

/** The sandbox pays the refund from the merchant's wallet. */
async function payRefund(refundId: string): Promise<{ tx_id: string; status: string }> {
  const response = await fetch(`${service.url}/api/sandbox/refunds/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refund_id: refundId }),
  });
  const body = (await response.json()) as { data: { tx_id: string; status: string } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.data;
}

interface RefundView {
  refunds: Array<Record<string, string | number | null>>;
  /** What the order page lists under "Messages", oldest first. */
  messages: Array<{ message: string; private: number; id_employee: number }>;
  /** What the buyer's order page shows. */
  public_messages: string[];
  mails: Array<{
    template: string;
    template_path: string;
    subject: string;
    to: string;
    vars: Record<string, string>;
  }>;
  slips: number;
}

interface RefundStarted {
  id_order_slip: number;
  flashes: Record<string, string[]>;
}

for (const version of PRESTASHOP_PHP_VERSIONS) {
  describe(`PrestaShop refunds [PHP ${version}]`, () => {
    const bridge = new ShopBridge(version, copy.mounts, `refunds-${version}.sqlite`);

    beforeAll(async () => {
      await bridge.start();
      await bridge.runJson(`${installAndConfigure(service.url)}
Configuration::updateValue('CRYPTOCHECKOUT_MERCHANT_KEY', ${phpString(merchantKey)});
echo json_encode(true);`);
    });

    afterAll(async () => {
      await bridge.stop();
    });

    afterEach(async () => {
      bridge.offline.clear();
      await bridge.runJson(
        `Configuration::updateValue('CRYPTOCHECKOUT_MERCHANT_KEY', ${phpString(merchantKey)}); echo 'true';`,
      );
    });

    const view = (idOrder: number) =>
      bridge.runJson(`
$module = Module::getInstanceByName('cryptocheckout');
echo json_encode([
    'refunds' => array_map(function ($refund) { return $refund->toArray(); }, $module->kernel()->refunds('${idOrder}')),
    'messages' => array_reverse(HarnessShop::orderPageMessages(${idOrder})),
    'public_messages' => array_column(CustomerMessage::getMessagesByOrderId(${idOrder}, false), 'message'),
    'mails' => HarnessShop::sentMails(),
    'slips' => (int) Db::getInstance()->getValue('SELECT COUNT(*) FROM ps_order_slip WHERE id_order = ${idOrder}'),
]);`) as Promise<RefundView>;

    /** The order page's Crypto Checkout panel, as an employee opens the order. */
    const panel = (idOrder: number) =>
      bridge.runJson(
        `HarnessShop::actAsEmployee(); echo json_encode(Hook::exec('displayAdminOrderMainBottom', ['id_order' => ${idOrder}]));`,
      ) as Promise<string>;

    /** The order page's partial refund of `products` + `shipping` (tax included). */
    const partialRefund = (
      idOrder: number,
      products: string,
      shipping = '0',
      form: Record<string, string> = {},
    ) =>
      bridge.runJson(
        `echo json_encode(HarnessShop::partialRefund(${idOrder}, ${phpString(products)}, ${phpString(shipping)}, json_decode(${phpString(JSON.stringify(form))}, true)));`,
      ) as Promise<RefundStarted>;

    /** The refunds' last lookup was `seconds` ago (so opening the order or the poll looks again). */
    const ageRefunds = (idOrder: number, seconds: number) =>
      bridge.runJson(
        `Db::getInstance()->execute("UPDATE ps_cryptocheckout_refunds SET checked_at = checked_at - ${seconds} WHERE order_id = '${idOrder}'"); echo 'true';`,
      );

    const poll = async () => {
      const token = String(
        await bridge.runJson(`echo json_encode(Configuration::get('CRYPTOCHECKOUT_POLL_TOKEN'));`),
      );
      const answer = await bridge.request(`/module/cryptocheckout/poll?token=${encodeURIComponent(token)}`);
      expect(answer.status, answer.body).toBe(200);
      return JSON.parse(answer.body) as {
        data: { refunds: Array<{ refund_id: string; result: string; status: string }> };
      };
    };

    /** A buyer's order of `total` EUR, paid in the sandbox and booked by the real webhook. */
    async function paidOrder(total = '25.00'): Promise<number> {
      const cart = (await bridge.runJson(
        `echo json_encode(HarnessShop::createCart(${phpString(total)}, 'EUR'));`,
      )) as {
        id_cart: number;
      };
      const placed = await bridge.request('/module/cryptocheckout/validation', {
        method: 'POST',
        cart: cart.id_cart,
      });
      expect(placed.status).toBe(302);
      const idOrder = Number(
        await bridge.runJson(`echo json_encode(Order::getIdByCartId(${cart.id_cart}));`),
      );
      const code = String(
        await bridge.runJson(
          `echo json_encode(Module::getInstanceByName('cryptocheckout')->kernel()->checkouts('${idOrder}')[0]->transactionCode);`,
        ),
      );
      await service.pay(code);
      await waitFor(
        () => bridge.runJson(`echo json_encode(count((new Order(${idOrder}))->getOrderPayments()));`),
        (payments) => payments === 1,
      );
      return idOrder;
    }

    /** The private notes of the module on the order. */
    const notes = (order: RefundView) =>
      order.messages
        .filter((m) => m.private === 1 && m.message.startsWith('Crypto Checkout:'))
        .map((m) => m.message);
    const paidNotes = (order: RefundView, refundId: string) =>
      notes(order).filter((note) => note.includes(`(refund ${refundId})`));

    it('refunds a credit slip: service refund, claim message and e-mail, buyer’s address, paid by webhook, recorded once', async () => {
      const idOrder = await paidOrder('25.00');
      const started = await partialRefund(idOrder, '10.00', '2.50');
      expect(started.flashes).toEqual({
        success: [
          expect.stringMatching(
            new RegExp(
              `^Credit slip #${started.id_order_slip} \\(12\\.50 EUR\\): Refund of \\d+\\.\\d+ USDC requested; the buyer was sent the claim link\\.$`,
            ),
          ),
          'A partial refund was successfully created.',
        ],
      });
      let order = await view(idOrder);
      expect(order.refunds).toHaveLength(1);
      const refund = order.refunds[0]!;
      expect(refund).toMatchObject({
        platform_refund_id: String(started.id_order_slip),
        fiat_amount: '12.5',
        fiat_currency: 'EUR',
        asset: 'USDC',
        network: 'POLYGON',
        status: 'awaiting_address',
        claim_sent_at: expect.any(Number),
      });
      const claimUrl = String(refund.claim_url);
      expect(claimUrl).toMatch(new RegExp(`^${service.url}/refund/[A-Za-z0-9_-]{43}$`));
      // The buyer's channel: a public message from the employee, and PrestaShop's e-mail for it.
      expect(order.public_messages).toHaveLength(1);
      expect(order.public_messages[0]).toContain(claimUrl);
      expect(order.public_messages[0]).toMatch(
        /^We are refunding 12\.50 EUR of your order \w+, paid as [\d.]+ USDC on Polygon PoS\./,
      );
      expect(order.messages.find((m) => m.private === 0)).toMatchObject({ id_employee: 1 });
      expect(order.mails).toHaveLength(1);
      expect(order.mails[0]).toMatchObject({
        template: 'order_merchant_comment',
        template_path: '/shop/mails/',
        subject: 'New message regarding your order',
        to: 'ada@example.com',
        vars: { '{firstname}': 'Ada', '{lastname}': 'Buyer', '{id_order}': idOrder },
      });
      expect(order.mails[0]!.vars['{message}']).toContain(claimUrl);
      expect(notes(order)).toContainEqual(
        expect.stringMatching(
          /^Crypto Checkout: Refund of [\d.]+ USDC requested; the buyer was sent the claim link\.$/,
        ),
      );

      // The panel lists it, waiting for the buyer.
      expect(await panel(idOrder)).toMatch(/Credit slip<\/strong>|Credit slip #/);
      expect(await panel(idOrder)).toContain(
        `Refund ${refund.amount} USDC: waiting for the buyer&#039;s address`,
      );

      await confirmAddress(claimUrl);
      await ageRefunds(idOrder, 60);
      const waiting = await panel(idOrder);
      expect(waiting).toContain(
        `Refund ${refund.amount} USDC: the buyer confirmed an address; waiting for your payment`,
      );
      expect(waiting).toContain(`Send ${refund.amount} USDC on Polygon PoS to ${BUYER}`);
      order = await view(idOrder);
      expect(notes(order)).toContainEqual(
        `Crypto Checkout: The buyer confirmed the address for the refund of ${refund.amount} USDC: send ${refund.amount} USDC on Polygon PoS to ${BUYER}.`,
      );

      const paid = await payRefund(String(refund.refund_id));
      order = await waitFor(
        () => view(idOrder),
        (o) => paidNotes(o, String(refund.refund_id)).length > 0,
      );
      expect(paidNotes(order, String(refund.refund_id))).toEqual([
        `Crypto Checkout: Refund of ${refund.amount} USDC for credit slip #${started.id_order_slip} paid: ${paid.tx_id} (refund ${refund.refund_id})`,
      ]);
      expect(order.refunds[0]).toMatchObject({
        status: 'paid',
        tx_id: paid.tx_id,
        recorded_at: expect.any(Number),
      });
      const shown = await panel(idOrder);
      expect(shown).toContain(`Refund ${refund.amount} USDC: paid`);
      expect(shown).toContain(`Paid — ${paid.tx_id}`);

      // Once: the poll, opening the order again and the webhook sent again add nothing.
      await ageRefunds(idOrder, 1000);
      await poll();
      await panel(idOrder);
      const again = await bridge.request('/module/cryptocheckout/webhook', {
        method: 'POST',
        body: JSON.stringify({
          event: 'refund.paid',
          refund_id: refund.refund_id,
          transaction_code: refund.transaction_code,
          external_reference: (await service.transaction(String(refund.transaction_code))).external_reference,
          reference: refund.platform_refund_id,
          amount: refund.amount,
          asset: 'USDC',
          network: 'POLYGON',
          address: BUYER,
          tx_id: paid.tx_id,
          timestamp: Math.floor(Date.now() / 1000),
        }),
        headers: { 'content-type': 'application/json' },
      });
      expect(again.status, again.body).toBe(200);
      order = await view(idOrder);
      expect(paidNotes(order, String(refund.refund_id))).toHaveLength(1);
      expect(order.public_messages).toHaveLength(1);
      expect(order.mails).toHaveLength(1);
      expect(bridge.errors).toEqual([]);
    });

    it('records a refund paid while the shop missed the webhook once, with the cron poll', async () => {
      const idOrder = await paidOrder('30.00');
      const mailsBefore = (await view(idOrder)).mails.length;
      const started = await partialRefund(idOrder, '30.00');
      let order = await view(idOrder);
      const refund = order.refunds[0]!;
      expect(refund).toMatchObject({ platform_refund_id: String(started.id_order_slip), fiat_amount: '30' });
      expect(order.mails).toHaveLength(mailsBefore + 1);
      await confirmAddress(String(refund.claim_url));
      bridge.offline.add('/module/cryptocheckout/webhook');
      const paid = await payRefund(String(refund.refund_id));
      // The webhook got a 503; nothing is recorded until the poll looks.
      order = await view(idOrder);
      expect(paidNotes(order, String(refund.refund_id))).toEqual([]);
      // Past the kernel's recheck of a refund awaiting the buyer's address (a quarter of an hour).
      await ageRefunds(idOrder, 1000);
      const polled = await poll();
      expect(polled.data.refunds).toContainEqual(
        expect.objectContaining({ refund_id: refund.refund_id, result: 'recorded', status: 'paid' }),
      );
      await ageRefunds(idOrder, 1000);
      expect((await poll()).data.refunds.filter((r) => r.refund_id === refund.refund_id)).toEqual([]);
      order = await view(idOrder);
      expect(paidNotes(order, String(refund.refund_id))).toEqual([
        `Crypto Checkout: Refund of ${refund.amount} USDC for credit slip #${started.id_order_slip} paid: ${paid.tx_id} (refund ${refund.refund_id})`,
      ]);
    });

    describe('when no refund can be started, the admin reads why and nothing of ours records one', () => {
      /** The slip was made by PrestaShop, but the module has no refund, sent nothing and shows none. */
      async function expectNothingRecorded(idOrder: number, mailsBefore: number) {
        const order = await view(idOrder);
        expect(order.slips).toBe(1);
        expect(order.refunds).toEqual([]);
        expect(order.public_messages).toEqual([]);
        expect(order.mails).toHaveLength(mailsBefore);
        const shown = await panel(idOrder);
        expect(shown).not.toContain('data-cryptocheckout-refunds');
        return order;
      }

      it('without a merchant key', async () => {
        const idOrder = await paidOrder();
        const mailsBefore = (await view(idOrder)).mails.length;
        await bridge.runJson(`Configuration::updateValue('CRYPTOCHECKOUT_MERCHANT_KEY', ''); echo 'true';`);
        const started = await partialRefund(idOrder, '5.00');
        const said = `Credit slip #${started.id_order_slip} (5.00 EUR): No merchant key is set: enter the merchant key your Crypto Checkout operator gave you in the payment settings. Nothing was refunded.`;
        expect(started.flashes).toEqual({
          error: [said],
          success: ['A partial refund was successfully created.'],
        });
        const order = await expectNothingRecorded(idOrder, mailsBefore);
        expect(notes(order)).toContain(`Crypto Checkout: ${said}`);
      });

      it('with the service down', async () => {
        const idOrder = await paidOrder();
        const mailsBefore = (await view(idOrder)).mails.length;
        const closed = await closedLoopbackUrl();
        await bridge.runJson(
          `Db::getInstance()->execute("UPDATE ps_cryptocheckout_checkouts SET service_url = '${closed}' WHERE order_id = '${idOrder}'"); echo 'true';`,
        );
        const started = await partialRefund(idOrder, '5.00');
        expect(started.flashes.error).toEqual([
          expect.stringMatching(
            new RegExp(
              `^Credit slip #${started.id_order_slip} \\(5\\.00 EUR\\): The Crypto Checkout service could not be reached \\(.+\\)\\. Nothing was refunded; try again in a few minutes\\.$`,
            ),
          ),
        ]);
        await expectNothingRecorded(idOrder, mailsBefore);
      });

      it('when the service refuses the amount (422) or the key', async () => {
        const idOrder = await paidOrder('25.00');
        const mailsBefore = (await view(idOrder)).mails.length;
        const tooMuch = await partialRefund(idOrder, '40.00');
        expect(tooMuch.flashes.error).toEqual([
          expect.stringMatching(
            new RegExp(
              `^Credit slip #${tooMuch.id_order_slip} \\(40\\.00 EUR\\): The Crypto Checkout service refused the refund: .*at most [\\d.]+ USDC`,
            ),
          ),
        ]);
        await bridge.runJson(
          `Configuration::updateValue('CRYPTOCHECKOUT_MERCHANT_KEY', 'ccm_revokedOrMistypedKey0123456789abcdefghij'); echo 'true';`,
        );
        const wrongKey = await partialRefund(idOrder, '5.00');
        expect(wrongKey.flashes.error).toEqual([
          expect.stringMatching(
            /\): The Crypto Checkout service did not accept the merchant key: .+ Check the key in the payment settings\. Nothing was refunded\.$/,
          ),
        ]);
        const order = await view(idOrder);
        expect(order.slips).toBe(2);
        expect(order.refunds).toEqual([]);
        expect(order.mails).toHaveLength(mailsBefore);
      });

      it('when the refund is a voucher', async () => {
        const idOrder = await paidOrder();
        const mailsBefore = (await view(idOrder)).mails.length;
        const started = await partialRefund(idOrder, '5.00', '0', { voucher: '1' });
        expect(started.flashes.warning).toEqual([
          `Credit slip #${started.id_order_slip}: the refund is a voucher, so nothing is refunded in crypto.`,
        ]);
        await expectNothingRecorded(idOrder, mailsBefore);
      });
    });

    it('saves the merchant key from the settings page, checks its form and never shows it back', async () => {
      const save = (key: string) =>
        bridge.runJson(`
HarnessShop::actAsEmployee();
$_POST = ['submitCryptocheckout' => '1', 'token' => Tools::getAdminTokenLite('AdminModules'), 'CRYPTOCHECKOUT_MERCHANT_KEY' => ${phpString(key)}];
foreach (['CRYPTOCHECKOUT_SERVICE_URL', 'CRYPTOCHECKOUT_WALLET_ADDRESS', 'CRYPTOCHECKOUT_ASSET', 'CRYPTOCHECKOUT_NETWORK', 'CRYPTOCHECKOUT_DISPLAY_MODE'] as $key) {
    $_POST[$key] = Configuration::get($key);
}
$html = Module::getInstanceByName('cryptocheckout')->getContent();
echo json_encode(['html' => $html, 'saved' => Configuration::get('CRYPTOCHECKOUT_MERCHANT_KEY')]);`) as Promise<{
          html: string;
          saved: string;
        }>;
      // The kernel's shape (SettingsRules::isMerchantKey): one word of 24 to 512 printable ASCII characters.
      const refused = await save('ccm_pasted with a space 0123456789');
      expect(refused.html).toContain(
        'Merchant key: enter the whole key as your Crypto Checkout operator issued it (ccm_…), without spaces. The saved key was kept.',
      );
      expect(refused.saved).toBe(merchantKey);
      expect((await save('ccm_tooShort0123456789')).saved).toBe(merchantKey);
      const kept = await save('');
      expect(kept.html).toContain('Settings updated.');
      expect(kept.saved).toBe(merchantKey);
      // The operator token (not ccm_…) is what the service also accepts, so it is saved too.
      const operatorToken = await save('OperatorToken_0123456789abcdefGH');
      expect(operatorToken.saved).toBe('OperatorToken_0123456789abcdefGH');
      const replaced = await save(' ccm_anotherKeyOfTheShop0123456789abcdefABCDEF ');
      expect(replaced.saved).toBe('ccm_anotherKeyOfTheShop0123456789abcdefABCDEF');
      expect(replaced.html).toContain(
        '<input type="password" id="CRYPTOCHECKOUT_MERCHANT_KEY" name="CRYPTOCHECKOUT_MERCHANT_KEY" value="" autocomplete="off" />',
      );
      expect(replaced.html).toContain('A key is saved (ccm_…CDEF).');
      expect(replaced.html).not.toContain('anotherKeyOfTheShop');
    });
  });
}

/** Calls `read` until `done` holds (a webhook arrives in its own time), up to the suites' event deadline. */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + EVENT_DEADLINE_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
