import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPhp, type PhpSandbox, phpString } from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULE_DIR } from '../scripts/build.mjs';
import {
  CLIENT_SOURCE_DIR,
  extractTranslationStrings,
  MODULE_DOMAIN_PREFIX,
  type TranslationString,
} from '../scripts/translation-strings.mjs';

// The module's translations as PrestaShop 8.1 loads them for a module on the new translation
// system: TranslatorLanguageLoader::loadModuleTranslations() adds, for the shop's locale, every
// file of modules/cryptocheckout/translations/<locale>/ named ModulesCryptocheckout<Part>.<locale>.xlf
// as Symfony's XliffFileLoader reads it (XLIFF 1.2), under the domain before the first dot; trans()
// looks texts up in the domain without its dots (Modules.Cryptocheckout.Admin -> ModulesCryptocheckoutAdmin).
// Every text the module and the kernel classes it hands a translator use must be in every locale.

const LOCALES = ['fr-FR', 'de-DE', 'es-ES', 'it-IT'];
const TRANSLATIONS_DIR = join(MODULE_DIR, 'translations');
const XLIFF_NAMESPACE = 'urn:oasis:names:tc:xliff:document:1.2';

/** The catalogue file of `domain` in `locale`, as the loader names it. */
const catalogueFile = (domain: string, locale: string) => `${domain.replaceAll('.', '')}.${locale}.xlf`;

/** One catalogue file as PHP read it the way PrestaShop's loader does. */
interface Catalogue {
  locale: string;
  name: string;
  /** The loader's filename pattern for module catalogues matches the name. */
  loaderPicksIt: boolean;
  /** Domain, locale and format as the loader splits the name. */
  domain: string;
  fileLocale: string;
  format: string;
  errors: string[];
  units: { id: string; source: string; target: string; hasTarget: boolean }[];
}

/**
 * Reads every file of translations/<locale>/ in PHP: the loader's filename pattern, then the XML
 * as XliffFileLoader takes it (DOM without network access, XLIFF 1.2 namespace and version, no
 * DOCTYPE; SimpleXML over //file//trans-unit, key resname or source, text target or source) and
 * what the XLIFF 1.2 schema it validates against requires (file: original, source-language,
 * datatype, body; trans-unit: a unique id, a source).
 */
async function readCatalogues(php: PhpSandbox, dir: string): Promise<Catalogue[]> {
  const result = await php.runJson(`
    $ns = ${phpString(XLIFF_NAMESPACE)};
    $catalogues = [];
    $root = ${phpString(dir)};
    foreach (scandir($root) as $locale) {
        if ($locale[0] === '.' || !is_dir("$root/$locale")) {
            continue;
        }
        foreach (scandir("$root/$locale") as $name) {
            if ($name[0] === '.' || $name === 'index.php') {
                continue;
            }
            $parts = array_pad(explode('.', $name, 3), 3, '');
            $entry = [
                'locale' => $locale, 'name' => $name,
                'loaderPicksIt' => preg_match('#^ModulesCryptocheckout[A-Z][\\w.-]+\\.' . preg_quote($locale, '#') . '\\.xlf$#', $name) === 1,
                'domain' => $parts[0], 'fileLocale' => $parts[1], 'format' => $parts[2], 'errors' => [], 'units' => [],
            ];
            $dom = new DOMDocument();
            libxml_use_internal_errors(true);
            libxml_clear_errors();
            if (!$dom->loadXML((string) file_get_contents("$root/$locale/$name"), LIBXML_NONET | LIBXML_COMPACT)) {
                foreach (libxml_get_errors() as $error) {
                    $entry['errors'][] = 'XML: ' . trim($error->message) . ' (line ' . $error->line . ')';
                }
                $catalogues[] = $entry;
                continue;
            }
            if ($dom->doctype !== null) {
                $entry['errors'][] = 'a DOCTYPE is refused';
            }
            $rootElement = $dom->documentElement;
            if ($rootElement->localName !== 'xliff' || $rootElement->namespaceURI !== $ns || $rootElement->getAttribute('version') !== '1.2') {
                $entry['errors'][] = 'the root must be <xliff version="1.2" xmlns="' . $ns . '">';
            }
            $xml = simplexml_import_dom($dom);
            $xml->registerXPathNamespace('xliff', $ns);
            $files = $xml->xpath('//xliff:file');
            if (!$files) {
                $entry['errors'][] = 'no <file> element';
            }
            $ids = [];
            foreach ($files ?: [] as $file) {
                foreach (['original', 'source-language', 'datatype'] as $attribute) {
                    if ((string) $file[$attribute] === '') {
                        $entry['errors'][] = "<file> lacks $attribute";
                    }
                }
                $file->registerXPathNamespace('xliff', $ns);
                if (count($file->xpath('xliff:body')) !== 1) {
                    $entry['errors'][] = '<file> needs one <body>';
                }
                foreach ($file->xpath('.//xliff:trans-unit') as $unit) {
                    $id = (string) $unit['id'];
                    if ($id === '' || isset($ids[$id])) {
                        $entry['errors'][] = 'trans-unit id missing or repeated: "' . $id . '"';
                    }
                    $ids[$id] = true;
                    if (!isset($unit->source)) {
                        $entry['errors'][] = 'trans-unit ' . $id . ' has no <source>';
                        continue;
                    }
                    $entry['units'][] = [
                        'id' => $id,
                        'source' => (string) ($unit['resname'] ? $unit['resname'] : $unit->source),
                        'target' => (string) ($unit->target ?? $unit->source),
                        'hasTarget' => isset($unit->target),
                    ];
                }
            }
            $catalogues[] = $entry;
        }
    }
    echo json_encode($catalogues);
  `);
  return result as Catalogue[];
}

