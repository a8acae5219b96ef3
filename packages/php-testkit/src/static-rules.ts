import { Engine, type Node, type Program } from 'php-parser';

/**
 * Where a PHP file is deployed, which decides how it must refuse direct web access.
 * `library` is the shared client: declarations only, so it needs no guard. `test` is PHP that
 * only the test suite runs and no package ships: it must parse, but needs no guard.
 */
export type PhpPlatform = 'woocommerce' | 'prestashop' | 'whmcs' | 'library' | 'test';

type GuardedPlatform = Exclude<PhpPlatform, 'library' | 'test'>;

/** The constant each platform defines before it loads a plugin file. */
const GUARD_CONSTANTS: Record<GuardedPlatform, string> = {
  woocommerce: 'ABSPATH',
  prestashop: '_PS_VERSION_',
  whmcs: 'WHMCS',
};

/** Guard expected in each platform, as written in a problem message. */
const GUARD_EXAMPLES: Record<GuardedPlatform, string> = {
  woocommerce: "defined('ABSPATH') || exit;",
  prestashop: "if (!defined('_PS_VERSION_')) { exit; }",
  whmcs: "if (!defined('WHMCS')) { die('This file cannot be accessed directly'); }",
};

/** A file that is reached directly on purpose, with the shape that keeps it harmless. */
interface DirectAccessExemption {
  platform: GuardedPlatform;
  /** Matches the path relative to the repository or to the package root (a `/`-bounded suffix). */
  pathSuffix: string;
  reason: string;
  /** Returns a problem when the file does more than the exemption allows. */
  verify(statements: Node[]): string | undefined;
}

/** Files that are web entry points by design, so they cannot carry the platform guard. */
export const DIRECT_ACCESS_EXEMPTIONS: readonly DirectAccessExemption[] = [
  {
    platform: 'whmcs',
    pathSuffix: 'modules/gateways/callback/cryptocheckout.php',
    reason:
      'WHMCS calls gateway callbacks over HTTP without defining WHMCS; the file must bootstrap WHMCS itself by requiring init.php first',
    verify: (statements) => {
      const first = statements[0];
      return first !== undefined && isInitPhpInclude(first)
        ? undefined
        : 'a WHMCS callback must require init.php before anything else';
    },
  },
  {
    platform: 'prestashop',
    pathSuffix: 'index.php',
    reason:
      'PrestaShop ships an index.php in every folder whose only job is to redirect a directory listing away',
    verify: (statements) =>
      statements.every(isRedirectOnlyStatement)
        ? undefined
        : 'a PrestaShop index.php guard file may only send headers and exit',
  },
];

// Version 7.4 keeps the parser from accepting syntax that PHP 7.4 itself would reject.
const parser = new Engine({
  parser: { version: '7.4', php7: true, suppressErrors: false, extractDoc: false },
  ast: { withPositions: true },
  lexer: { short_tags: false },
});

// A second lexer that knows short tags, so that `<?` is reported rather than read as HTML.
const shortTagLexer = new Engine({ parser: { version: '7.4', php7: true }, lexer: { short_tags: true } });

/**
 * Maps a repository-relative path to the platform whose rules apply to it: files in a `test` or
 * `tests` folder are test code, files under `plugins/<platform>/` follow that platform, and
 * everything else follows the library rules.
 */
