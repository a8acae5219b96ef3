/** Gzipped size budget for pay.js and pay.css together. */
export declare const PAY_ASSETS_GZIP_BUDGET: number;
/** Builds pay.js and pay.css into `outdir` (default dist/assets) and returns their sizes in bytes. */
export declare function buildPayAssets(options?: {
  outdir?: string;
}): Promise<Record<'pay.js' | 'pay.css', { bytes: number; gzipBytes: number }>>;
