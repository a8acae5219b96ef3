// Packages WordPress and WooCommerce provide at run time (window.wp.*, window.wc.*); the build
// turns these imports into script dependencies recorded in build/*.asset.php.

declare module '@woocommerce/blocks-registry' {
  export interface CanMakePaymentArgument {
    cartTotals?: { currency_code?: string; total_price?: string };
    [key: string]: unknown;
  }
  export interface PaymentMethodConfiguration {
    name: string;
    label: unknown;
    content: unknown;
    edit: unknown;
    ariaLabel: string;
    placeOrderButtonLabel?: string;
    canMakePayment: (argument: CanMakePaymentArgument) => boolean | Promise<boolean>;
    supports: { features: string[] };
  }
  export function registerPaymentMethod(configuration: PaymentMethodConfiguration): void;
}

declare module '@woocommerce/settings' {
  export function getSetting<T>(name: string, fallback?: T): T;
}

declare module '@wordpress/element' {
  export function createElement(
    type: unknown,
    props?: Record<string, unknown> | null,
    ...children: unknown[]
  ): unknown;
}

declare module '@wordpress/i18n' {
  export function __(text: string, domain?: string): string;
}

declare module '@wordpress/html-entities' {
  export function decodeEntities(text: string): string;
}
