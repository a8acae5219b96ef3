import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, liveWebhookTargetProblem, vetWebhookTarget } from './target-policy.js';

describe('live webhook target policy', () => {
  // IANA IPv4 / IPv6 Special-Purpose Address Registries, plus private, multicast and reserved space.
  it.each([
    '127.0.0.1',
    '10.0.0.8',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '198.18.0.1',
    '198.19.255.254',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b:1::8.8.8.8',
    '100::1',
    '2001::1',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
    '2001:db8::1',
    '2002:c0a8:101::1',
    '3fff::1',
    '5f00::1',
    'fc00::1',
    'fd00::1',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
  ])('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each([
    '8.8.8.8',
    '172.32.0.1',
    '192.0.1.1',
    '198.20.0.1',
    '203.0.114.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::1',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
  ])('allows %s', (address) => expect(isForbiddenAddress(address)).toBe(false));

  it.each([
    'http://127.1/hook',
    'http://0x7f.1/hook',
    'http://2130706433/hook',
    'http://017700000001/hook',
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:169.254.169.254]/latest',
    'http://[64:ff9b::7f00:1]/hook',
    'http://[2001:db8::1]:8443/hook',
    'https://[fe80::1]/hook',
    'http://192.0.2.10/hook',
    'http://198.18.0.1/hook',
    'http://255.255.255.255/hook',
  ])('refuses the URL %s (WHATWG URL normalises the host first)', async (url) => {
    expect(await liveWebhookTargetProblem(url)).not.toBeNull();
  });

  it('explains what is refused', async () => {
    expect(await liveWebhookTargetProblem('http://localhost:8080/hook')).toMatch(/localhost/);
    expect(await liveWebhookTargetProblem('http://192.168.0.10/hook')).toMatch(
      /resolves to 192\.168\.0\.10, a private, loopback, link-local or special-purpose address/,
    );
    expect(await liveWebhookTargetProblem('ftp://example.com/hook')).toMatch(/only http and https/);
    expect(await liveWebhookTargetProblem('https://93.184.215.14/hook')).toBeNull();
  });

  it('refuses a host when any of its addresses is forbidden, and keeps the vetted ones', async () => {
    const resolve = async () => ['93.184.215.14', '10.0.0.1'];
    expect(await liveWebhookTargetProblem('https://shop.example/hook', { resolve })).toMatch(/10\.0\.0\.1/);
    const vetted = await vetWebhookTarget('https://shop.example/hook', {
      enforce: true,
      resolve: async () => ['93.184.215.14'],
    });
    expect(vetted).toEqual({
      target: { url: new URL('https://shop.example/hook'), addresses: ['93.184.215.14'] },
    });
  });
});
