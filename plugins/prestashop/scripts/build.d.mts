import type { FileSize, Log } from '@cryptocheckout/plugin-build';

/** The plugin folder (plugins/prestashop). */
export declare const PLUGIN_ROOT: string;
/** The module folder that becomes the zip's top folder. */
export declare const MODULE_DIR: string;
/** Namespace of the PHP client copy inside the module. */
export declare const CLIENT_NAMESPACE: string;
/** PrestaShop's direct-access guard, as inserted into the client's autoloader. */
export declare const PRESTASHOP_GUARD: string;
export declare function indexGuardSource(): Promise<string>;
export declare function addIndexGuards(dir: string, source: string): Promise<void>;
/** Copies the PHP client into `moduleDir`/vendor/cryptocheckout-client; returns the files written. */
export declare function copyClient(moduleDir?: string, log?: Log): Promise<string[]>;
/** Bundles admin.js and front.js into `outdir`; returns each file's raw and gzipped size. */
export declare function buildAssets(outdir?: string, log?: Log): Promise<Record<string, FileSize>>;
/** Builds the client copy and the scripts into the module folder `moduleDir` (default MODULE_DIR). */
export declare function buildModule(moduleDir?: string, log?: Log): Promise<Record<string, FileSize>>;
