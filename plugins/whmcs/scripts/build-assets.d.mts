/** The module's built assets folder. */
export declare const ASSETS_DIR: string;
/** Bundles the invoice page script; returns each file's size and gzipped size in bytes. */
export declare function buildAssets(options?: {
  outdir?: string;
}): Promise<Record<string, { bytes: number; gzipBytes: number }>>;
