import {
  BIP84_DESCRIPTION,
  BIP84_FIRST_ADDRESSES,
  BIP84_ZPUB,
  BITCOIN_ADDRESS,
  type BitcoinWalletService,
  closedLoopbackUrl,
  describeEachPhp,
  phpString,
  REFUSED_BITCOIN_KEY,
  REFUSED_BITCOIN_KEY_REASON,
  startBitcoinWalletService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNT, CLIENT_MOUNTS } from './harness.js';

// The wallet check a settings page runs when a Bitcoin wallet is saved (Client::checkWallet,
// src/Kernel/WalletCheck.php, Kernel::checkWallet) over real HTTP on loopback, against a stand-in of
// a live service with Bitcoin (php-testkit's startBitcoinWalletService): an extended key's first
// addresses, a plain address, a refused key, an older service (404), a failing one, a closed port
// and a hang, through both transports, on PHP 7.4 and 8.3.

interface Check {
  result: string;
  problem: string | null;
  field: string | null;
  message: string;
  description: string;
  addresses: string[];
  checked_at?: number;
}

let service: BitcoinWalletService;
let closedUrl: string;

beforeAll(async () => {
  service = await startBitcoinWalletService();
  closedUrl = await closedLoopbackUrl();
});

afterAll(async () => {
  await service?.close();
});

const KEY_NOTICE = `Crypto Checkout derives a new address for each order from this key (${BIP84_DESCRIPTION}). Check that your wallet shows these as its first receive addresses: ${BIP84_FIRST_ADDRESSES.join(', ')}. If they differ, the key is not the one your wallet receives on.`;
const ADDRESS_NOTICE =
  'Buyers pay this Bitcoin address exact amounts, with a few satoshis added to each so that every payment is matched to its order. An extended public key (zpub) also takes part payments and top-ups.';