export function platformForPath(relativePath: string): PhpPlatform {
  if (/(^|\/)tests?\//.test(relativePath)) return 'test';
  const match = /^plugins\/(woocommerce|prestashop|whmcs)\//.exec(relativePath);
  return match ? (match[1] as PhpPlatform) : 'library';
}

/**
 * Checks one PHP source: it parses as PHP 7.4, uses no short open tags, and — when it has
 * top-level statements that run on load — guards direct access the way `platform` expects.
 * Returns the problems found, each prefixed with the path; an empty list means the file passes.
 */
export function checkPhpSource(relativePath: string, source: string, platform: PhpPlatform): string[] {
  const problems: string[] = [];
  const report = (message: string) => problems.push(`${relativePath}: ${message}`);

  for (const token of shortTagLexer.tokenGetAll(source)) {
    if (Array.isArray(token) && token[0] === 'T_OPEN_TAG' && !/^<\?php/i.test(String(token[1]))) {
      report(`short open tag on line ${token[2]}; use <?php`);
    }
  }

  let program: Program;
  try {
    program = parser.parseCode(source, relativePath);
  } catch (error) {
    report(`does not parse as PHP 7.4: ${error instanceof Error ? error.message : String(error)}`);
    return problems;
  }

  const executable = topLevelStatements(program).filter((node) => !isDeclaration(node));
  if (executable.length === 0 || platform === 'test') return problems;

  if (executable.every(isAutoloaderRegistration)) return problems;

  if (platform === 'library') {
    report(
      `library files hold declarations only, but line ${lineOf(executable[0])} runs code on load (only a file whose sole statement is spl_autoload_register(...) is allowed)`,
    );
    return problems;
  }

  const exemption = DIRECT_ACCESS_EXEMPTIONS.find(
    (candidate) => candidate.platform === platform && hasPathSuffix(relativePath, candidate.pathSuffix),
  );
  if (exemption !== undefined) {
    const problem = exemption.verify(executable);
    if (problem !== undefined) report(`${problem} (exempt from the guard because: ${exemption.reason})`);
    return problems;
  }

  const constants = [GUARD_CONSTANTS[platform]];
  // WordPress loads uninstall.php with its own marker constant, which plugin checkers expect.
  if (platform === 'woocommerce' && /(^|\/)uninstall\.php$/.test(relativePath))
    constants.push('WP_UNINSTALL_PLUGIN');
  const first = executable[0];
  if (first === undefined || !constants.some((constant) => isDirectAccessGuard(first, constant))) {
    report(
      `runs code on load (line ${lineOf(first)}) without first guarding direct access; start with ${GUARD_EXAMPLES[platform]}`,
    );
  }
  return problems;
}

function hasPathSuffix(path: string, suffix: string): boolean {
  return path === suffix || path.endsWith(`/${suffix}`);
}

function lineOf(node: Node | undefined): number {
  return node?.loc?.start.line ?? 0;
}

/** Statements at file level, looking through namespace blocks (both `namespace X;` and `namespace X { }`). */
function topLevelStatements(program: Program): Node[] {
  const statements: Node[] = [];
  for (const child of program.children) {
    if (child.kind === 'namespace') statements.push(...(child as unknown as { children: Node[] }).children);
    else statements.push(child);
  }
  return statements;
}

const DECLARATION_KINDS = new Set([
  'usegroup',
  'useitem',
  'class',
  'interface',
  'trait',
  'function',
  'constantstatement',
  'noop',
]);

function isDeclaration(node: Node): boolean {
  if (DECLARATION_KINDS.has(node.kind)) return true;
  // `declare(strict_types=1);` has no body; a block-form declare can hold code.
  if (node.kind === 'declare') return (node as unknown as { children: Node[] }).children.length === 0;
  // A closing `?>` right at the end leaves a lone newline behind, which PHP swallows.
  if (node.kind === 'inline') return /^\r?\n?$/.test((node as unknown as { raw: string }).raw);
  return false;
}

type AnyNode = Node & Record<string, unknown>;

function asAny(node: unknown): AnyNode | undefined {
  return typeof node === 'object' && node !== null ? (node as AnyNode) : undefined;
}

function expressionOf(statement: Node): AnyNode | undefined {
  return statement.kind === 'expressionstatement' ? asAny((statement as AnyNode).expression) : undefined;
}

function isCallTo(node: AnyNode | undefined, functionName: string): boolean {
  if (node?.kind !== 'call') return false;
  const name = asAny(node.what);
  return name?.kind === 'name' && String(name.name).replace(/^\\/, '').toLowerCase() === functionName;
}

function isDefinedCheck(node: AnyNode | undefined, constant: string): boolean {
  if (!isCallTo(node, 'defined')) return false;
  const argument = asAny((node?.arguments as unknown[])[0]);
  return argument?.kind === 'string' && argument.value === constant;
}

function isExit(node: AnyNode | undefined): boolean {
  return node?.kind === 'exit';
}

/** `defined('X') || exit;`, `defined('X') or die(...)`, or `if (!defined('X')) { exit; }`. */
function isDirectAccessGuard(statement: Node, constant: string): boolean {
  const expression = expressionOf(statement);
  if (expression?.kind === 'bin' && (expression.type === '||' || expression.type === 'or')) {
    return isDefinedCheck(asAny(expression.left), constant) && isExit(asAny(expression.right));
  }
  if (statement.kind !== 'if') return false;
  const conditional = statement as AnyNode;
  const test = asAny(conditional.test);
  if (conditional.alternate !== null || test?.kind !== 'unary' || test.type !== '!') return false;
  if (!isDefinedCheck(asAny(test.what), constant)) return false;
  const body = asAny(conditional.body);
  const bodyStatements = body?.kind === 'block' ? (body.children as Node[]) : body ? [body] : [];
  return bodyStatements.length > 0 && bodyStatements.every((inner) => isExit(expressionOf(inner)));
}

function isAutoloaderRegistration(statement: Node): boolean {
  return isCallTo(expressionOf(statement), 'spl_autoload_register');
}

function isInitPhpInclude(statement: Node): boolean {
  const expression = expressionOf(statement);
  if (expression?.kind !== 'include' || expression.require !== true) return false;
  const literals: string[] = [];
  collectStrings(expression.target, literals);
  return /(^|\/)init\.php$/.test(literals.at(-1) ?? '');
}

function collectStrings(node: unknown, into: string[]): void {
  const current = asAny(node);
  if (current === undefined) return;
  if (current.kind === 'string') into.push(String(current.value));
  if (current.kind === 'bin') {
    collectStrings(current.left, into);
    collectStrings(current.right, into);
  }
}

function isRedirectOnlyStatement(statement: Node): boolean {
  const expression = expressionOf(statement);
  return isExit(expression) || isCallTo(expression, 'header');
}
