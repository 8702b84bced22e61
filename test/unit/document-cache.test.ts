import { parse } from 'graphql';
import { describe, expect, test } from 'vitest';
import type { Operation } from '../../src/graphql/operation.js';
import { DocumentCache } from '../../src/graphql/seam.js';

const op = (text: string): Operation => {
  const document = parse(text);
  return { document, operation: document.definitions[0] as Operation['operation'] };
};

describe('DocumentCache (graphql/seam.ts)', () => {
  test('by text and operation name', () => {
    const known = new DocumentCache();
    const text = 'query A { viewer { user { id } } } query B { viewer { user { name } } }';
    const a = op(text);
    known.remember(text, 'A', a);
    expect(known.get(text, 'A')).toBe(a);
    expect(known.get(text, 'B')).toBeUndefined();
    expect(known.get(text, undefined)).toBeUndefined();
    expect(known.get(`${text} `, 'A')).toBeUndefined();
  });

  test('bounded by entries, the oldest forgotten first', () => {
    const known = new DocumentCache(3, 1_000_000);
    const texts = [1, 2, 3, 4, 5].map((i) => `query Q${i} { viewer { user { id } } }`);
    for (const t of texts) known.remember(t, undefined, op(t));
    expect(known.size.entries).toBe(3);
    expect(known.get(texts[0], undefined)).toBeUndefined();
    expect(known.get(texts[1], undefined)).toBeUndefined();
    expect(known.get(texts[4], undefined)).toBeDefined();
  });

  test('bounded by the length of the texts, whatever their number', () => {
    const known = new DocumentCache(1_000, 1_000);
    const pad = (i: number) => `query Q${i} { viewer { user { id } } } ${'#'.repeat(300)}`;
    for (let i = 0; i < 20; i++) known.remember(pad(i), undefined, op(pad(i)));
    expect(known.size.chars).toBeLessThanOrEqual(1_000);
    expect(known.size.entries).toBe(Math.floor(1_000 / (pad(19).length + 1)));
    expect(known.get(pad(19), undefined)).toBeDefined();
    // A text longer than the whole budget is never kept (it would push out everything else).
    const huge = `query H { viewer { user { id } } } ${'#'.repeat(2_000)}`;
    known.remember(huge, undefined, op(huge));
    expect(known.get(huge, undefined)).toBeUndefined();
    expect(known.get(pad(19), undefined)).toBeDefined();
  });
});
