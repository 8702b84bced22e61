import { describe, expect, test } from 'vitest';
import { endedBefore, parseSnapshot } from '../../src/modules/changes/snapshot.js';

describe('a subscription start snapshot', () => {
  test('parses the text form, with and without running transactions', () => {
    expect(parseSnapshot('10:20:12,15')).toEqual({ xmin: 10n, xmax: 20n, running: new Set([12n, 15n]) });
    expect(parseSnapshot('742:742:')).toEqual({ xmin: 742n, xmax: 742n, running: new Set() });
    expect(() => parseSnapshot('10:20')).toThrow(/not a pg_snapshot/);
  });

  test('tells ended from running and future transactions, as pg_visible_in_snapshot does', () => {
    // xmin is the oldest transaction still running, so it is listed among the running ones.
    const s = parseSnapshot('10:20:10,12,15');
    expect(['9', '11', '13', '19'].map((tx) => endedBefore(s, tx))).toEqual([true, true, true, true]);
    expect(['10', '12', '15', '20', '21'].map((tx) => endedBefore(s, tx))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  test('compares xid8 values beyond 2^53 exactly', () => {
    const s = parseSnapshot('9007199254740993:9007199254740995:9007199254740993,9007199254740994');
    expect(endedBefore(s, '9007199254740992')).toBe(true);
    expect(endedBefore(s, '9007199254740993')).toBe(false);
    expect(endedBefore(s, '9007199254740994')).toBe(false);
    expect(endedBefore(s, '9007199254740995')).toBe(false);
  });
});
