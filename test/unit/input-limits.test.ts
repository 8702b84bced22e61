import { parse } from 'graphql';
import { describe, expect, test } from 'vitest';
import { AppError } from '../../src/errors.js';
import {
  checkLiteralDepth,
  checkQueryText,
  checkVariables,
  maxNesting,
} from '../../src/graphql/input-limits.js';
import { DEFAULT_LIMITS } from '../../src/graphql/limits.js';

/** The bounds that run before graphql-js recurses: over the query text, its literals and the variables. */
const appError = (fn: () => void): AppError => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('nothing was refused');
};

describe('the query text', () => {
  const nested = (n: number) => `{ organization(id: ${'['.repeat(n - 2)}"x"${']'.repeat(n - 2)}) { id } }`;
  const max = maxNesting(DEFAULT_LIMITS);

  test('nesting is bounded before parsing, exactly at the bound', () => {
    expect(max).toBe(104);
    expect(() => checkQueryText(nested(max), DEFAULT_LIMITS)).not.toThrow();
    const e = appError(() => checkQueryText(nested(max + 1), DEFAULT_LIMITS));
    expect(e.code).toBe('QUERY_TOO_COMPLEX');
    expect(e.message).toMatch(/more than 104 levels/);
  });

  test('bytes are bounded', () => {
    const e = appError(() => checkQueryText(`{ a } #${'x'.repeat(20_000)}`, DEFAULT_LIMITS));
    expect(e.message).toMatch(/20007 bytes; the limit is 20000/);
  });

  test('syntax errors and token overflows are left to the parser, whose message names them', () => {
    expect(() => checkQueryText('{ a(x: "unterminated }', DEFAULT_LIMITS)).not.toThrow();
    expect(() => checkQueryText(`{ ${'a '.repeat(6000)}${'{'.repeat(500)} }`, DEFAULT_LIMITS)).not.toThrow();
  });
});

describe('input values', () => {
  const nest = (depth: number): unknown => {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { not: v };
    return v;
  };

  test('variables nest at most maxInputDepth objects and lists, checked without recursion', () => {
    expect(() => checkVariables({ f: nest(32) }, 32)).not.toThrow();
    const e = appError(() => checkVariables({ ok: 1, f: nest(33) }, 32));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details).toEqual([{ field: '$f', reason: 'nests more than 32 levels deep' }]);
    // Deeper than any recursive walk could go.
    expect(appError(() => checkVariables({ f: nest(1_000_000) }, 32)).code).toBe('VALIDATION_FAILED');
  });

  test('strings anywhere in a variable must be valid Unicode', () => {
    expect(() => checkVariables({ s: 'Prairie ☀️ 𝔘' }, 32)).not.toThrow();
    for (const bad of ['\ud800', 'x\udfff', '\udc00\ud800']) {
      const e = appError(() => checkVariables({ f: { and: [{ property: { text: { eq: bad } } }] } }, 32));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.details?.[0].field).toBe('$f');
    }
  });

  test('literals in the document: arguments and variable defaults', () => {
    const lit = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
    expect(() => checkLiteralDepth(parse(`{ a(x: ${lit(32)}) }`), 32)).not.toThrow();
    expect(appError(() => checkLiteralDepth(parse(`{ a(x: ${lit(33)}) }`), 32)).message).toMatch(
      /more than 32/,
    );
    expect(appError(() => checkLiteralDepth(parse(`query($v: X = ${lit(33)}) { a }`), 32)).code).toBe(
      'VALIDATION_FAILED',
    );
  });
});
