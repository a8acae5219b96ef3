/** The namespace the PHP client is written in. */
export declare const SOURCE_NAMESPACE: string;
/** Absolute path of the client's PHP sources. */
export declare const SOURCE_DIR: string;
/** Rewrites one PHP source from `CryptoCheckout\Client` to `namespace`, adding `guard` to the autoloader when given. */
export declare function rewriteNamespace(source: string, namespace: string, guard?: string): string;
/** Copies the client's PHP files into `dest` under `namespace`; returns the written paths relative to `dest`. */
export declare function copyPhpClient(options: {
  dest: string;
  namespace: string;
  guard?: string;
  clean?: boolean;
}): Promise<string[]>;
