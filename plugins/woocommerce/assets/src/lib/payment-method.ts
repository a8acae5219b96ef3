import type { CanMakePaymentArgument, PaymentMethodConfiguration } from '@woocommerce/blocks-registry';

/** What Blocks\PaymentMethod::get_payment_method_data() hands to the block checkout. */
export interface BlockSettings {
  title?: string;
  description?: string;
  buttonLabel?: string;
  supports?: string[];
  isConfigured?: boolean;
  supportedCurrencies?: string[];
  checkoutDisplay?: string;
  settlement?: { asset?: string; network?: string };
}

/** The pieces of WordPress the configuration is built with, passed in so it can be tested alone. */
export interface BlockDependencies {
  createElement: (type: unknown, props?: Record<string, unknown> | null, ...children: unknown[]) => unknown;
  decodeEntities: (text: string) => string;
  __: (text: string, domain?: string) => string;
}

const DOMAIN = 'cryptocheckout-for-woocommerce';

/** Builds the configuration given to registerPaymentMethod. */
export function createPaymentMethod(
  settings: BlockSettings,
  wp: BlockDependencies,
): PaymentMethodConfiguration {
  const title = wp.decodeEntities(settings.title || '') || wp.__('Pay with crypto', DOMAIN);
  const description = wp.decodeEntities(settings.description || '');
  const currencies = new Set(settings.supportedCurrencies ?? []);

  const Label = () =>
    wp.createElement('span', { className: 'wc-block-components-payment-method-label' }, title);
  const Content = () =>
    wp.createElement(
      'div',
      { className: 'cryptocheckout-block-description' },
      description === '' ? null : wp.createElement('p', null, description),
    );

  return {
    name: 'cryptocheckout',
    label: wp.createElement(Label),
    content: wp.createElement(Content),
    edit: wp.createElement(Content),
    ariaLabel: title,
    placeOrderButtonLabel: settings.buttonLabel || wp.__('Pay with crypto', DOMAIN),
    canMakePayment: (argument: CanMakePaymentArgument) => {
      if (settings.isConfigured !== true) return false;
      const currency = argument.cartTotals?.currency_code;
      return typeof currency === 'string' && currencies.has(currency.toUpperCase());
    },
    supports: {
      features: settings.supports && settings.supports.length > 0 ? settings.supports : ['products'],
    },
  };
}
