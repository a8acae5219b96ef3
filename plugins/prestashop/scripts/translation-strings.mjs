// Lists every text the module has PrestaShop translate, with its domain, by reading the sources:
// the module's own calls ($this->trans(…, 'Modules.Cryptocheckout.X'), {l s='…' d='…'} in its
// templates) and the shared kernel's texts, which the module hands a translator for one domain
// ($this->translator('Modules.Cryptocheckout.Shop')): whatever a class given that translator passes
// through it (literals, its message constants, its own say()-style helpers), and the classes it
// passes the translator on to. Nothing is hard-coded, so a text added later is found by itself.
// `node scripts/translation-strings.mjs` prints them as JSON.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { runScript } from '@cryptocheckout/plugin-build';
import { CLIENT_NAMESPACE, MODULE_DIR, PLUGIN_ROOT } from './build.mjs';

/** The shared PHP client's sources, whose Kernel the module copies under CLIENT_NAMESPACE. */
export const CLIENT_SOURCE_DIR = join(PLUGIN_ROOT, '..', '..', 'packages', 'php-client', 'src');
/** Namespace of the client in its own sources. */
const CLIENT_SOURCE_NAMESPACE = 'CryptoCheckout\\Client';
/** The name the kernel gives a translator parameter (callable $translate). */
const TRANSLATOR_PARAMETER = '$translate';
/** The module's domains start with this; other domains (Admin.Global, …) are PrestaShop's own. */
export const MODULE_DOMAIN_PREFIX = 'Modules.Cryptocheckout.';

/* ------------------------------------------------------------------ PHP tokens */

const OPERATORS =
  '<=> === !== **= ... <<= >>= ??= ?-> == != <> <= >= => -> :: ?? && || ++ -- += -= *= /= .= %= &= |= ^= << >> **'.split(
    ' ',
  );
/** Names followed by a parenthesis that are not function calls. */
const NOT_CALLS = new Set(
  'function fn use array list isset empty if elseif while for foreach switch catch return'.split(' '),
);
const COMPARISONS = new Set(['===', '!==', '==', '!=', '<>', '<', '>', '<=', '>=', '<=>']);
const OPEN = { '(': ')', '[': ']', '{': '}' };

