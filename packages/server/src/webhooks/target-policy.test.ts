import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, liveWebhookTargetProblem } from './target-policy.js';

describe('live webhook target policy', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.8',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
  ])('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));
  it.each(['8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) =>
    expect(isForbiddenAddress(address)).toBe(false));
  it('explains what is refused', async () => {
    expect(await liveWebhookTargetProblem('http://localhost:8080/hook')).toMatch(/localhost/);
    expect(await liveWebhookTargetProblem('http://192.168.0.10/hook')).toMatch(
      /private, loopback or link-local/,
    );
    expect(await liveWebhookTargetProblem('https://93.184.215.14/hook')).toBeNull();
  });
});
