/**
 * The gateway's settings on PHP 8 (one WordPress boot): network, asset and wallet saved only
 * together; saved settings that cannot take payments take the method off the checkout with a notice
 * for the shop managers; the same rules for WooCommerce's REST API and for update_option; and the
 * service URL's reachability and whether it offers the saved settlement, checked on save and shown
 * on the settings page; and a Bitcoin wallet put to the service on save (an extended key's first
 * receive addresses shown, a key the service refuses not saved).
 */
import { createServer, type Server } from 'node:http';
import {
  BIP84_DESCRIPTION,
  BIP84_FIRST_ADDRESSES,
  BIP84_ZPUB,
  BITCOIN_ADDRESS,
  type BitcoinWalletService,
  closedLoopbackUrl,
  listenOnLoopback,
  REFUSED_BITCOIN_KEY,
  REFUSED_BITCOIN_KEY_REASON,
  startBitcoinWalletService,
  startSolanaOnlyService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lit, useShop, WALLET } from './support/shop.js';
import { PLUGIN_FILE } from './support/wordpress.js';

const BITCOIN_WALLET = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const SOLANA_WALLET = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const SOLANA_HELP =
  "On Solana, enter your wallet address, not a token account. Tokens go to your wallet's associated token account; the buyer's wallet creates it when missing, as Solana Pay wallets do.";
const OPTION = 'woocommerce_cryptocheckout_settings';
const BITCOIN_HELP =
  "On Bitcoin, enter an address or, better, your wallet's extended public key: a zpub (recommended), an xpub or ypub, or a descriptor such as wpkh(…), sh(wpkh(…)) or tr(…). Public keys only: the service can never spend from them. With a key, each order gets its own receive address; saving shows the first ones to compare with your wallet.";
const KEY_NOTICE = `Crypto Checkout derives a new address for each order from this key (${BIP84_DESCRIPTION}). Check that your wallet shows these as its first receive addresses: ${BIP84_FIRST_ADDRESSES.join(', ')}. If they differ, the key is not the one your wallet receives on.`;

interface RestAnswer {
  status: number;
  data: {
    code?: string;
    message?: string;
    data?: { status: number; params?: Record<string, string> };
    settings?: Record<string, { value: string }>;
    title?: string;
  };
  stored: Record<string, string>;
}

