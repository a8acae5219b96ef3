import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Ranges a live-mode webhook must never reach: loopback, private, link-local, CGNAT, unspecified, multicast. */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** True when an IP literal is in a range that live-mode webhooks may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return FORBIDDEN.check(mapped[1]!, 'ipv4');
    return FORBIDDEN.check(address, 'ipv6');
  }
  return FORBIDDEN.check(address, 'ipv4');
}

/**
 * Why a webhook URL may not be called in live mode (SSRF protection), or null when it may.
 * Resolves the host name, so call it again at delivery time: DNS answers can change.
 */
export async function liveWebhookTargetProblem(url: string): Promise<string | null> {
  const { hostname, protocol } = new URL(url);
  if (protocol !== 'http:' && protocol !== 'https:') return 'only http and https webhook URLs are allowed';
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost'))
    return 'webhook URLs may not point at localhost in live mode';
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
    } catch {
      return `the webhook host "${host}" does not resolve`;
    }
  }
  const forbidden = addresses.find(isForbiddenAddress);
  return forbidden
    ? `the webhook host resolves to ${forbidden}, a private, loopback or link-local address, which live mode refuses`
    : null;
}
