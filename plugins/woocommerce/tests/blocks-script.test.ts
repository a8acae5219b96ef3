/**
 * The built block-checkout script (build/blocks.js) run the way WordPress runs it: as a classic
 * script whose imports are the window.wc / window.wp globals listed in build/blocks.asset.php.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { stagedPlugin } from './support/staged-plugin.js';

interface Element {
  type: unknown;
  props: Record<string, unknown> | null;
  children: unknown[];
}

/** A minimal stand-in for wp.element.createElement that renders function components eagerly. */
function createElement(
  type: unknown,
  props: Record<string, unknown> | null = null,
  ...children: unknown[]
): unknown {
  if (typeof type === 'function') return (type as (p: unknown) => unknown)({ ...props, children });
  return { type, props, children } satisfies Element;
}

function text(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  return (node as Element).children.map(text).join('');
}

interface RegisteredMethod {
  name: string;
  ariaLabel: string;
  label: Element;
  content: Element;
  edit: Element;
  placeOrderButtonLabel: string;
  supports: { features: string[] };
  canMakePayment(argument: unknown): boolean;
}

function load(settings: Record<string, unknown> | undefined): RegisteredMethod[] {
  const registered: RegisteredMethod[] = [];
  const window = {
    wc: {
      wcBlocksRegistry: { registerPaymentMethod: (config: RegisteredMethod) => registered.push(config) },
      wcSettings: {
        getSetting: (name: string, fallback: unknown) => {
          // @woocommerce/settings resolves "<method>_data" from paymentMethodData.
          const data: Record<string, unknown> = settings === undefined ? {} : { cryptocheckout: settings };
          return name.endsWith('_data') ? (data[name.replace('_data', '')] ?? fallback) : fallback;
        },
      },
    },
    wp: {
      element: { createElement },
      htmlEntities: {
        decodeEntities: (value: string) => value.replace(/&amp;/g, '&').replace(/&#8217;/g, '’'),
      },
      i18n: { __: (value: string) => value },
    },
  };
  new Function('window', source)(window);
  return registered;
}

let source = '';
let pluginDir = '';
beforeAll(async () => {
  pluginDir = await stagedPlugin();
  source = readFileSync(join(pluginDir, 'build', 'blocks.js'), 'utf8');
});

const configured = {
  title: 'Crypto &amp; stablecoins',
  description: 'Pay with USDC &amp; more.',
  buttonLabel: 'Pay with crypto',
  supports: ['products'],
  isConfigured: true,
  supportedCurrencies: ['EUR', 'USD'],
  checkoutDisplay: 'redirect',
};

describe('blocks script', () => {
  it('declares the WooCommerce and WordPress scripts it needs, without the JSX runtime', () => {
    const asset = readFileSync(join(pluginDir, 'build', 'blocks.asset.php'), 'utf8');
    for (const handle of ['wc-blocks-registry', 'wc-settings', 'wp-element', 'wp-html-entities', 'wp-i18n']) {
      expect(asset).toContain(`'${handle}'`);
    }
    expect(asset).not.toContain('react-jsx-runtime');
  });

  it('registers one method with a decoded label, its description and the button label', () => {
    const [method, ...rest] = load(configured) as [RegisteredMethod, ...RegisteredMethod[]];
    expect(rest).toEqual([]);
    expect(method.name).toBe('cryptocheckout');
    expect(method.ariaLabel).toBe('Crypto & stablecoins');
    expect(text(method.label)).toBe('Crypto & stablecoins');
    expect(method.label.props?.className).toBe('wc-block-components-payment-method-label');
    expect(text(method.content)).toBe('Pay with USDC & more.');
    expect(text(method.edit)).toBe('Pay with USDC & more.');
    expect(method.placeOrderButtonLabel).toBe('Pay with crypto');
    expect(method.supports).toEqual({ features: ['products'] });
  });

  it('can pay only when configured and the cart currency is one the service supports', () => {
    const [method] = load(configured) as [RegisteredMethod];
    expect(method.canMakePayment({ cartTotals: { currency_code: 'EUR' } })).toBe(true);
    expect(method.canMakePayment({ cartTotals: { currency_code: 'usd' } })).toBe(true);
    expect(method.canMakePayment({ cartTotals: { currency_code: 'XTS' } })).toBe(false);
    expect(method.canMakePayment({})).toBe(false);
    const [unconfigured] = load({ ...configured, isConfigured: false }) as [RegisteredMethod];
    expect(unconfigured.canMakePayment({ cartTotals: { currency_code: 'EUR' } })).toBe(false);
  });

  it('falls back to a default title and no description when the server sent no settings', () => {
    const [method] = load(undefined) as [RegisteredMethod];
    expect(text(method.label)).toBe('Pay with crypto');
    expect(text(method.content)).toBe('');
    expect(method.canMakePayment({ cartTotals: { currency_code: 'EUR' } })).toBe(false);
  });

  it('stays small', () => {
    const gzipped = gzipSync(source).length;
    expect(gzipped).toBeLessThan(2_048);
  });
});
