import type { FileSize, Log } from '@cryptocheckout/plugin-build';

/** The module's built assets folder. */
export declare const ASSETS_DIR: string;
/** Bundles the invoice page script into `outdir` (default ASSETS_DIR); returns each file's sizes in bytes. */
export declare function buildAssets(options?: {
  outdir?: string;
  log?: Log;
}): Promise<Record<string, FileSize>>;
