import type { Log } from '@cryptocheckout/plugin-build';

export declare const VENDOR_NAMESPACE: string;
export declare const VENDOR_DIR: string;
export declare const ASSETS_PATH: string;
/** Builds the installable zip into `outDir` (default dist/); returns its path, the files in it and its size in bytes. */
export declare function buildPackage(options?: {
  outDir?: string;
  log?: Log;
}): Promise<{ zipPath: string; files: string[]; bytes: number }>;