/** Undoes the escapes of a double-quoted PHP string (and tells whether it interpolates variables). */
function unescapeDouble(body) {
  let interpolated = false;
  const text = body.replace(
    /\\(?:([nrtvef\\$"])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u\{([0-9A-Fa-f]+)\})|(\$(?:[A-Za-z_{]))|(\{\$)/g,
    (match, simple, octal, hex, unicode) => {
      if (simple !== undefined) {
        return { n: '\n', r: '\r', t: '\t', v: '\v', e: '\x1b', f: '\f', '\\': '\\', $: '$', '"': '"' }[
          simple
        ];
      }
      if (octal !== undefined) return String.fromCharCode(Number.parseInt(octal, 8) & 0xff);
      if (hex !== undefined) return String.fromCharCode(Number.parseInt(hex, 16));
      if (unicode !== undefined) return String.fromCodePoint(Number.parseInt(unicode, 16));
      interpolated = true;
      return match;
    },
  );
  return { text, interpolated };
}

/**
 * Splits PHP source into tokens: str (value unescaped), var ($name), id (names, with namespace
 * backslashes), num and op, each with its offset; comments and white space are dropped.
 */
function tokenizePhp(source) {
  const tokens = [];
  const push = (type, value, offset, extra = {}) => tokens.push({ type, value, offset, ...extra });
  let i = 0;
  while (i < source.length) {
    const start = i;
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
    } else if (source.startsWith('<?php', i)) {
      i += 5;
    } else if (source.startsWith('?>', i)) {
      const next = source.indexOf('<?php', i);
      i = next === -1 ? source.length : next;
      push('op', ';', start);
    } else if (c === '#' || source.startsWith('//', i)) {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 2;
    } else if (c === "'") {
      i++;
      let text = '';
      while (i < source.length && source[i] !== "'") {
        if (source[i] === '\\' && (source[i + 1] === "'" || source[i + 1] === '\\')) {
          text += source[i + 1];
          i += 2;
        } else text += source[i++];
      }
      i++;
      push('str', text, start, { interpolated: false });
    } else if (c === '"') {
      i++;
      while (i < source.length && source[i] !== '"') i += source[i] === '\\' ? 2 : 1;
      const { text, interpolated } = unescapeDouble(source.slice(start + 1, i));
      i++;
      push('str', text, start, { interpolated });
    } else if (source.startsWith('<<<', i)) {
      const head = /^<<<[ \t]*(['"]?)([A-Za-z_]\w*)\1\r?\n/.exec(source.slice(i));
      if (!head) {
        i += 3;
        push('op', '<<<', start);
        continue;
      }
      const bodyStart = i + head[0].length;
      const match = new RegExp(`^[ \\t]*${head[2]}\\b`, 'm').exec(source.slice(bodyStart));
      const bodyEnd = match ? bodyStart + match.index : source.length;
      const body = source.slice(bodyStart, bodyEnd).replace(/\r?\n$/, '');
      i = match ? bodyEnd + match[0].length : source.length;
      const parsed = head[1] === "'" ? { text: body, interpolated: false } : unescapeDouble(body);
      push('str', parsed.text, start, { interpolated: parsed.interpolated });
    } else if (c === '$' && /[A-Za-z_]/.test(source[i + 1] ?? '')) {
      i++;
      while (i < source.length && /\w/.test(source[i])) i++;
      push('var', source.slice(start, i), start);
    } else if (/[A-Za-z_\\]/.test(c)) {
      while (i < source.length && /[\w\\]/.test(source[i])) i++;
      push('id', source.slice(start, i), start);
    } else if (/[0-9]/.test(c)) {
      while (i < source.length && /[\w.]/.test(source[i])) i++;
      push('num', source.slice(start, i), start);
    } else {
      const op = OPERATORS.find((candidate) => source.startsWith(candidate, i)) ?? c;
      i += op.length;
      push('op', op, start);
    }
  }
  return tokens;
}

/** Index of the closing bracket of every opening one. */
function matchBrackets(tokens) {
  const close = new Map();
  const stack = [];
  tokens.forEach((token, index) => {
    if (token.type !== 'op') return;
    if (OPEN[token.value]) stack.push(index);
    else if ([')', ']', '}'].includes(token.value) && stack.length > 0) close.set(stack.pop(), index);
  });
  return close;
}

/* ------------------------------------------------------------------ one PHP file */

/** A PHP file read into tokens, with its functions, calls, namespace and imports. */
class PhpFile {
  constructor(label, source) {
    this.label = label;
    this.source = source;
    this.tokens = tokenizePhp(source);
    this.close = matchBrackets(this.tokens);
    this.namespace = '';
    this.uses = new Map();
    this.className = null;
    this.functions = [];
    this.readHeader();
    this.readFunctions();
  }

  is(index, type, value) {
    const token = this.tokens[index];
    return token !== undefined && token.type === type && (value === undefined || token.value === value);
  }

  where(index) {
    const offset = this.tokens[Math.min(index, this.tokens.length - 1)]?.offset ?? 0;
    return `${this.label}:${this.source.slice(0, offset).split('\n').length}`;
  }

  readHeader() {
    const t = this.tokens;
    for (let i = 0; i < t.length; i++) {
      if (this.is(i, 'id', 'namespace') && this.is(i + 1, 'id')) this.namespace = t[i + 1].value;
      if (
        this.is(i, 'id', 'use') &&
        this.is(i + 1, 'id') &&
        (this.is(i + 2, 'op', ';') || this.is(i + 2, 'id', 'as'))
      ) {
        const name = t[i + 1].value.replace(/^\\/, '');
        const alias = this.is(i + 2, 'id', 'as') ? t[i + 3].value : name.split('\\').pop();
        this.uses.set(alias, name);
      }
      if (
        this.className === null &&
        this.is(i, 'id', 'class') &&
        this.is(i + 1, 'id') &&
        !this.is(i - 1, 'op', '::')
      ) {
        this.className = this.qualify(t[i + 1].value, true);
      }
    }
  }

  /** The full name of a class named in this file (`self` is this file's class). */
  qualify(name, declared = false) {
    if (name === 'self' || name === 'static') return this.className;
    if (name.startsWith('\\')) return name.slice(1);
    if (!declared) {
      const [first, ...more] = name.split('\\');
      const imported = this.uses.get(first);
      if (imported) return [imported, ...more].join('\\');
    }
    return this.namespace ? `${this.namespace}\\${name}` : name;
  }

  readFunctions() {
    const t = this.tokens;
    for (let i = 0; i < t.length; i++) {
      if (!(this.is(i, 'id', 'function') || this.is(i, 'id', 'fn'))) continue;
      let at = i + 1;
      if (this.is(at, 'op', '&')) at++;
      const name = this.is(at, 'id') ? t[at++].value : null;
      if (!this.is(at, 'op', '(')) continue;
      const paramsEnd = this.close.get(at);
      const params = splitTopLevel(this, at + 1, paramsEnd).map(([from, to]) => {
        let variable = null;
        let callable = false;
        for (let k = from; k < to; k++) {
          if (this.is(k, 'op', '=')) break;
          if (this.is(k, 'id', 'callable')) callable = true;
          if (this.is(k, 'var')) variable = t[k].value;
        }
        return { name: variable, callable };
      });
      let k = paramsEnd + 1;
      const uses = [];
      if (this.is(k, 'id', 'use') && this.is(k + 1, 'op', '(')) {
        const useEnd = this.close.get(k + 1);
        for (let u = k + 2; u < useEnd; u++) if (this.is(u, 'var')) uses.push(t[u].value);
        k = useEnd + 1;
      }
      while (k < t.length && !this.is(k, 'op', '{') && !this.is(k, 'op', ';') && !this.is(k, 'op', '=>')) k++;
      let body = null;
      if (this.is(k, 'op', '{')) body = [k, this.close.get(k)];
      else if (this.is(k, 'op', '=>')) body = [k, expressionEnd(this, k + 1)];
      if (body === null) continue;
      this.functions.push({ name: name ?? null, start: i, params, uses, body, closure: name === null });
    }
  }

  /** Innermost function whose body holds token `index`. */
  enclosing(index) {
    let found = null;
    for (const fn of this.functions) {
      if (index > fn.body[0] && index < fn.body[1] && (found === null || fn.body[0] > found.body[0]))
        found = fn;
    }
    return found;
  }

  /** Every call: its callee and the token ranges of its arguments. */
  calls() {
    if (this.callList) return this.callList;
    const t = this.tokens;
    const list = [];
    for (let i = 0; i < t.length; i++) {
      if (!this.is(i, 'op', '(')) continue;
      const end = this.close.get(i);
      if (end === undefined) continue;
      let callee = null;
      const before = i - 1;
      if (this.is(before, 'id') && (this.is(before - 1, 'op', '->') || this.is(before - 1, 'op', '?->'))) {
        callee = { kind: 'method', name: t[before].value, object: objectBefore(this, before - 1) };
      } else if (this.is(before, 'id') && this.is(before - 1, 'op', '::') && this.is(before - 2, 'id')) {
        callee = { kind: 'static', name: t[before].value, className: t[before - 2].value };
      } else if (this.is(before, 'id') && this.is(before - 1, 'id', 'new')) {
        callee = { kind: 'new', name: '__construct', className: t[before].value };
      } else if (this.is(before, 'var') && this.is(before - 1, 'op', '::') && this.is(before - 2, 'id')) {
        callee = { kind: 'static', name: null, className: t[before - 2].value };
      } else if (this.is(before, 'var')) {
        callee = { kind: 'variable', name: t[before].value };
      } else if (this.is(before, 'op', ')')) {
        const open = [...this.close.entries()].find(([, closeAt]) => closeAt === before)?.[0];
        if (
          open !== undefined &&
          this.is(open + 1, 'var', '$this') &&
          this.is(open + 2, 'op', '->') &&
          this.is(open + 3, 'id') &&
          open + 4 === before
        ) {
          callee = { kind: 'property', name: `$this->${t[open + 3].value}` };
        }
      } else if (this.is(before, 'id') && !NOT_CALLS.has(t[before].value)) {
        callee = { kind: 'function', name: t[before].value };
      }
      if (callee === null) continue;
      list.push({ callee, open: i, end, args: splitTopLevel(this, i + 1, end) });
    }
    this.callList = list;
    return list;
  }
}

/** `$this`, `$this->module` or `$var` before an arrow, as text (or null). */
function objectBefore(file, arrow) {
  const t = file.tokens;
  let k = arrow - 1;
  const parts = [];
  while (k >= 0) {
    if (file.is(k, 'var')) {
      parts.unshift(t[k].value);
      return parts.join('->');
    }
    if (file.is(k, 'id') && file.is(k - 1, 'op', '->')) {
      parts.unshift(t[k].value);
      k -= 2;
      continue;
    }
    return null;
  }
  return null;
}

/** Token ranges [from, to) of the comma-separated items between two tokens. */
function splitTopLevel(file, from, to) {
  const ranges = [];
  let start = from;
  for (let k = from; k < to; k++) {
    const closing = file.is(k, 'op') && OPEN[file.tokens[k].value] ? file.close.get(k) : undefined;
    if (closing !== undefined) {
      k = closing;
      continue;
    }
    if (file.is(k, 'op', ',')) {
      ranges.push([start, k]);
      start = k + 1;
    }
  }
  if (start < to) ranges.push([start, to]);
  return ranges;
}

/** End (exclusive) of the expression starting at `from`: the next `;` or `,` or closing bracket at its level. */
function expressionEnd(file, from) {
  for (let k = from; k < file.tokens.length; k++) {
    if (file.is(k, 'op') && OPEN[file.tokens[k].value]) {
      k = file.close.get(k) ?? k;
      continue;
    }
    if (
      file.is(k, 'op', ';') ||
      file.is(k, 'op', ',') ||
      file.is(k, 'op', ')') ||
      file.is(k, 'op', ']') ||
      file.is(k, 'op', '}')
    ) {
      return k;
    }
  }
  return file.tokens.length;
}

/** Indexes of the tokens of [from, to) that are not inside brackets. */
function topLevel(file, from, to) {
  const indexes = [];
  for (let k = from; k < to; k++) {
    indexes.push(k);
    if (file.is(k, 'op') && OPEN[file.tokens[k].value]) k = file.close.get(k) ?? k;
  }
  return indexes;
}

/** The single variable an expression consists of (`$text`, `$this->translate`), or null. */
function soleVariable(file, [from, to]) {
  if (to - from === 1 && file.is(from, 'var')) return file.tokens[from].value;
  if (
    to - from === 3 &&
    file.is(from, 'var', '$this') &&
    file.is(from + 1, 'op', '->') &&
    file.is(from + 2, 'id')
  ) {
    return `$this->${file.tokens[from + 2].value}`;
  }
  return null;
}

/** A string literal (concatenations of literals included), or null. */
function literal(file, [from, to]) {
  let text = '';
  for (let k = from; k < to; k++) {
    if ((k - from) % 2 === 0) {
      if (!file.is(k, 'str') || file.tokens[k].interpolated) return null;
      text += file.tokens[k].value;
    } else if (!file.is(k, 'op', '.')) return null;
  }
  return to > from && (to - from) % 2 === 1 ? text : null;
}

/* ------------------------------------------------------------------ the sources */

async function phpFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'vendor') files.push(...(await phpFiles(path)));
    } else if (entry.name.endsWith('.php') && entry.name !== 'index.php') files.push(path);
  }
  return files.sort();
}

