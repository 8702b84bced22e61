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
  ])('%s is refused', (a) => expect(isBlockedAddress(a)).toBe(true));

  test.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2002:0808:0808::1',
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