describe('settings on PHP 8', () => {
  const shop = useShop({ php: '8' });
  const { saveSettings, validSettings } = shop;

  /** A web server that is not the service: an HTML page for every path. */
  let impostor: Server;
  let impostorUrl: string;
  let impostorHits = 0;
  let closedUrl: string;
  /** A live service that watches only Solana: its price check offers no USDC on Polygon. */
  let solanaOnly: Awaited<ReturnType<typeof startSolanaOnlyService>>;
  let solanaOnlyUrl: string;

  beforeAll(async () => {
    impostor = createServer((_request, response) => {
      impostorHits += 1;
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Shop</title><p>Hello</p>');
    });
    impostorUrl = await listenOnLoopback(impostor);
    closedUrl = await closedLoopbackUrl();
    solanaOnly = await startSolanaOnlyService();
    solanaOnlyUrl = solanaOnly.url;

    const activated = await shop.wp.json(`
      require_once ABSPATH . 'wp-admin/includes/plugin.php';
      echo json_encode([activate_plugin('woocommerce/woocommerce.php'), activate_plugin(${lit(PLUGIN_FILE)})]);
    `);
    expect(activated).toEqual([null, null]);
    await shop.configure();
  });

  afterAll(async () => {
    impostor?.closeAllConnections();
    await new Promise<void>((resolve) => (impostor ? impostor.close(() => resolve()) : resolve()));
    await solanaOnly?.close();
  });

  const stored = () => shop.wp.json<Record<string, string>>(`echo json_encode(get_option('${OPTION}'));`);
  const offered = () =>
    shop.wp.json<{ classic: string[]; blocks: boolean }>(`
      $method = new CryptoCheckout\\WooCommerce\\Blocks\\PaymentMethod();
      $method->initialize();
      echo json_encode(['classic' => array_keys(WC()->payment_gateways()->get_available_payment_gateways()), 'blocks' => $method->is_active()]);
    `);
  /** Writes the option row itself, as an older version or a database edit would: no filter runs. */
  const writeBehindTheBack = (changes: Record<string, string>) =>
    shop.wp.run(`
      global $wpdb;
      $settings = array_merge(get_option('${OPTION}'), json_decode(${lit(JSON.stringify(changes))}, true));
      $wpdb->update($wpdb->options, ['option_value' => maybe_serialize($settings)], ['option_name' => '${OPTION}']);
      wp_cache_delete('alloptions', 'options');
      wp_cache_delete('${OPTION}', 'options');
    `);
  /** The admin notices as a user with the given role sees them. */
  const adminNotices = (role: 'administrator' | 'subscriber') =>
    shop.wp.json<string>(`
      $user = get_users(['role' => '${role}', 'number' => 1])[0] ?? get_user_by('id', wp_insert_user(['user_login' => 'test-${role}', 'user_pass' => wp_generate_password(), 'role' => '${role}']));
      wp_set_current_user($user->ID);
      ob_start();
      do_action('admin_notices');
      echo json_encode(ob_get_clean());
    `);
  /** A REST request to WooCommerce's payment gateway route, as the given user (0: nobody logged in). */
  const rest = (
    method: string,
    body: Record<string, unknown>,
    user = 1,
    route = '/wc/v3/payment_gateways/cryptocheckout',
  ) =>
    shop.wp.json<RestAnswer>(`
      wp_set_current_user(${user});
      $request = new WP_REST_Request(${lit(method)}, ${lit(route)});
      $request->set_header('content-type', 'application/json');
      $request->set_body(${lit(JSON.stringify(body))});
      $response = rest_do_request($request);
      echo json_encode(['status' => $response->get_status(), 'data' => rest_get_server()->response_to_data($response, false), 'stored' => get_option('${OPTION}')]);
    `);
  /** The settings page as a shop manager sees it. */
  const settingsPage = () =>
    shop.wp.json<string>(`
      wp_set_current_user(1);
      ob_start();
      WC()->payment_gateways()->payment_gateways()['cryptocheckout']->admin_options();
      echo json_encode(ob_get_clean());
    `);

  describe('network, asset and wallet are saved together', () => {
    it('switching the network while the wallet check is bypassed changes none of the three, and the method stays offered', async () => {
      const saved = await saveSettings({
        ...validSettings(),
        wallet_network: 'BITCOIN',
        wallet_currency: 'BTC',
      });
      expect(saved.errors).toEqual([
        expect.stringMatching(
          /^Wallet address \(BITCOIN\): This is an EVM address .* but the network is BITCOIN/,
        ),
      ]);
      expect(saved.admin_errors).toContain(saved.errors[0]);
      expect(saved.admin_errors).toContain(
        'Network, settlement asset and wallet address were left as they were: they are saved together, once all three fit each other.',
      );
      expect(saved.saved).toMatchObject({
        wallet_network: 'POLYGON',
        wallet_currency: 'USDC',
        wallet_address: WALLET,
      });
      expect(await offered()).toEqual({ classic: ['cryptocheckout'], blocks: true });
    });

    it('an asset the network does not settle keeps the network and the wallet too', async () => {
      const saved = await saveSettings({
        ...validSettings(),
        wallet_network: 'BITCOIN',
        wallet_currency: 'USDC',
        wallet_address: BITCOIN_WALLET,
      });
      expect(saved.errors).toEqual([
        expect.stringMatching(/^Settlement asset: USDC is not settled on BITCOIN; choose one of BTC/),
      ]);
      expect(saved.saved).toMatchObject({
        wallet_network: 'POLYGON',
        wallet_currency: 'USDC',
        wallet_address: WALLET,
      });
    });

    it('all three that fit are saved, and the other fields are saved whatever happens to the three', async () => {
      const moved = await saveSettings({
        ...validSettings(),
        wallet_network: 'BITCOIN',
        wallet_currency: 'BTC',
        wallet_address: BITCOIN_WALLET,
      });
      expect(moved.errors).toEqual([]);
      expect(moved.saved).toMatchObject({
        wallet_network: 'BITCOIN',
        wallet_currency: 'BTC',
        wallet_address: BITCOIN_WALLET,
      });
      const refused = await saveSettings({
        ...validSettings(),
        title: 'Crypto',
        wallet_network: 'POLYGON',
        wallet_currency: 'USDC',
        wallet_address: '0x1234',
      });
      expect(refused.saved).toMatchObject({
        title: 'Crypto',
        wallet_network: 'BITCOIN',
        wallet_currency: 'BTC',
        wallet_address: BITCOIN_WALLET,
      });
      expect((await saveSettings(validSettings())).errors).toEqual([]);
    });
  });

  describe('Solana', () => {
    it('offers Solana with USDC, USDT and SOL, and the wallet help says where tokens go', async () => {
      const page = await settingsPage();
      expect(page).toMatch(/<option value="SOLANA"\s*>Solana<\/option>/);
      for (const asset of ['USDC', 'USDT', 'SOL'])
        expect(page).toMatch(new RegExp(`<option value="${asset}"`));
      expect(page).toContain(SOLANA_HELP);
      // The settings script offers each network's own assets: all three on Solana.
      const inline = await shop.wp.json<string>(`
        $_GET['section'] = 'cryptocheckout';
        wp_set_current_user(1);
        \\CryptoCheckout\\WooCommerce\\Helper\\Assets::enqueueSettingsScript('woocommerce_page_wc-settings');
        echo json_encode(implode('', (array) (wp_scripts()->registered['cryptocheckout-admin-settings']->extra['before'] ?? [])));
      `);
      expect(inline).toContain('"SOLANA":["USDC","USDT","SOL"]');
    });

    it.each([
      'USDC',
      'USDT',
      'SOL',
    ])('saves a Solana wallet settling in %s, exactly as typed (base58 keeps its case)', async (asset) => {
      const saved = await saveSettings({
        ...validSettings(),
        wallet_network: 'SOLANA',
        wallet_currency: asset,
        wallet_address: ` ${SOLANA_WALLET}\u00a0`,
      });
      expect(saved.errors).toEqual([]);
      expect(saved.saved).toMatchObject({
        wallet_network: 'SOLANA',
        wallet_currency: asset,
        wallet_address: SOLANA_WALLET,
      });
      expect(await offered()).toEqual({ classic: ['cryptocheckout'], blocks: true });
    });

    it('refuses an address that is not a Solana wallet with a message naming the field, on the form and the REST API', async () => {
      await saveSettings({
        ...validSettings(),
        wallet_network: 'SOLANA',
        wallet_currency: 'USDC',
        wallet_address: SOLANA_WALLET,
      });
      const cases: Array<[string, string, RegExp]> = [
        [
          'SOLANA',
          `${SOLANA_WALLET.slice(0, -1)}O`,
          /^Wallet address \(SOLANA\): The address contains "O", which never appears in a Solana address/,
        ],
        [
          'SOLANA',
          SOLANA_WALLET.slice(0, 30),
          /^Wallet address \(SOLANA\): The address is too short for a Solana address/,
        ],
        [
          'SOLANA',
          WALLET,
          /^Wallet address \(SOLANA\): This is an EVM address .*, but the network is SOLANA\./,
        ],
        [
          'POLYGON',
          SOLANA_WALLET,
          /^Wallet address \(POLYGON\): This is a Solana address, but the network is POLYGON\./,
        ],
      ];
      for (const [network, address, message] of cases) {
        const saved = await saveSettings({
          ...validSettings(),
          wallet_network: network,
          wallet_currency: 'USDC',
          wallet_address: address,
        });
        expect(saved.errors, address).toEqual([expect.stringMatching(message)]);
        expect(saved.saved).toMatchObject({ wallet_network: 'SOLANA', wallet_address: SOLANA_WALLET });
      }
      const answer = await rest('PUT', { settings: { wallet_address: `${SOLANA_WALLET.slice(0, -1)}0` } });
      expect(answer.status).toBe(400);
      expect(answer.data.message).toMatch(/^Wallet address \(SOLANA\): The address contains "0"/);
      expect(Object.keys(answer.data.data?.params ?? {})).toEqual(['wallet_address']);
      expect(answer.stored).toMatchObject({ wallet_network: 'SOLANA', wallet_address: SOLANA_WALLET });
      expect((await saveSettings(validSettings())).errors).toEqual([]);
    });
  });

  describe('a Bitcoin wallet, put to the service on save', () => {
    /** A live service with Bitcoin: it derives a key's first addresses and refuses REFUSED_BITCOIN_KEY. */
    let bitcoin: BitcoinWalletService;
    beforeAll(async () => {
      bitcoin = await startBitcoinWalletService();
    });
    afterAll(async () => {
      await saveSettings(validSettings());
      await bitcoin?.close();
    });
    const onBitcoin = (wallet: string, serviceUrl = bitcoin.url) => ({
      ...validSettings(),
      service_url: serviceUrl,
      wallet_network: 'BITCOIN',
      wallet_currency: 'BTC',
      wallet_address: wallet,
    });

    it('the wallet help says a Bitcoin wallet can be an address or an extended public key, public keys only', async () => {
      expect(await settingsPage()).toContain(BITCOIN_HELP);
    });

    it("saves an extended key and shows its first three receive addresses as the service derives them, to compare with the wallet's", async () => {
      const saved = await saveSettings(onBitcoin(` ${BIP84_ZPUB} `));
      expect(saved.errors).toEqual([]);
      expect(saved.admin_errors).toEqual([]);
      expect(saved.admin_messages).toEqual([KEY_NOTICE]);
      expect(saved.saved).toMatchObject({
        service_url: bitcoin.url,
        wallet_network: 'BITCOIN',
        wallet_currency: 'BTC',
        wallet_address: BIP84_ZPUB,
      });
      expect(bitcoin.requests).toContain(`/api/wallet_check?network=BITCOIN&wallet_address=${BIP84_ZPUB}`);
      expect(await offered()).toEqual({ classic: ['cryptocheckout'], blocks: true });
    });

    it('notes that buyers pay a plain address exact amounts', async () => {
      const saved = await saveSettings(onBitcoin(BITCOIN_ADDRESS));
      expect(saved.errors).toEqual([]);
      expect(saved.admin_messages).toEqual([
        'Buyers pay this Bitcoin address exact amounts, with a few satoshis added to each so that every payment is matched to its order. An extended public key (zpub) also takes part payments and top-ups.',
      ]);
      expect(saved.saved.wallet_address).toBe(BITCOIN_ADDRESS);
    });

    it("refuses a key the service refuses (400), with the service's reason, and keeps the saved wallet", async () => {
      await saveSettings(onBitcoin(BIP84_ZPUB));
      const saved = await saveSettings({ ...onBitcoin(REFUSED_BITCOIN_KEY), title: 'Bitcoin' });
      const refusal = `Wallet address (BITCOIN): the Crypto Checkout service refuses it: ${REFUSED_BITCOIN_KEY_REASON}`;
      expect(saved.errors).toEqual([refusal]);
      expect(saved.admin_errors).toEqual([
        refusal,
        'Network, settlement asset and wallet address were left as they were: they are saved together, once all three fit each other.',
      ]);
      expect(saved.admin_messages).toEqual([]);
      expect(saved.saved).toMatchObject({
        title: 'Bitcoin',
        wallet_network: 'BITCOIN',
        wallet_address: BIP84_ZPUB,
      });
    });

    it('saves the key when the service is older (404) or does not answer, saying why the addresses could not be shown', async () => {
      const older = await saveSettings(onBitcoin(BIP84_ZPUB, `${bitcoin.url}/older`));
      expect(older.errors).toEqual([]);
      expect(older.admin_messages).toEqual([]);
      const notice = `The first receive addresses of this key could not be shown: the service at ${bitcoin.url}/older does not know this check (HTTP 404): it runs a version from before Bitcoin extended public keys. The key is saved; save the settings again once the service answers, to compare the addresses with your wallet.`;
      expect(older.admin_errors).toEqual([notice]);
      expect(older.saved).toMatchObject({ service_url: `${bitcoin.url}/older`, wallet_address: BIP84_ZPUB });
      expect(shop.wp.log()).toContain(`WARNING Wallet check after saving the settings: ${notice}`);

      const down = await saveSettings(onBitcoin(BIP84_ZPUB, closedUrl));
      expect(down.errors).toEqual([]);
      expect(down.saved).toMatchObject({ service_url: closedUrl, wallet_address: BIP84_ZPUB });
      expect(down.admin_errors).toEqual([
        expect.stringMatching(
          new RegExp(
            `^The first receive addresses of this key could not be shown: no connection to ${closedUrl.replace(/\./g, '\\.')} \\(`,
          ),
        ),
        expect.stringMatching(/^Settings saved, but the service does not answer as it should\. /),
      ]);
    });

    it('asks nothing for a wallet on another network', async () => {
      const before = bitcoin.requests.length;
      expect((await saveSettings({ ...validSettings(), service_url: bitcoin.url })).admin_messages).toEqual(
        [],
      );
      expect(bitcoin.requests.slice(before).filter((path) => path.includes('wallet_check'))).toEqual([]);
    });
  });

  describe('saved settings that cannot take payments', () => {
    it('take the method off the classic and the block checkout, with a notice for shop managers only', async () => {
      await writeBehindTheBack({ wallet_network: 'BITCOIN', wallet_currency: 'BTC' });
      expect(await offered()).toEqual({ classic: [], blocks: false });

      const notices = await adminNotices('administrator');
      expect(notices).toContain(
        'Crypto Checkout is not offered at checkout: its saved settings cannot take payments.',
      );
      expect(notices).toMatch(
        /<li>Wallet address \(BITCOIN\): This is an EVM address .* but the network is BITCOIN[^<]*<\/li>/,
      );
      expect(notices).toContain(
        '/wp-admin/admin.php?page=wc-settings&#038;tab=checkout&#038;section=cryptocheckout">Fix the Crypto Checkout settings</a>',
      );
      expect(await adminNotices('subscriber')).not.toContain('Crypto Checkout');

      expect((await saveSettings(validSettings())).errors).toEqual([]);
      expect(await offered()).toEqual({ classic: ['cryptocheckout'], blocks: true });
      expect(await adminNotices('administrator')).not.toContain('Crypto Checkout is not offered');
    });

    it('a service URL an older version stored unchecked counts too', async () => {
      await writeBehindTheBack({ service_url: 'javascript:alert(1)' });
      expect(await offered()).toEqual({ classic: [], blocks: false });
      expect(await adminNotices('administrator')).toContain(
        '<li>Service URL: enter the address of your Crypto Checkout service',
      );
      await saveSettings(validSettings());
    });
  });

  describe("WooCommerce's REST API", () => {
    it('refuses a wallet that is not one with 400, naming the field and the fix, and stores nothing', async () => {
      const before = await stored();
      const answer = await rest('PUT', { settings: { wallet_address: 'not-a-wallet' }, title: 'Changed' });
      expect(answer.status).toBe(400);
      expect(answer.data.code).toBe('cryptocheckout_invalid_settings');
      expect(answer.data.message).toMatch(/^Wallet address \(POLYGON\): /);
      expect(Object.keys(answer.data.data?.params ?? {})).toEqual(['wallet_address']);
      expect(answer.stored).toEqual(before);
    });

    it('refuses a javascript: service URL, and a network the stored asset and wallet do not fit', async () => {
      const before = await stored();
      const url = await rest('PUT', { settings: { service_url: 'javascript:alert(1)' } });
      expect(url.status).toBe(400);
      expect(url.data.message).toMatch(
        /^Service URL: enter the address of your Crypto Checkout service, starting with https:\/\//,
      );
      expect(url.stored).toEqual(before);

      const network = await rest(
        'POST',
        { settings: { wallet_network: 'BITCOIN' } },
        1,
        '/wc/v2/payment_gateways/cryptocheckout',
      );
      expect(network.status).toBe(400);
      expect(Object.keys(network.data.data?.params ?? {})).toEqual(['wallet_currency', 'wallet_address']);
      expect(network.stored).toEqual(before);
    });

    it('stores a valid change in the form the settings form stores', async () => {
      const answer = await rest('PUT', {
        settings: {
          wallet_network: 'BITCOIN',
          wallet_currency: 'BTC',
          wallet_address: BITCOIN_WALLET.toUpperCase(),
          service_url: `${shop.service.url}/api/`,
        },
        title: 'Crypto',
      });
      expect(answer.status).toBe(200);
      expect(answer.data.title).toBe('Crypto');
      expect(answer.stored).toMatchObject({
        wallet_network: 'BITCOIN',
        wallet_currency: 'BTC',
        wallet_address: BITCOIN_WALLET,
        service_url: shop.service.url,
        title: 'Crypto',
      });
      const back = await rest('PUT', {
        settings: {
          wallet_network: 'POLYGON',
          wallet_currency: 'USDC',
          wallet_address: WALLET.toLowerCase(),
        },
        title: 'Pay with crypto',
      });
      expect(back.status).toBe(200);
      expect(back.stored).toMatchObject({
        wallet_network: 'POLYGON',
        wallet_currency: 'USDC',
        wallet_address: WALLET,
      });
    });

    it("leaves WooCommerce's own answers alone: a refused choice, and a user who may not edit", async () => {
      const before = await stored();
      const choice = await rest('PUT', { settings: { checkout_display: 'popup' } });
      expect(choice.status).toBe(400);
      expect(choice.data.code).toBe('rest_setting_value_invalid');
      const anonymous = await rest('PUT', { settings: { wallet_address: 'not-a-wallet' } }, 0);
      expect(anonymous.status).toBe(401);
      expect(anonymous.data.code).toBe('woocommerce_rest_cannot_edit');
      expect(anonymous.stored).toEqual(before);
    });
  });

  describe('update_option (code, WP-CLI)', () => {
    it('keeps the stored settings when a write would store a combination the rules refuse, and logs why', async () => {
      const before = await stored();
      const result = await shop.wp.json<{ updated: boolean; stored: Record<string, string> }>(`
        $settings = get_option('${OPTION}');
        $settings['wallet_network'] = 'BITCOIN';
        $settings['wallet_currency'] = 'BTC';
        $settings['title'] = 'Changed';
        echo json_encode(['updated' => update_option('${OPTION}', $settings), 'stored' => get_option('${OPTION}')]);
      `);
      expect(result).toEqual({ updated: false, stored: before });
      expect(shop.wp.log()).toMatch(
        /WARNING Settings write refused, the stored settings are kept: Wallet address \(BITCOIN\): This is an EVM address.* \(fields wallet_address\)/,
      );
    });

    it('lets a write through that leaves the four settings as they are, even when they were already wrong', async () => {
      await writeBehindTheBack({ wallet_address: '0x1234' });
      const result = await shop.wp.json<Record<string, string>>(`
        $settings = get_option('${OPTION}');
        $settings['enabled'] = 'no';
        update_option('${OPTION}', $settings);
        echo json_encode(get_option('${OPTION}'));
      `);
      expect(result).toMatchObject({ enabled: 'no', wallet_address: '0x1234' });
      expect((await saveSettings(validSettings())).errors).toEqual([]);
    });
  });

  describe('whether the service answers', () => {
    it('saving checks the service URL: the real service is fine, and the page says it is reachable', async () => {
      const saved = await saveSettings(validSettings());
      expect(saved.admin_errors).toEqual([]);
      const page = await settingsPage();
      expect(page).toMatch(
        new RegExp(
          `<span class="cryptocheckout-service-state" data-state="reachable"><strong>Service reachable\\.</strong> Service URL ${shop.service.url.replace(/\./g, '\\.')}: the Crypto Checkout service answers\\. Checked at `,
        ),
      );
    });

    it("warns when the service answers but does not offer the saved settlement, with the service's reason, and says so on the page", async () => {
      const saved = await saveSettings({ ...validSettings(), service_url: solanaOnlyUrl });
      expect(saved.errors).toEqual([]);
      expect(saved.saved.service_url).toBe(solanaOnlyUrl);
      const answer = `Service URL ${solanaOnlyUrl}: the Crypto Checkout service answers, but does not offer payment in USDC on Polygon PoS, the settlement you chose: Not offered: this server does not watch USDC on Polygon PoS. Buyers cannot pay with crypto until it does.`;
      expect(saved.admin_errors).toEqual([
        `Settings saved, but buyers cannot pay with crypto yet. ${answer}`,
      ]);
      expect(shop.wp.log()).toContain(`WARNING Service check after saving the settings: ${answer}`);
      const page = await settingsPage();
      expect(page).toContain(
        'data-state="not_offered"><strong>Service reachable, but your settlement is not offered.</strong> Service URL ',
      );
      expect(page).toContain('Not offered: this server does not watch USDC on Polygon PoS.');
      // The same service offers USDC on Solana: no warning for a shop paid in it.
      const onSolana = await saveSettings({
        ...validSettings(),
        service_url: solanaOnlyUrl,
        wallet_network: 'SOLANA',
        wallet_currency: 'USDC',
        wallet_address: SOLANA_WALLET,
      });
      expect(onSolana.errors).toEqual([]);
      expect(onSolana.admin_errors).toEqual([]);
      expect(await settingsPage()).toContain('data-state="reachable"');
      expect((await saveSettings(validSettings())).admin_errors).toEqual([]);
    });

    it('a closed port is saved, with a warning naming the URL and the refused connection, and shown as unreachable', async () => {
      const saved = await saveSettings({ ...validSettings(), service_url: closedUrl });
      expect(saved.errors).toEqual([]);
      expect(saved.saved.service_url).toBe(closedUrl);
      expect(saved.admin_errors).toEqual([
        expect.stringMatching(
          new RegExp(
            `^Settings saved, but the service does not answer as it should\\. Service URL ${closedUrl.replace(/\./g, '\\.')}: no connection \\(`,
          ),
        ),
      ]);
      expect(await settingsPage()).toContain(
        'data-state="unreachable"><strong>Service unreachable.</strong>',
      );
      expect(shop.wp.log()).toContain(
        `WARNING Service check after saving the settings: Service URL ${closedUrl}: no connection`,
      );
    });

    it('a web server that is not the service is named as such; the page reuses the check for a minute', async () => {
      const hitsBefore = impostorHits;
      const saved = await saveSettings({ ...validSettings(), service_url: impostorUrl });
      expect(saved.admin_errors).toEqual([
        `Settings saved, but the service does not answer as it should. Service URL ${impostorUrl}: something answers there, but it is not a Crypto Checkout service (/api/payment_options did not return the service's JSON). Check the address.`,
      ]);
      expect(impostorHits).toBe(hitsBefore + 1);

      expect(await settingsPage()).toContain('data-state="unreachable"');
      expect(await settingsPage()).toContain('it is not a Crypto Checkout service');
      expect(impostorHits).toBe(hitsBefore + 1);
      // The kernel keeps the answer a minute in its state table.
      const lifetime = await shop.wp.json<number>(
        `global $wpdb; echo json_encode((int) $wpdb->get_var($wpdb->prepare("SELECT expires_at FROM {$wpdb->prefix}cryptocheckout_state WHERE state_key = %s", 'probe:' . sha1(${lit(impostorUrl)}))) - time());`,
      );
      expect(lifetime).toBeGreaterThan(50);
      expect(lifetime).toBeLessThanOrEqual(60);

      await shop.wp.run(
        `global $wpdb; $wpdb->delete($wpdb->prefix . 'cryptocheckout_state', ['state_key' => 'probe:' . sha1(${lit(impostorUrl)})]);`,
      );
      await settingsPage();
      expect(impostorHits).toBe(hitsBefore + 2);
      await saveSettings(validSettings());
    });

    it('waits at most 5 seconds for the service, and says when it did not answer in time', async () => {
      const result = await shop.wp.json<{
        timeout: number;
        state: { reachable: boolean; problem: string; message: string };
      }>(`
        $seen = 0;
        add_filter('pre_http_request', static function ($pre, $args) use (&$seen) {
            $seen = $args['timeout'];
            return new WP_Error('http_request_failed', 'cURL error 28: Operation timed out after 5001 milliseconds');
        }, 10, 2);
        $state = CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->probe('https://slow.example.com', true);
        echo json_encode(['timeout' => $seen, 'state' => $state]);
      `);
      expect(result.timeout).toBe(5);
      expect(result.state).toMatchObject({
        reachable: false,
        problem: 'timeout',
        message:
          'Service URL https://slow.example.com: no answer within 5 seconds. Check the address, and that the service is running and reachable from this server.',
      });
    });
  });
});
