import { describe, expect, test } from 'vitest';
import { CursorCodec } from '../../src/pagination/cursor.js';

const codec = new CursorCodec('secret');
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return 'no error';
};

describe('cursor codec', () => {
  test('round-trips its values under the same scope', () => {
    const values = ['"x"', 1_767_225_600_000, 'prj_1'];
    expect(codec.decode('list:a', codec.encode('list:a', values), 3)).toEqual(values);
  });

  test('refuses another scope, another secret, an edit, a wrong arity and junk', () => {
    const c = codec.encode('list:a', [1, 'a']);
    expect(code(() => codec.decode('list:b', c, 2))).toBe('INVALID_CURSOR');
    expect(code(() => new CursorCodec('other').decode('list:a', c, 2))).toBe('INVALID_CURSOR');
    expect(code(() => codec.decode('list:a', c, 3))).toBe('INVALID_CURSOR');
    const [payload, mac] = c.split('.');
    const edited = Buffer.from(JSON.stringify([2, 'a'])).toString('base64url');
    expect(code(() => codec.decode('list:a', `${edited}.${mac}`, 2))).toBe('INVALID_CURSOR');
    expect(code(() => codec.decode('list:a', `${payload}.${mac.slice(1)}`, 2))).toBe('INVALID_CURSOR');
    for (const junk of ['', '.', 'abc', `.${mac}`, 'x'.repeat(600)])
      expect(
        code(() => codec.decode('list:a', junk, 2)),
        junk,
      ).toBe('INVALID_CURSOR');
  });

  test('a signed payload that is not a list of strings and finite numbers is refused', () => {
    // Forge a correctly signed cursor over a bad payload, as a holder of the secret could.
    const forge = (v: unknown) => {
      const payload = Buffer.from(JSON.stringify(v)).toString('base64url');
      const mac = (codec as unknown as { sign(s: string, p: string): string }).sign('s', payload);
      return `${payload}.${mac}`;
    };
    expect(code(() => codec.decode('s', forge([null]), 1))).toBe('INVALID_CURSOR');
    expect(code(() => codec.decode('s', forge({ a: 1 }), 1))).toBe('INVALID_CURSOR');
    expect(code(() => codec.decode('s', forge([{}]), 1))).toBe('INVALID_CURSOR');
    expect(codec.decode('s', forge(['ok']), 1)).toEqual(['ok']);
  });
});