async function templateFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await templateFiles(path)));
    else if (entry.name.endsWith('.tpl')) files.push(path);
  }
  return files.sort();
}

/** The `name='value'` / `name="value"` parameters of a Smarty tag, unescaped as Smarty does. */
function smartyParameters(tag) {
  const parameters = new Map();
  for (const match of tag.matchAll(/(\w+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g)) {
    const single = match[2] !== undefined;
    const raw = single ? match[2] : match[3];
    parameters.set(match[1], raw.replace(single ? /\\(['\\])/g : /\\(["\\])/g, '$1'));
  }
  return parameters;
}

/**
 * Every text the module has PrestaShop translate in a Modules.Cryptocheckout.* domain, each once
 * per domain (sorted by domain, then text) with where it was found; and the problems met: calls
 * whose text or domain cannot be read from the source (so a text may be missing), and texts
 * handed to PrestaShop's legacy translation (l()), which the module's XLIFF catalogues do not feed.
 *
 * @param {{ moduleDir?: string, clientDir?: string }} [options]
 */
export async function extractTranslationStrings(options = {}) {
  const moduleDir = options.moduleDir ?? MODULE_DIR;
  const clientDir = options.clientDir ?? CLIENT_SOURCE_DIR;
  const found = new Map();
  const problems = [];
  const add = (domain, text, where) => {
    if (!domain.startsWith(MODULE_DOMAIN_PREFIX)) return;
    const key = `${domain}\u0000${text}`;
    const entry = found.get(key) ?? { domain, source: text, origins: [] };
    if (!entry.origins.includes(where)) entry.origins.push(where);
    found.set(key, entry);
  };

  // Templates: {l s='…' d='Modules.Cryptocheckout.X'}.
  for (const path of await templateFiles(join(moduleDir, 'views'))) {
    const source = await readFile(path, 'utf8');
    const label = relative(moduleDir, path).split('\\').join('/');
    for (const match of source.matchAll(/\{l\s((?:[^}'"]|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")*)\}/g)) {
      const line = source.slice(0, match.index).split('\n').length;
      const parameters = smartyParameters(match[1]);
      const text = parameters.get('s');
      const domain = parameters.get('d');
      if (text === undefined) problems.push(`${label}:${line}: {l} without s='…'`);
      else if (domain === undefined) {
        problems.push(
          `${label}:${line}: {l s='${text}'} has no d='${MODULE_DOMAIN_PREFIX}…': PrestaShop looks it up in legacy translation files only`,
        );
      } else add(domain, text, `${label}:${line}`);
    }
  }

  // PHP: the module's files and the client's; classes indexed by their full name.
  const files = [];
  for (const path of await phpFiles(moduleDir)) {
    files.push({
      file: new PhpFile(relative(moduleDir, path).split('\\').join('/'), await readFile(path, 'utf8')),
      module: true,
    });
  }
  for (const path of await phpFiles(clientDir)) {
    const label = `[client] ${relative(clientDir, path).split('\\').join('/')}`;
    files.push({ file: new PhpFile(label, await readFile(path, 'utf8')), module: false });
  }
  const classes = new Map();
  for (const { file } of files) if (file.className) classes.set(file.className, file);
  const classFile = (file, name) => {
    let full = file.qualify(name);
    if (full?.startsWith(`${CLIENT_NAMESPACE}\\`))
      full = CLIENT_SOURCE_NAMESPACE + full.slice(CLIENT_NAMESPACE.length);
    return full ? classes.get(full) : undefined;
  };

  const analysis = new Analysis(add, problems, classFile);
  const moduleFiles = files.filter(({ module }) => module).map(({ file }) => file);
  analysis.learnModuleHelpers(moduleFiles);
  for (const file of moduleFiles) analysis.scanModuleFile(file);
  analysis.propagate();

  const strings = [...found.values()].sort((a, b) =>
    a.domain === b.domain
      ? a.source < b.source
        ? -1
        : a.source > b.source
          ? 1
          : 0
      : a.domain < b.domain
        ? -1
        : 1,
  );
  return { strings, problems };
}

/* ------------------------------------------------------------------ following the texts */

class Analysis {
  constructor(add, problems, classFile) {
    this.add = add;
    this.problems = problems;
    this.classFile = classFile;
    /** class file => domains its translator parameter carries */
    this.domains = new Map();
    /** module methods forwarding to trans(): name => argument positions of the text and the domain */
    this.helpers = new Map([['trans', { text: 0, domain: 2 }]]);
    /** module methods making a translator: name => argument position of the domain */
    this.factories = new Map();
    this.queue = [];
  }

  problem(file, index, message) {
    const text = `${file.where(index)}: ${message}`;
    if (!this.problems.includes(text)) this.problems.push(text);
  }

  /** Records that class `file` is given a translator for `domain`. */
  give(file, domain) {
    if (!domain.startsWith(MODULE_DOMAIN_PREFIX)) return;
    const known = this.domains.get(file) ?? new Set();
    if (known.has(domain)) return;
    known.add(domain);
    this.domains.set(file, known);
    this.queue.push([file, domain]);
  }

  /** A domain argument: a literal, or a variable last assigned a literal before `at`. */
  domainOf(file, range, at) {
    const text = literal(file, range);
    if (text !== null) return text;
    const variable = soleVariable(file, range);
    if (variable === null) return null;
    for (let k = at - 1; k >= 0; k--) {
      if (file.is(k, 'var', variable) && file.is(k + 1, 'op', '=')) {
        const end = expressionEnd(file, k + 2);
        return literal(file, [k + 2, end]);
      }
    }
    return null;
  }

  /**
   * Learns, over all the module's files, its helpers (methods whose text and domain parameters go
   * straight into trans(), like plainText()) and its translator factories (methods whose domain
   * parameter ends up in a closure taking the text, like translator()).
   */
  learnModuleHelpers(files) {
    for (let changed = true; changed; ) {
      changed = false;
      for (const file of files) {
        for (const call of file.calls()) {
          if (call.callee.kind !== 'method' || !this.helpers.has(call.callee.name)) continue;
          const helper = this.helpers.get(call.callee.name);
          const fn = file.enclosing(call.open);
          if (!fn || call.args.length <= helper.domain) continue;
          const textParam = fn.params.findIndex((p) => p.name === soleVariable(file, call.args[helper.text]));
          const domainVariable = soleVariable(file, call.args[helper.domain]);
          if (textParam === -1 || domainVariable === null) continue;
          if (fn.closure) {
            // A closure taking the text: a translator; its domain comes from the method making it.
            const outer = file.enclosing(fn.start);
            const outerParam = outer ? outer.params.findIndex((p) => p.name === domainVariable) : -1;
            if (
              outer?.name &&
              outerParam !== -1 &&
              fn.uses.includes(domainVariable) &&
              !this.factories.has(outer.name)
            ) {
              this.factories.set(outer.name, outerParam);
              changed = true;
            }
            continue;
          }
          const domainParam = fn.params.findIndex((p) => p.name === domainVariable);
          if (fn.name && domainParam !== -1 && !this.helpers.has(fn.name)) {
            this.helpers.set(fn.name, { text: textParam, domain: domainParam });
            changed = true;
          }
        }
      }
    }
  }

  /**
   * One of the module's files: trans() and its helpers, the legacy l(), and the translators
   * (carriers of one domain) it hands to other classes.
   */
  scanModuleFile(file) {
    const { helpers, factories } = this;
    const carriers = new Map();
    for (const call of file.calls()) {
      const { callee } = call;
      if (callee.kind === 'method' && callee.name === 'l' && call.args.length > 0) {
        this.problem(
          file,
          call.open,
          `l(${file.tokens[call.args[0][0]]?.type === 'str' ? `'${file.tokens[call.args[0][0]].value}'` : '…'}) uses PrestaShop's legacy translation; use $this->trans('…', [], '${MODULE_DOMAIN_PREFIX}Admin' or '…Shop')`,
        );
        continue;
      }
      if (callee.kind === 'method' && helpers.has(callee.name)) {
        const helper = helpers.get(callee.name);
        const fn = file.enclosing(call.open);
        const textRange = call.args[helper.text];
        if (!textRange) continue;
        const textVariable = soleVariable(file, textRange);
        if (textVariable && fn?.params.some((p) => p.name === textVariable)) continue; // forwarding
        const domainRange = call.args[helper.domain];
        const domain = domainRange ? this.domainOf(file, domainRange, call.open) : null;
        if (domain === null) {
          this.problem(file, call.open, `cannot read the domain of ${callee.name}()`);
          continue;
        }
        if (!domain.startsWith(MODULE_DOMAIN_PREFIX)) continue;
        const text = literal(file, textRange);
        if (text === null)
          this.problem(file, call.open, `cannot read the text of ${callee.name}() (write it as a literal)`);
        else this.add(domain, text, file.where(call.open));
        continue;
      }
      if (callee.kind === 'method' && factories.has(callee.name)) {
        const range = call.args[factories.get(callee.name)];
        const domain = range ? this.domainOf(file, range, call.open) : null;
        if (domain === null) this.problem(file, call.open, `cannot read the domain of ${callee.name}()`);
        else carriers.set(call.open, { domain, from: objectStart(file, call.open), to: call.end + 1 });
      }
    }
    // Closures taking the text and calling a helper with a literal domain are translators too.
    for (const fn of file.functions) {
      if (!fn.closure) continue;
      for (const call of file.calls()) {
        if (
          call.open < fn.body[0] ||
          call.end > fn.body[1] ||
          call.callee.kind !== 'method' ||
          !helpers.has(call.callee.name)
        )
          continue;
        const helper = helpers.get(call.callee.name);
        const textVariable = call.args[helper.text] ? soleVariable(file, call.args[helper.text]) : null;
        const domain = call.args[helper.domain] ? literal(file, call.args[helper.domain]) : null;
        if (domain !== null && fn.params.some((p) => p.name === textVariable)) {
          carriers.set(fn.start, {
            domain,
            from: isStatic(file, fn.start) ? fn.start - 1 : fn.start,
            to: fn.body[1] + 1,
          });
        }
      }
    }
    for (const carrier of carriers.values()) this.handOver(file, carrier);
  }

  /** Follows a translator expression of the module to the class it is given to. */
  handOver(file, { domain, from, to }) {
    if (!domain.startsWith(MODULE_DOMAIN_PREFIX)) return;
    // Stored in a variable first: follow the variable's uses.
    if (file.is(from - 1, 'op', '=') && file.is(from - 2, 'var')) {
      const variable = file.tokens[from - 2].value;
      const fn = file.enclosing(from);
      for (const call of file.calls()) {
        if (call.open < to || (fn && call.end > fn.body[1])) continue;
        if (call.callee.kind === 'variable' && call.callee.name === variable) {
          // Called right there: $translate('…').
          const text = call.args[0] ? literal(file, call.args[0]) : null;
          if (text === null)
            this.problem(file, call.open, `cannot read the text of ${variable}() (write it as a literal)`);
          else this.add(domain, text, file.where(call.open));
          continue;
        }
        call.args.forEach((range, index) => {
          if (soleVariable(file, range) === variable) this.giveToCallee(file, call, index, domain);
        });
      }
      return;
    }
    const call = file.calls().find((c) => c.args.some(([a, b]) => a === from && b === to));
    if (!call) {
      // The module's own method returning it (translator()) or a bare expression: nothing to follow.
      if (!(file.is(from - 1, 'id', 'return') && file.enclosing(from)?.name)) {
        this.problem(file, from, `a translator for ${domain} is used in a way the extractor cannot follow`);
      }
      return;
    }
    this.giveToCallee(
      file,
      call,
      call.args.findIndex(([a, b]) => a === from && b === to),
      domain,
    );
  }

  /** Gives the translator to the class a static call or `new` names (`self` is the caller's own class). */
  giveToCallee(file, call, index, domain) {
    const { callee } = call;
    const target =
      callee.kind === 'static' || callee.kind === 'new' ? this.classFile(file, callee.className) : undefined;
    if (target) {
      this.give(target, domain);
      return;
    }
    this.problem(
      file,
      call.open,
      `a translator for ${domain} is passed to ${describe(call)} (argument ${index + 1}), which the extractor cannot follow`,
    );
  }

  /** Reads the classes given a translator, and the classes they pass it on to. */
  propagate() {
    while (this.queue.length > 0) {
      const [file, domain] = this.queue.shift();
      this.scanClass(file, domain);
    }
  }

  /**
   * A class holding a translator for `domain` in its `callable $translate` parameters (and
   * properties set from them). The kernel names every translator parameter $translate; its other
   * callables ($formatTime, $clientFor, …) take no text.
   */
  scanClass(file, domain) {
    const carriers = new Set();
    for (const fn of file.functions)
      for (const p of fn.params) if (p.callable && p.name === TRANSLATOR_PARAMETER) carriers.add(p.name);
    const t = file.tokens;
    for (let k = 0; k < t.length; k++) {
      if (
        file.is(k, 'var', '$this') &&
        file.is(k + 1, 'op', '->') &&
        file.is(k + 2, 'id') &&
        file.is(k + 3, 'op', '=')
      ) {
        const value = soleVariable(file, [k + 4, expressionEnd(file, k + 4)]);
        if (value && carriers.has(value)) carriers.add(`$this->${t[k + 2].value}`);
      }
    }
    const isSink = (call) =>
      (call.callee.kind === 'variable' || call.callee.kind === 'property') && carriers.has(call.callee.name);
    const sameClass = (call) =>
      (call.callee.kind === 'static' &&
        (['self', 'static'].includes(call.callee.className) ||
          this.classFile(file, call.callee.className) === file)) ||
      (call.callee.kind === 'method' && call.callee.object === '$this');

    // Helpers: methods whose text parameter goes into the translator (or into another helper).
    const helpers = new Map();
    for (let changed = true; changed; ) {
      changed = false;
      for (const call of file.calls()) {
        const textIndex = isSink(call) ? 0 : sameClass(call) ? helpers.get(call.callee.name) : undefined;
        if (textIndex === undefined || !call.args[textIndex]) continue;
        const fn = file.enclosing(call.open);
        const variable = soleVariable(file, call.args[textIndex]);
        const param = fn && !fn.closure ? fn.params.findIndex((p) => p.name === variable) : -1;
        if (param !== -1 && fn.name && !helpers.has(fn.name)) {
          helpers.set(fn.name, param);
          changed = true;
        }
      }
    }

    for (const call of file.calls()) {
      const textIndex = isSink(call) ? 0 : sameClass(call) ? helpers.get(call.callee.name) : undefined;
      if (textIndex !== undefined && call.args[textIndex]) {
        const fn = file.enclosing(call.open);
        const variable = soleVariable(file, call.args[textIndex]);
        const forwarding =
          fn && !fn.closure && fn.params.some((p) => p.name === variable) && helpers.has(fn.name);
        if (!forwarding) {
          const texts = this.textsOf(file, call.args[textIndex], call.open);
          if (texts === null)
            this.problem(
              file,
              call.open,
              'cannot tell which texts this translates (use literals or a constant of texts)',
            );
          else for (const text of texts) this.add(domain, text, file.where(call.open));
        }
        continue;
      }
      // The translator passed on to another class.
      call.args.forEach((range, index) => {
        const variable = soleVariable(file, range);
        if (variable === null || !carriers.has(variable) || isSink(call)) return;
        if (sameClass(call)) return;
        this.giveToCallee(file, call, index, domain);
      });
    }
  }

  /**
   * The texts an expression can be: its literals (both sides of `?:` and `??`), the values of the
   * constants it reads, and for a variable what it was assigned or iterated from. Null when it
   * holds something else.
   */
  textsOf(file, [from, to], at, element = null, seen = new Set()) {
    const t = file.tokens;
    const level = topLevel(file, from, to);
    // `condition ? a : b`: the texts are those of a and b.
    const question = level.find((k) => file.is(k, 'op', '?'));
    const colon =
      question === undefined ? undefined : level.find((k) => k > question && file.is(k, 'op', ':'));
    if (question !== undefined && colon !== undefined) {
      const then = this.textsOf(file, [question + 1, colon], at, element, seen);
      const otherwise = this.textsOf(file, [colon + 1, to], at, element, seen);
      return then === null || otherwise === null ? null : [...then, ...otherwise];
    }
    const texts = [];
    let understood = false;
    for (const k of level) {
      const token = t[k];
      if (token.type === 'str') {
        const compared =
          (file.is(k - 1, 'op') && COMPARISONS.has(t[k - 1].value)) ||
          (file.is(k + 1, 'op') && COMPARISONS.has(t[k + 1].value));
        if (compared) continue;
        if (token.interpolated) return null;
        texts.push(token.value);
        understood = true;
      } else if (
        token.type === 'id' &&
        file.is(k + 1, 'op', '::') &&
        file.is(k + 2, 'id') &&
        !file.is(k + 3, 'op', '(')
      ) {
        const owner = ['self', 'static'].includes(token.value) ? file : this.classFile(file, token.value);
        const values = owner ? constantTexts(owner, t[k + 2].value, element) : null;
        if (values === null) return null;
        texts.push(...values);
        understood = true;
      } else if (token.type === 'var' && !file.is(k + 1, 'op', '->') && token.value !== '$this') {
        const values = this.variableTexts(file, token.value, at, element, seen);
        if (values === null) return null;
        texts.push(...values);
        understood = true;
      } else if (token.type === 'id' && file.is(k + 1, 'op', '(')) {
        return null;
      }
    }
    return understood ? texts : null;
  }

  /** What `$variable` holds where it is used at token `at`: from foreach or assignments in its function. */
  variableTexts(file, variable, at, element, seen) {
    const key = `${variable}@${at}`;
    if (seen.has(key)) return [];
    seen.add(key);
    let fn = file.enclosing(at);
    while (fn?.closure && fn.uses.includes(variable)) fn = file.enclosing(fn.start);
    if (!fn) return null;
    const texts = [];
    let understood = false;
    for (let k = fn.body[0]; k < fn.body[1]; k++) {
      if (file.is(k, 'id', 'foreach') && file.is(k + 1, 'op', '(')) {
        const end = file.close.get(k + 1);
        const as = topLevel(file, k + 2, end).find((i) => file.is(i, 'id', 'as'));
        if (as === undefined) continue;
        let target = as + 1;
        const arrow = topLevel(file, as + 1, end).find((i) => file.is(i, 'op', '=>'));
        if (arrow !== undefined) target = arrow + 1;
        let position = null;
        if (file.is(target, 'var', variable)) position = element;
        else if (
          file.is(target, 'op', '[') ||
          (file.is(target, 'id', 'list') && file.is(target + 1, 'op', '('))
        ) {
          const open = file.is(target, 'op', '[') ? target : target + 1;
          const items = splitTopLevel(file, open + 1, file.close.get(open));
          const index = items.findIndex((range) => soleVariable(file, range) === variable);
          if (index === -1) continue;
          position = index;
        } else continue;
        const values = this.textsOf(file, [k + 2, as], k, position, seen);
        if (values === null) return null;
        texts.push(...values);
        understood = true;
      } else if (file.is(k, 'var', variable) && file.is(k + 1, 'op', '=') && k < at) {
        const values = this.textsOf(file, [k + 2, expressionEnd(file, k + 2)], k, element, seen);
        if (values === null) return null;
        texts.push(...values);
        understood = true;
      }
    }
    return understood ? texts : null;
  }
}

/** Start of `$this->module->translator(` given the token of its opening parenthesis. */
function objectStart(file, open) {
  let k = open - 1;
  while (file.is(k - 1, 'op', '->') && (file.is(k - 2, 'id') || file.is(k - 2, 'var'))) {
    k -= 2;
    if (file.is(k, 'var')) break;
  }
  return k;
}

function isStatic(file, index) {
  return file.is(index - 1, 'id', 'static');
}

function describe(call) {
  const { callee } = call;
  if (callee.kind === 'static') return `${callee.className}::${callee.name}()`;
  if (callee.kind === 'new') return `new ${callee.className}()`;
  if (callee.kind === 'method') return `${callee.object ?? '…'}->${callee.name}()`;
  return `${callee.name}()`;
}

/**
 * The texts of constant `name` in `file`: a literal, or an array's values (for arrays of arrays,
 * the `element`-th item of each). Null when it holds anything else.
 */
function constantTexts(file, name, element) {
  const t = file.tokens;
  for (let k = 0; k < t.length; k++) {
    if (!(file.is(k, 'id', 'const') && file.is(k + 1, 'id', name) && file.is(k + 2, 'op', '='))) continue;
    const end = expressionEnd(file, k + 3);
    const single = literal(file, [k + 3, end]);
    if (single !== null) return [single];
    let open = k + 3;
    if (file.is(open, 'id', 'array')) open++;
    if (!(file.is(open, 'op', '[') || file.is(open, 'op', '('))) return null;
    const texts = [];
    for (const [from, to] of splitTopLevel(file, open + 1, file.close.get(open))) {
      const arrow = topLevel(file, from, to).find((i) => file.is(i, 'op', '=>'));
      const valueFrom = arrow === undefined ? from : arrow + 1;
      const value = literal(file, [valueFrom, to]);
      if (value !== null && element === null) {
        texts.push(value);
        continue;
      }
      let inner = valueFrom;
      if (file.is(inner, 'id', 'array')) inner++;
      if (element === null || !(file.is(inner, 'op', '[') || file.is(inner, 'op', '('))) return null;
      const item = splitTopLevel(file, inner + 1, file.close.get(inner))[element];
      const text = item ? literal(file, item) : null;
      if (text === null) return null;
      texts.push(text);
    }
    return texts;
  }
  return null;
}

runScript(import.meta.url, async ({ log }) => {
  const result = await extractTranslationStrings();
  log(JSON.stringify(result, null, 2));
});