/** %name% placeholders and sprintf ones (%s, %1$d), sorted: what must survive translation. */
const placeholders = (text: string) =>
  (text.match(/%\w+%|%(?:\d+\$)?[+-]?(?:0|'.)?-?\d*(?:\.\d+)?[bcdeufFosxX]/g) ?? []).sort();

/** The <trans-unit> to add for a missing text, ready to paste with its translation. */
const unitFor = (source: string) =>
  `<trans-unit id="${createHash('md5').update(source).digest('hex')}"><source>${source
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')}</source><target state="translated">…</target></trans-unit>`;

/**
 * What is wrong between the texts the module uses and the catalogues, one line per problem, each
 * naming the locale, the domain, the text and the file: missing, empty, placeholders changed,
 * stale (no longer used) or repeated.
 */
function catalogueProblems(
  strings: TranslationString[],
  catalogues: Catalogue[],
  locales: string[],
): string[] {
  const problems: string[] = [];
  const used = new Set(strings.map((s) => `${s.domain.replaceAll('.', '')}\u0000${s.source}`));
  for (const locale of locales) {
    const units = new Map<string, Catalogue['units'][number]>();
    for (const catalogue of catalogues.filter((c) => c.locale === locale)) {
      for (const unit of catalogue.units) {
        const key = `${catalogue.domain}\u0000${unit.source}`;
        if (units.has(key))
          problems.push(`${locale} ${catalogue.domain}: "${unit.source}" is in the catalogue twice`);
        units.set(key, unit);
        if (!used.has(key)) {
          problems.push(
            `${locale} ${catalogue.domain}: stale "${unit.source}" is no longer used: remove it from translations/${locale}/${catalogue.name}`,
          );
        }
      }
    }
    for (const { domain, source, origins } of strings) {
      const unit = units.get(`${domain.replaceAll('.', '')}\u0000${source}`);
      const file = `translations/${locale}/${catalogueFile(domain, locale)}`;
      if (unit === undefined) {
        problems.push(
          `${locale} ${domain}: missing "${source}" (used at ${origins.join(', ')}): add ${unitFor(source)} to ${file}`,
        );
      } else if (!unit.hasTarget || unit.target.trim() === '') {
        problems.push(`${locale} ${domain}: "${source}" has no translation in ${file}`);
      } else if (placeholders(unit.target).join(' ') !== placeholders(source).join(' ')) {
        problems.push(
          `${locale} ${domain}: "${source}" has placeholders [${placeholders(source).join(', ')}] but its translation "${unit.target}" has [${placeholders(unit.target).join(', ')}] in ${file}`,
        );
      }
    }
  }
  return problems;
}

let php: PhpSandbox;
let strings: TranslationString[];
let problems: string[];
let catalogues: Catalogue[];

beforeAll(async () => {
  ({ strings, problems } = await extractTranslationStrings());
  php = await createPhp('8.3', { mounts: { '/translations': TRANSLATIONS_DIR } });
  catalogues = await readCatalogues(php, '/translations');
});

afterAll(() => php?.dispose());

describe('the texts the module has PrestaShop translate', () => {
  it('are all read from the sources, with nothing left to the legacy l()', () => {
    expect(problems).toEqual([]);
  });

  it("come from the module's calls, its templates and the kernel classes given its translator, each with the module's domain", () => {
    const has = (domain: string, source: string) =>
      strings.some((s) => s.domain === `${MODULE_DOMAIN_PREFIX}${domain}` && s.source === source);
    // $this->trans() in the module class and in a front controller.
    expect(has('Admin', 'Accept crypto payments, settled to your own wallet.')).toBe(true);
    expect(has('Shop', 'This payment method is not available.')).toBe(true);
    // {l s='…' d='…'} in templates.
    expect(has('Shop', 'Start a new payment')).toBe(true);
    // The kernel's texts, in the domain the module hands it: BuyerStatus::MESSAGES and
    // StatusWidgetMarkup::LABELS for the buyer, SettingsRules through Settings::validate() for the merchant.
    expect(has('Shop', 'Payment received. Thank you!')).toBe(true);
    expect(has('Shop', 'Pay now')).toBe(true);
    expect(has('Admin', 'Network: choose one of %networks%.')).toBe(true);
    // The order states' names (OrderStates::DEFINITIONS, handed through a closure).
    expect(has('Admin', 'Awaiting crypto payment')).toBe(true);
    // PrestaShop's own domains are PrestaShop's to translate.
    expect(strings.every((s) => s.domain.startsWith(MODULE_DOMAIN_PREFIX))).toBe(true);
    expect(strings.some((s) => s.source === 'Yes')).toBe(false);
    // Each text once per domain.
    const keys = strings.map((s) => `${s.domain}\u0000${s.source}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('the catalogues in cryptocheckout/translations', () => {
  // (The index.php guard of each locale folder is added by the build; the package test checks it.)
  it('exist for every locale and domain, named as the loader picks them up', () => {
    const domains = [...new Set(strings.map((s) => s.domain))].sort();
    expect(domains).toEqual(
      expect.arrayContaining([`${MODULE_DOMAIN_PREFIX}Admin`, `${MODULE_DOMAIN_PREFIX}Shop`]),
    );
    for (const locale of LOCALES) {
      for (const domain of domains) {
        const name = catalogueFile(domain, locale);
        const catalogue = catalogues.find((c) => c.locale === locale && c.name === name);
        expect(catalogue, `${locale}/${name}`).toBeDefined();
        expect(catalogue?.loaderPicksIt, name).toBe(true);
        // The domain the loader registers is the one trans() looks the texts up in.
        expect([catalogue?.domain, catalogue?.fileLocale, catalogue?.format]).toEqual([
          domain.replace('.', '').replace('.', ''),
          locale,
          'xlf',
        ]);
      }
    }
    const folders = readdirSync(TRANSLATIONS_DIR, { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(folders.map((e) => e.name).sort()).toEqual([...LOCALES].sort());
    for (const catalogue of catalogues) {
      expect(catalogue.loaderPicksIt, `${catalogue.locale}/${catalogue.name} would be ignored`).toBe(true);
    }
  });

  it('are XLIFF 1.2 as XliffFileLoader reads it', () => {
    for (const catalogue of catalogues) {
      expect(catalogue.errors, `${catalogue.locale}/${catalogue.name}`).toEqual([]);
      expect(catalogue.units.length, catalogue.name).toBeGreaterThan(0);
    }
  });

  it('translate every text in every locale, placeholders kept, and hold nothing the module no longer uses', () => {
    // Each line names the locale, the domain, the text and the file to edit.
    expect(catalogueProblems(strings, catalogues, LOCALES)).toEqual([]);
  });
});

describe('the checks', () => {
  /** Complete catalogues for the texts the module uses now, whatever the shipped files hold. */
  const complete = (): Catalogue[] =>
    LOCALES.flatMap((locale) =>
      [...new Set(strings.map((s) => s.domain))].map((domain) => ({
        locale,
        name: catalogueFile(domain, locale),
        loaderPicksIt: true,
        domain: domain.replaceAll('.', ''),
        fileLocale: locale,
        format: 'xlf',
        errors: [],
        units: strings
          .filter((s) => s.domain === domain)
          .map((s) => ({
            id: s.source,
            source: s.source,
            target: `[${locale}] ${s.source}`,
            hasTarget: true,
          })),
      })),
    );

  it('name a text missing from one locale, its domain and the file to add it to', () => {
    const list = complete();
    expect(catalogueProblems(strings, list, LOCALES)).toEqual([]);
    const french = list.find(
      (c) => c.locale === 'fr-FR' && c.name === 'ModulesCryptocheckoutShop.fr-FR.xlf',
    )!;
    const removed = french.units.shift()!;
    const found = catalogueProblems(strings, list, LOCALES);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`fr-FR ${MODULE_DOMAIN_PREFIX}Shop: missing "${removed.source}"`);
    expect(found[0]).toContain('translations/fr-FR/ModulesCryptocheckoutShop.fr-FR.xlf');
    expect(found[0]).toContain(`<source>`);
  });

  it('catch an empty translation, a placeholder lost, and a text no longer used', () => {
    const list = complete();
    const units = list.find((c) => c.locale === 'de-DE')!.units;
    const withPlaceholder = list.flatMap((c) => c.units).find((u) => /%\w+%/.test(u.source))!;
    const placeholder = /%\w+%/.exec(withPlaceholder.source)![0];
    withPlaceholder.target = withPlaceholder.target.replace(placeholder, 'X');
    const emptied = units.find((u) => u !== withPlaceholder)!;
    emptied.target = ' ';
    units.push({ id: 'x', source: 'A text nobody uses', target: 'Ein Text', hasTarget: true });
    const found = catalogueProblems(strings, list, LOCALES);
    expect(found).toHaveLength(3);
    expect(found.join('\n')).toContain(`"${withPlaceholder.source}" has placeholders`);
    expect(found.join('\n')).toContain(`"${emptied.source}" has no translation`);
    expect(found.join('\n')).toContain('stale "A text nobody uses"');
  });

  it('refuse a file the loader cannot read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-prestashop-xlf-'));
    try {
      const locale = join(dir, 'fr-FR');
      cpSync(join(TRANSLATIONS_DIR, 'fr-FR'), locale, { recursive: true });
      const shop = join(locale, 'ModulesCryptocheckoutShop.fr-FR.xlf');
      writeFileSync(shop, readFileSync(shop, 'utf8').replace('</target>', '</tagret>'));
      writeFileSync(join(locale, 'cryptocheckout.fr-FR.xlf'), '<xliff/>');
      const sandbox = await createPhp('8.3', { mounts: { '/broken': dir } });
      try {
        const read = await readCatalogues(sandbox, '/broken');
        expect(read.find((c) => c.name === 'ModulesCryptocheckoutShop.fr-FR.xlf')?.errors[0]).toMatch(
          /^XML: /,
        );
        expect(read.find((c) => c.name === 'cryptocheckout.fr-FR.xlf')?.loaderPicksIt).toBe(false);
        expect(read.find((c) => c.name === 'ModulesCryptocheckoutAdmin.fr-FR.xlf')?.errors).toEqual([]);
      } finally {
        sandbox.dispose();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('find texts added later to the module, its controllers, its templates and the kernel, and report l()', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-prestashop-strings-'));
    try {
      const moduleDir = join(dir, 'cryptocheckout');
      const clientDir = join(dir, 'client');
      cpSync(MODULE_DIR, moduleDir, { recursive: true, filter: (path) => !/[\\/](vendor|js)$/.test(path) });
      cpSync(CLIENT_SOURCE_DIR, clientDir, { recursive: true });
      const edit = (path: string, change: (source: string) => string) =>
        writeFileSync(path, change(readFileSync(path, 'utf8')));

      edit(
        join(moduleDir, 'views/templates/hook/retry.tpl'),
        (s) => `${s}<p>{l s='A new shop text, it\\'s here' d='Modules.Cryptocheckout.Shop'}</p>\n`,
      );
      edit(join(clientDir, 'Kernel/BuyerStatus.php'), (s) =>
        s.replace('const MESSAGES = [', "const MESSAGES = [\n        'new' => 'A new buyer message.',"),
      );
      edit(join(clientDir, 'Kernel/SettingsRules.php'), (s) =>
        s.replace(
          /\}\s*$/,
          "\n    private static function added(?callable $translate): string\n    {\n        return self::say($translate, 'A new rule for %field%.', ['%field%' => 'x']);\n    }\n}\n",
        ),
      );
      writeFileSync(
        join(clientDir, 'Kernel/AddedLabels.php'),
        "<?php\n\ndeclare(strict_types=1);\n\nnamespace CryptoCheckout\\Client\\Kernel;\n\nfinal class AddedLabels\n{\n    public static function label(callable $translate): string\n    {\n        return $translate('A new kernel label', []);\n    }\n}\n",
      );
      edit(join(moduleDir, 'cryptocheckout.php'), (s) =>
        s
          .replace(
            'class Cryptocheckout extends',
            'use CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\AddedLabels;\n\nclass Cryptocheckout extends',
          )
          .replace(
            /\}\s*$/,
            "\n    public function added()\n    {\n        return AddedLabels::label($this->translator('Modules.Cryptocheckout.Shop'))\n            . $this->trans('A new admin text', [], 'Modules.Cryptocheckout.Admin') . $this->l('A legacy text');\n    }\n}\n",
          ),
      );

      edit(join(moduleDir, 'controllers/front/poll.php'), (s) =>
        s
          .replace(
            "if (!defined('_PS_VERSION_'))",
            "use CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\AddedLabels;\n\nif (!defined('_PS_VERSION_'))",
          )
          .replace(
            /\}\s*$/,
            "\n    private function added()\n    {\n        return AddedLabels::label($this->module->translator('Modules.Cryptocheckout.Admin'));\n    }\n}\n",
          ),
      );

      const result = await extractTranslationStrings({ moduleDir, clientDir });
      const added = result.strings
        .filter((s) => s.source.startsWith('A new'))
        .map((s) => [s.domain, s.source]);
      expect(added.sort()).toEqual([
        [`${MODULE_DOMAIN_PREFIX}Admin`, 'A new admin text'],
        [`${MODULE_DOMAIN_PREFIX}Admin`, 'A new kernel label'],
        [`${MODULE_DOMAIN_PREFIX}Admin`, 'A new rule for %field%.'],
        [`${MODULE_DOMAIN_PREFIX}Shop`, 'A new buyer message.'],
        [`${MODULE_DOMAIN_PREFIX}Shop`, 'A new kernel label'],
        // The module's Kernel translates through the Shop domain, and its service check reports
        // a bad service URL in SettingsRules' words.
        [`${MODULE_DOMAIN_PREFIX}Shop`, 'A new rule for %field%.'],
        [`${MODULE_DOMAIN_PREFIX}Shop`, "A new shop text, it's here"],
      ]);
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toMatch(
        /^cryptocheckout\.php:\d+: l\('A legacy text'\) uses PrestaShop's legacy translation/,
      );
      expect(result.strings.length).toBe(strings.length + 7);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
