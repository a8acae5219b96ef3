// Registers Crypto Checkout in the WooCommerce block checkout. Built without the JSX runtime
// (createElement only), so it runs on every WordPress the plugin supports.
import { registerPaymentMethod } from '@woocommerce/blocks-registry';
import { getSetting } from '@woocommerce/settings';
import { createElement } from '@wordpress/element';
import { decodeEntities } from '@wordpress/html-entities';
import { __ } from '@wordpress/i18n';
import { type BlockSettings, createPaymentMethod } from './lib/payment-method.js';

registerPaymentMethod(
  createPaymentMethod(getSetting<BlockSettings>('cryptocheckout_data', {}), {
    createElement,
    decodeEntities,
    __,
  }),
);
