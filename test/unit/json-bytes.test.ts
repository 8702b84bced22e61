import { describe, expect, test } from 'vitest';
import { jsonBytes, WrittenJson } from '../../src/http/json-bytes.js';

/** jsonBytes must write exactly the bytes of JSON.stringify's text, whichever form it returns. */
function same(value: unknown, suffix = '') {
  const got = jsonBytes(value, suffix);
  const want = JSON.stringify(value) + suffix;
  expect(Buffer.from(got as string).equals(Buffer.from(want))).toBe(true);
  return got;
}

/** A record as the answers hold them, with text beyond Latin-1 and beyond the BMP. */
const record = (i: number) => ({
  __typename: 'Project',
  id: `prj_${i}`,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
  values: [
    { __typename: 'TextValue', propertyId: 'name', text: `Río Bravo ☀️ 太陽 ${i}` },
    { __typename: 'NumberValue', propertyId: 'capacity_mw', number: i * 1.5 },
    { __typename: 'SelectValue', propertyId: 'stage', options: [{ id: 'ntp', name: 'NTP', color: null }] },
  ],
  contacts: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] },
});

describe('jsonBytes writes what JSON.stringify writes', () => {
  test('leaves and small values stay strings', () => {
    for (const v of [
      null,
      true,
      0,
      -1.5e300,
      'a "quoted" \n line',
      [],
      {},
      [1, 'two', null],
      { a: { b: [] } },
    ])
      expect(typeof same(v)).toBe('string');
  });

  test('members and elements JSON.stringify cannot write are left out, or null in arrays', () => {
    same({ a: undefined, b: () => 1, c: Symbol('s'), d: 1 });
    same([undefined, () => 1, Symbol('s'), 2]);
    same({ first: undefined, second: { x: undefined }, third: [undefined] });
  });

  test('toJSON, class instances and null-prototype objects', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const bare = Object.assign(Object.create(null) as object, { k: [1, 2], when: new Date(0) });
    same({
      when: new Date(1e12),
      point: new Point(1, 2),
      custom: { toJSON: () => ({ swapped: true }) },
      bare,
    });
    same(new Date(5));
  });

  test('a large answer becomes one Buffer, with the suffix', () => {
    const answer = {
      data: { portfolio: { projects: { nodes: Array.from({ length: 300 }, (_, i) => record(i)) } } },
    };
    const got = same(answer, '\n');
    expect(Buffer.isBuffer(got)).toBe(true);
    expect((got as Buffer).length).toBeGreaterThan(3 * 16_384);
  });

  test('a page of 5,000 items, and an array of arrays', () => {
    same({
      items: Array.from({ length: 5000 }, (_, i) => ({ id: `prj_${i}`, properties: { name: `Ñandú ${i}` } })),
    });
    same([Array.from({ length: 3000 }, (_, i) => `😀${i}`), Array.from({ length: 3000 }, (_, i) => i)]);
  });

  test('random trees, lone surrogates included, at every size', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const chars = ['a', 'é', '"', '\\', '\n', '\u0001', '😀', '\ud800', '\udfff', '太', '\u2028'];
    const text = () => Array.from({ length: rand(40) }, () => chars[rand(chars.length)]).join('');
    const tree = (depth: number): unknown => {
      const k = rand(depth > 3 ? 4 : 7);
      // Long arrays near the root only, so a tree stays a few thousand values.
      if (k === 0) return text();
      if (k === 1) return rand(1000) / 7;
      if (k === 2) return [null, true, false, undefined][rand(4)];
      if (k === 3) return new Date(rand(1e9));
      if (k === 4 || k === 5)
        return Array.from({ length: rand(k === 5 && depth < 2 ? 400 : 5) }, () => tree(depth + 1));
      return Object.fromEntries(Array.from({ length: rand(6) }, () => [text(), tree(depth + 1)]));
    };
    let pieces = 0;
    for (let i = 0; i < 300; i++) if (Buffer.isBuffer(same(tree(0), i % 2 ? '\n' : ''))) pieces++;
    // Enough of them span several pieces for the boundaries to be tested too.
    expect(pieces).toBeGreaterThan(20);
  });
});

describe('JSON written already', () => {
  // A planned /graphql answer arrives as WrittenJson (graphql/executor.ts), as text or as bytes.
  const page = { nodes: Array.from({ length: 400 }, (_, i) => record(i)) };
  test('is copied as it is, small or large, with the answer around it', () => {
    for (const data of [{ a: 1 }, page]) {
      for (const written of [jsonBytes(data), Buffer.from(jsonBytes(data) as string)]) {
        const got = jsonBytes({ data: new WrittenJson(written), extensions: { n: 1 } }, '\n');
        const want = `${JSON.stringify({ data, extensions: { n: 1 } })}\n`;
        expect(Buffer.from(got as string).equals(Buffer.from(want))).toBe(true);
      }
    }
  });

  test('any other serializer still gets the value', () => {
    expect(JSON.stringify({ data: new WrittenJson(Buffer.from('{"x":[1,"é"]}')) })).toBe(
      '{"data":{"x":[1,"é"]}}',
    );
  });
});
