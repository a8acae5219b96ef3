export declare const SLUG: string;
export declare const ZIP_PATH: string;
export declare function packagePlugin(options?: {
  log?: (line: string) => void;
}): Promise<{ path: string; entries: string[] }>;
