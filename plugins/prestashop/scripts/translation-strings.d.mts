/** The shared PHP client's sources (packages/php-client/src), read for the kernel's texts. */
export declare const CLIENT_SOURCE_DIR: string;
/** Prefix of the module's translation domains ("Modules.Cryptocheckout."). */
export declare const MODULE_DOMAIN_PREFIX: string;

/** One text the module has PrestaShop translate. */
export interface TranslationString {
  /** e.g. "Modules.Cryptocheckout.Admin" */
  domain: string;
  /** The English text, exactly as passed to the translator (the catalogue key). */
  source: string;
  /** Where it was found ("cryptocheckout.php:70", "[client] Kernel/BuyerStatus.php:50"). */
  origins: string[];
}

/**
 * Every text of the module and of the kernel classes it hands a translator, per domain, read from
 * the sources; and the calls it could not read (problems).
 */
export declare function extractTranslationStrings(options?: {
  /** Default: the module folder (plugins/prestashop/cryptocheckout). */
  moduleDir?: string;
  /** Default: CLIENT_SOURCE_DIR. */
  clientDir?: string;
}): Promise<{ strings: TranslationString[]; problems: string[] }>;
