import { GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { describe, expect, test } from 'vitest';
import { literal, oncePer } from '../../src/graphql/plan/literal.js';
import { leaf, leafWriter, NotPlanned } from '../../src/graphql/plan/values.js';

describe('literal builders (plan/literal.ts)', () => {
  test('keys in order, constants as given, computed parts from the arguments', () => {
    const build = literal<[number, string]>(
      [
        { key: '__typename', value: 'TextValue' },
        { key: 'sum', compute: (a, b) => a + b.length },
        { key: 'same', value: null },
        { key: 'b', compute: (_, b) => b },
      ],
      2,
    );
    const out = build(1, 'abc');
    expect(Object.keys(out)).toEqual(['__typename', 'sum', 'same', 'b']);
    expect(out).toEqual({ __typename: 'TextValue', sum: 4, same: null, b: 'abc' });
    // A fresh object each time, the constants shared by value only.
    expect(build(1, 'abc')).not.toBe(out);
  });

  test('a key is text in the generated source, never code', () => {
    const key = 'a"}; globalThis.pwned = 1; ({"';
    const out = literal([{ key, value: 1 }], 0)();
    expect(Object.keys(out)).toEqual([key]);
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
  });

  test('__proto__ is refused: a literal would set the prototype, not write the key', () => {
    expect(() => literal([{ key: '__proto__', value: 1 }], 0)).toThrow(/__proto__/);
  });

  test('no parts: an empty object', () => {
    expect(literal([], 3)(1, 2, 3)).toEqual({});
  });
});

describe('leafWriter answers as the type serializes (plan/values.ts)', () => {
  const cases: [string, Parameters<typeof leafWriter>[0], unknown[]][] = [
    ['String', GraphQLString, ['x', '', 5, true, 1.5]],
    ['ID', GraphQLID, ['usr_1', 7]],
    ['Float', GraphQLFloat, [1.5, 0, -0, 3, true, '2.5']],
    ['Boolean', GraphQLBoolean, [true, false, 1, 0]],
    ['Int', GraphQLInt, [3, '4', true]],
  ];
  for (const [name, type, values] of cases)
    test(name, () => {
      const write = leafWriter(type);
      for (const v of values) expect(Object.is(write(v), type.serialize(v))).toBe(true);
    });

  test('what the type refuses is refused the same way; a missing leaf is the executor’s', () => {
    for (const type of [GraphQLString, GraphQLFloat, GraphQLBoolean]) {
      const write = leafWriter(type);
      for (const v of [{}, Number.NaN, Number.POSITIVE_INFINITY, [1, 2]]) {
        let expected: unknown;
        try {
          type.serialize(v);
        } catch (err) {
          expected = err;
        }
        if (expected) expect(() => write(v)).toThrow((expected as Error).message);
        else expect(write(v)).toEqual(type.serialize(v));
      }
      expect(() => write(null)).toThrow(NotPlanned);
      expect(() => write(undefined)).toThrow(NotPlanned);
      expect(() => leaf(type, null)).toThrow(NotPlanned);
    }
  });
});

describe('oncePer', () => {
  test('compiles a builder once per key and hands the same one back', () => {
    const made: string[] = [];
    const builderOf = oncePer((key: { name: string }) => {
      made.push(key.name);
      return literal([{ key: key.name, value: 1 }], 0);
    });
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect(builderOf(a)).toBe(builderOf(a));
    expect(builderOf(b)()).toEqual({ b: 1 });
    expect(builderOf(b)).not.toBe(builderOf(a));
    expect(made).toEqual(['a', 'b']);
  });
});
