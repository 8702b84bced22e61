import { expect, test } from 'vitest';
import { paired, pairedText } from '../../bench/paired.js';

test('paired rounds: the median of per-round ratios, not the ratio of medians', () => {
  // The machine halves its speed from round 2 on; the second build is 10% cheaper in every round.
  const before = [1.0, 2.0, 2.0, 2.0];
  const after = [0.9, 1.8, 1.8, 1.8];
  const p = paired(after, before);
  expect(p.median).toBeCloseTo(0.9);
  expect(p).toMatchObject({ lower: 4, rounds: 4 });
  expect(pairedText(p)).toBe('0.900× [0.90–0.90], lower in 4 of 4 rounds');
});

test('an even number of rounds takes the mean of the middle two; ties are not lower', () => {
  const p = paired([1, 3, 2, 4], [1, 2, 2, 2]);
  expect(p.median).toBeCloseTo(1.25);
  expect([p.min, p.max, p.lower]).toEqual([1, 2, 0]);
});

test('unequal lengths pair the rounds both have; none is an error', () => {
  expect(paired([1, 1, 5], [2, 2]).rounds).toBe(2);
  expect(() => paired([], [1])).toThrow(/no rounds/);
});
