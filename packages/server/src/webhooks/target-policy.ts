import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Resolves a host name to every address it has (injectable so tests can play a rebinding DNS). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** The system resolver (getaddrinfo), every address in the order it answers. */
export const systemResolve: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true })).map((entry) => entry.address);

/**
 * Ranges a live-mode webhook must never reach. Source: IANA "IPv4 Special-Purpose Address Registry"
 * and "IPv6 Special-Purpose Address Registry" (every block there, globally reachable or not, since
 * none of them hosts a shop), plus multicast, reserved and deprecated site-local space.
 */
const FORBIDDEN_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. 255.255.255.255 limited broadcast
];

const FORBIDDEN_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], // unspecified, loopback and deprecated IPv4-compatible ::a.b.c.d
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID, AMT, …
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: the embedded IPv4 address could be anything
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
];

/** Prefixes whose last 32 bits are an IPv4 address that decides: IPv4-mapped and NAT64 well-known. */
const EMBEDDING_V4: ReadonlyArray<readonly [string, number]> = [
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
];

const V4_RULES = FORBIDDEN_V4.map(([network, prefix]) => ({ bytes: parseV4(network)!, prefix }));
const V6_RULES = FORBIDDEN_V6.map(([network, prefix]) => ({ bytes: parseV6(network)!, prefix }));
const EMBEDDING_RULES = EMBEDDING_V4.map(([network, prefix]) => ({ bytes: parseV6(network)!, prefix }));

/** True when an IP literal is in a range that live-mode webhooks may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const literal = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(literal);
  if (family === 4) return matchesAny(parseV4(literal)!, V4_RULES);
  if (family !== 6) return false;
  const bytes = parseV6(literal);
  // An address we cannot read is refused rather than guessed at.
  if (!bytes) return true;
  if (EMBEDDING_RULES.some((rule) => inPrefix(bytes, rule.bytes, rule.prefix))) {
    return matchesAny(bytes.subarray(12), V4_RULES);
  }
  return matchesAny(bytes, V6_RULES);
}

/** A delivery target that passed the policy: the parsed URL and the addresses to connect to. */
export interface VettedTarget {
  url: URL;
  /** Connect to these (and only these): resolving again could answer differently (DNS rebinding). */
  addresses: string[];
}

export interface VetOptions {
  /** Refuse private and special-purpose targets (live mode); sandbox mode resolves but does not refuse. */
  enforce: boolean;
  resolve?: ResolveHost;
  isForbidden?: (address: string) => boolean;
}

/**
 * Parses and resolves a webhook URL once and, when enforcing, checks every address it resolves to.
 * @returns the target to connect to, or a problem naming why it may not be called.
 */
export async function vetWebhookTarget(
  rawUrl: string,
  options: VetOptions,
): Promise<{ target: VettedTarget } | { problem: string }> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { problem: 'the webhook URL is not a valid absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: 'only http and https webhook URLs are allowed' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (options.enforce && (host === 'localhost' || host.endsWith('.localhost')))
    return { problem: 'webhook URLs may not point at localhost in live mode' };
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { problem: `the webhook host "${host}" does not resolve` };
  }
  if (options.enforce) {
    const forbidden = addresses.find(options.isForbidden ?? isForbiddenAddress);
    if (forbidden)
      return {
        problem: `the webhook host resolves to ${forbidden}, a private, loopback, link-local or special-purpose address, which live mode refuses`,
      };
  }
  return { target: { url, addresses } };
}

/**
 * Why a webhook URL may not be called in live mode (SSRF protection), or null when it may.
 * Resolves the host name; delivery vets again and connects only to the addresses it vetted.
 */
export async function liveWebhookTargetProblem(
  url: string,
  options: { resolve?: ResolveHost } = {},
): Promise<string | null> {
  const vetted = await vetWebhookTarget(url, { enforce: true, resolve: options.resolve });
  return 'problem' in vetted ? vetted.problem : null;
}

function matchesAny(bytes: Uint8Array, rules: ReadonlyArray<{ bytes: Uint8Array; prefix: number }>) {
  return rules.some((rule) => inPrefix(bytes, rule.bytes, rule.prefix));
}

function inPrefix(address: Uint8Array, network: Uint8Array, prefix: number): boolean {
  if (address.length !== network.length) return false;
  for (let bit = 0; bit < prefix; bit += 8) {
    const remaining = prefix - bit;
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    const index = bit / 8;
    if ((address[index]! & mask) !== (network[index]! & mask)) return false;
  }
  return true;
}

function parseV4(address: string): Uint8Array | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  const bytes = parts.map(Number);
  return bytes.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255)
    ? Uint8Array.from(bytes)
    : null;
}

function parseV6(address: string): Uint8Array | null {
  let text = address.toLowerCase();
  const groups: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (dotted) {
    const v4 = parseV4(dotted[1]!);
    if (!v4) return null;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    text = text.slice(0, -dotted[1]!.length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const read = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const head = read(halves[0]!);
  const rest = halves.length === 2 ? read(halves[1]!) : [];
  const fill = 8 - head.length - rest.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return null;
  groups.push(...head, ...Array(halves.length === 2 ? fill : 0).fill(0), ...rest, ...tail);
  if (groups.length !== 8 || groups.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff))
    return null;
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}
