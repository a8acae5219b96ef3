export declare const SLUG: string;
export declare const ZIP_NAME: string;
export declare const ZIP_PATH: string;
/** Stages the plugin in a temporary folder and zips it to `outFile` (default dist/). */
export declare function packagePlugin(options?: {
  outFile?: string;
  log?: (line: string) => void;
}): Promise<{ path: string; entries: string[] }>;
