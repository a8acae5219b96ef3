type Log = (line: string) => void;
export declare const PLUGIN_DIR: string;
export declare const SLUG: string;
export declare const CLIENT_NAMESPACE: string;
export declare const CLIENT_DIR: string;
export declare const SHIPPED: string[];
export declare const SHIPPED_EXTENSIONS: RegExp;
export declare const SCRIPTS: string[];
export declare const BUILD_DIR_ENV: string;
/** Copies the PHP client into `dest` (default lib/cryptocheckout-client) under the plugin's namespace. */
export declare function copyClient(options?: {
  dest?: string;
  clean?: boolean;
  log?: Log;
}): Promise<string[]>;
/** wp-scripts build into `outDir` (default build/ in the plugin folder). */
export declare function buildScripts(options?: { outDir?: string; log?: Log }): Promise<void>;
/** A complete runnable plugin in `dir`; returns its files, relative, sorted. */
export declare function stagePlugin(dir: string, options?: { log?: Log }): Promise<string[]>;
