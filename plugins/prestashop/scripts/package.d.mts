import type { FileSize, Log } from '@cryptocheckout/plugin-build';

export declare const DEFAULT_ZIP: string;
/** Builds cryptocheckout.zip (default dist/cryptocheckout.zip) from a staged copy of the module. */
export declare function packageModule(options?: { outFile?: string; log?: Log }): Promise<{
  file: string;
  entries: string[];
  bytes: number;
  sizes: Record<string, FileSize>;
}>;
