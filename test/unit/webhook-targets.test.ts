import { describe, expect, test } from 'vitest';
import {
  checkUrlShape,
  isBlockedAddress,
  resolveTarget,
  TargetRefused,
} from '../../src/modules/webhooks/targets.js';

describe('webhook targets', () => {
  test.each([
    '127.0.0.1',
    '127.9.9.9',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd12:3456::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:c0a8:0101::1',
    '::127.0.0.1',
    'fe80::1%eth0',
    'not-an-address',
    // IPv4-mapped (::ffff:0:0/96) in other spellings.
    '0:0:0:0:0:ffff:127.0.0.1',
    '0000:0000:0000:0000:0000:FFFF:7F00:0001',
    '::0:ffff:10.0.0.1',
    '::ffff:0.0.0.0',
    // IPv4-translated (SIIT, ::ffff:0:0:0/96).
    '::ffff:0:127.0.0.1',
    '::ffff:0:a9fe:a9fe',
    // NAT64 (64:ff9b::/96), also spelled out with a dotted tail.
    '64:ff9b::10.0.0.1',
    '64:ff9b:0:0:0:0:10.0.0.1',
    '64:ff9b::7f00:1',
    // Local-use NAT64 (64:ff9b:1::/48): where it carries the IPv4 address is the operator's choice.
    '64:ff9b:1::a00:1',
    '64:ff9b:1::808:808',
    '64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
  ])('%s is refused', (a) => expect(isBlockedAddress(a)).toBe(true));

  test.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '0:0:0:0:0:ffff:8.8.8.8',
    '::ffff:0:8.8.8.8',
    '2002:0808:0808::1',
    // DNS64 answers a public host with its NAT64 address.
    '64:ff9b::808:808',
    '64:ff9b::8.8.8.8',
    // Next to the local-use NAT64 prefix, outside it.
    '64:ff9b:2::1',
  ])('%s is allowed', (a) => expect(isBlockedAddress(a)).toBe(false));

  test('every address a name resolves to is checked, not just the first', async () => {
    const twoFaced = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(resolveTarget(new URL('https://hooks.example/x'), false, twoFaced)).rejects.toThrow(
      /10\.0\.0\.7/,
    );
    // Allowed when private targets are: the first address is the one connected to.
    await expect(resolveTarget(new URL('https://hooks.example/x'), true, twoFaced)).resolves.toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    const publicOnly = async () => [{ address: '93.184.215.14', family: 4 }];
    await expect(resolveTarget(new URL('https://hooks.example/x'), false, publicOnly)).resolves.toMatchObject(
      {
        address: '93.184.215.14',
      },
    );
  });

  test('only http(s) without credentials', () => {
    expect(() => checkUrlShape('file:///etc/passwd')).toThrow(TargetRefused);
    expect(() => checkUrlShape('https://a:b@example.com/')).toThrow(/credentials/);
    expect(() => checkUrlShape('nope')).toThrow(/valid absolute URL/);
    expect(checkUrlShape('https://example.com/h').host).toBe('example.com');
  });
});