describeEachPhp(
  'kernel wallet check',
  ({ php }) => {
    for (const transport of ['CurlTransport', 'StreamTransport'] as const) {
      describe(transport, () => {
        const check = async (
          url: string,
          wallet: string,
          network = 'BITCOIN',
          translated = false,
          timeout = 5,
        ) =>
          (await php().runJson(`
            require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
            use CryptoCheckout\\Client\\Kernel\\WalletCheck;
            $translate = ${translated ? "static function (string $text, array $params): string { return 'FR: ' . strtr($text, $params); }" : 'null'};
            $check = new WalletCheck(new CryptoCheckout\\Client\\Http\\${transport}(), $translate, ${timeout});
            echo json_encode($check->check(${phpString(url)}, ${phpString(network)}, ${phpString(wallet)}), JSON_UNESCAPED_SLASHES);
          `)) as Check;

        it("shows an extended key's first three receive addresses, as the service derives them", async () => {
          const before = service.requests.length;
          expect(await check(`${service.url}/api/`, BIP84_ZPUB)).toEqual({
            result: 'extended_key',
            problem: null,
            field: null,
            message: KEY_NOTICE,
            description: BIP84_DESCRIPTION,
            addresses: [...BIP84_FIRST_ADDRESSES],
          });
          // One read-only question, under the service URL as the settings rules store it.
          expect(service.requests.slice(before)).toEqual([
            `/api/wallet_check?network=BITCOIN&wallet_address=${BIP84_ZPUB}`,
          ]);
        });

        it('says that buyers pay a plain address exact amounts', async () => {
          expect(await check(service.url, BITCOIN_ADDRESS, 'bitcoin')).toEqual({
            result: 'address',
            problem: null,
            field: null,
            message: ADDRESS_NOTICE,
            description: 'a Bitcoin address: buyers pay exact amounts',
            addresses: [],
          });
        });

        it("turns the service's refusal (400) into a settings error for the wallet field, with the service's reason", async () => {
          expect(await check(service.url, REFUSED_BITCOIN_KEY)).toEqual({
            result: 'refused',
            problem: null,
            field: 'wallet_address',
            message: `Wallet address (BITCOIN): the Crypto Checkout service refuses it: ${REFUSED_BITCOIN_KEY_REASON}`,
            description: '',
            addresses: [],
          });
        });

        it('does not stand in the way of an older service (404): it says the addresses could not be shown, and why', async () => {
          const url = `${service.url}/older`;
          expect(await check(url, BIP84_ZPUB)).toEqual({
            result: 'unavailable',
            problem: 'old_service',
            field: null,
            message: `The first receive addresses of this key could not be shown: the service at ${url} does not know this check (HTTP 404): it runs a version from before Bitcoin extended public keys. The key is saved; save the settings again once the service answers, to compare the addresses with your wallet.`,
            description: '',
            addresses: [],
          });
          expect((await check(url, BITCOIN_ADDRESS)).message).toBe(
            `The Crypto Checkout service could not check this Bitcoin address: the service at ${url} does not know this check (HTTP 404): it runs a version from before Bitcoin extended public keys. The address is saved.`,
          );
        });

        it('names a failing service and a closed port, without refusing the wallet', async () => {
          expect(await check(`${service.url}/failing`, BIP84_ZPUB)).toMatchObject({
            result: 'unavailable',
            problem: 'http_status',
            field: null,
            message: `The first receive addresses of this key could not be shown: the service at ${service.url}/failing answered HTTP 503 (unavailable: The service is starting; try again in a minute.). The key is saved; save the settings again once the service answers, to compare the addresses with your wallet.`,
          });
          const closed = await check(closedUrl, BIP84_ZPUB);
          expect(closed).toMatchObject({ result: 'unavailable', problem: 'connection_failed', field: null });
          expect(closed.message).toMatch(
            new RegExp(
              `^The first receive addresses of this key could not be shown: no connection to ${closedUrl.replace(/\./g, '\\.')} \\(`,
            ),
          );
        });

        it('asks nothing for a wallet on another network', async () => {
          const before = service.requests.length;
          expect(
            await check(service.url, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'POLYGON'),
          ).toMatchObject({ result: 'not_checked', message: '' });
          expect(service.requests.length).toBe(before);
        });

        it('passes its texts through the translate callable, the service words inserted as they are', async () => {
          expect((await check(service.url, BIP84_ZPUB, 'BITCOIN', true)).message).toBe(`FR: ${KEY_NOTICE}`);
          expect((await check(`${service.url}/older`, BIP84_ZPUB, 'BITCOIN', true)).message).toMatch(
            /^FR: The first receive addresses of this key could not be shown: FR: the service at /,
          );
        });
      });
    }

    it('gives up after its timeout (at most 5 seconds) on a service that hangs, and the key stays saveable', async () => {
      const result = (await php().runJson(`
        require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
        $check = new CryptoCheckout\\Client\\Kernel\\WalletCheck(new CryptoCheckout\\Client\\Http\\CurlTransport(), null, 1);
        echo json_encode($check->check(${phpString(`${service.url}/slow`)}, 'BITCOIN', ${phpString(BIP84_ZPUB)}), JSON_UNESCAPED_SLASHES);
      `)) as Check;
      expect(result).toMatchObject({ result: 'unavailable', problem: 'timeout', field: null });
      expect(result.message).toBe(
        `The first receive addresses of this key could not be shown: no answer from ${service.url}/slow within 1 seconds. The key is saved; save the settings again once the service answers, to compare the addresses with your wallet.`,
      );
      // The stand-in answers after 3 s: a check that waited would have shown the addresses.
    });

    it('never waits longer than 5 seconds, whatever timeout it is given', async () => {
      const timeout = await php().runJson(`
        require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
        $transport = new class implements CryptoCheckout\\Client\\Http\\Transport {
            public int $timeout = 0;
            public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): CryptoCheckout\\Client\\Http\\Response
            {
                $this->timeout = $timeoutSeconds;
                throw new CryptoCheckout\\Client\\Exception\\NetworkException('timed out', true);
            }
        };
        $result = (new CryptoCheckout\\Client\\Kernel\\WalletCheck($transport, null, 60))->check('https://pay.example.com', 'BITCOIN', ${phpString(BIP84_ZPUB)});
        echo json_encode([$transport->timeout, $result['problem']]);
      `);
      expect(timeout).toEqual([5, 'timeout']);
    });

    it("refuses an answer that is not the service's wallet check: no address with markup is ever shown", async () => {
      const result = (await php().runJson(`
        require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
        $transport = new class implements CryptoCheckout\\Client\\Http\\Transport {
            public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): CryptoCheckout\\Client\\Http\\Response
            {
                return new CryptoCheckout\\Client\\Http\\Response(200, json_encode(['status' => 'success', 'data' => [
                    'network' => 'BITCOIN', 'wallet_address' => 'zpub', 'kind' => 'extended_key', 'description' => 'BIP84',
                    'first_addresses' => ['bc1q<script>alert(1)</script>'],
                ]]), []);
            }
        };
        echo json_encode((new CryptoCheckout\\Client\\Kernel\\WalletCheck($transport))->check('https://pay.example.com', 'BITCOIN', ${phpString(BIP84_ZPUB)}), JSON_UNESCAPED_SLASHES);
      `)) as Check;
      expect(result).toMatchObject({ result: 'unavailable', problem: 'not_service', addresses: [] });
      expect(result.message).toContain(
        'the answer from https://pay.example.com is not a Crypto Checkout wallet check (The service sent wallet check data in an unexpected shape: first_addresses.0 must be an address of letters and digits.)',
      );
      expect(result.message).not.toContain('<script>');
    });

    it('Kernel::checkWallet remembers what it was told for the settings page, never a refusal', async () => {
      const result = await php().runJson(`
        require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
        use CryptoCheckout\\KernelTest\\{FakeClock, MemoryOrders, PdoSqlPort, Steps};
        $steps = new Steps();
        $clock = new FakeClock();
        $kernel = new CryptoCheckout\\Client\\Kernel\\Kernel(new MemoryOrders($steps), PdoSqlPort::sqlite($steps), new CryptoCheckout\\Client\\Http\\CurlTransport(), null, $clock);
        $kernel->ledger()->install();
        $url = ${phpString(service.url)};
        $key = ${phpString(BIP84_ZPUB)};
        $checked = $kernel->checkWallet($url . '/', 'BITCOIN', $key);
        $refused = $kernel->checkWallet($url, 'BITCOIN', ${phpString(REFUSED_BITCOIN_KEY)});
        $out = [
            'checked' => $checked,
            'remembered' => $kernel->rememberedWalletCheck($url, 'bitcoin', $key),
            'refused' => $refused['result'],
            'refusedRemembered' => $kernel->rememberedWalletCheck($url, 'BITCOIN', ${phpString(REFUSED_BITCOIN_KEY)}),
            'otherWallet' => $kernel->rememberedWalletCheck($url, 'BITCOIN', ${phpString(BITCOIN_ADDRESS)}),
        ];
        $clock->now += CryptoCheckout\\Client\\Kernel\\Kernel::WALLET_CHECK_MEMORY_SECONDS;
        $out['later'] = $kernel->rememberedWalletCheck($url, 'BITCOIN', $key);
        echo json_encode($out, JSON_UNESCAPED_SLASHES);
      `);
      expect(result).toMatchObject({
        checked: { result: 'extended_key', addresses: [...BIP84_FIRST_ADDRESSES], message: KEY_NOTICE },
        refused: 'refused',
        refusedRemembered: null,
        otherWallet: null,
        later: null,
      });
      const { checked, remembered } = result as { checked: Check; remembered: Check };
      expect(remembered).toEqual(checked);
      expect(typeof checked.checked_at).toBe('number');
    });
  },
  { mounts: CLIENT_MOUNTS },
);
