import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { isoString, parseTimestamptz } from '../../src/db/timestamps.js';

/** The generic parser the fast one stands in for; imported before anything replaces it. */
const generic = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (s: string) => unknown;

const same = (s: string) => {
  const want = generic(s);
  const got = parseTimestamptz(s);
  expect(got instanceof Date ? got.getTime() : got, s).toEqual(want instanceof Date ? want.getTime() : want);
  // The DateTime scalar's ISO form, written from the text, is toISOString's.
  if (got instanceof Date) expect(isoString(got), s).toBe(got.toISOString());
};

describe('parseTimestamptz reads timestamptz exactly as pg does', () => {
  test('UTC forms, with 0 to 6 fractional digits', () => {
    for (const s of [
      '2026-11-23 06:08:21+00',
      '2026-11-23 06:08:21.7+00',
      '2026-11-23 06:08:21.77+00',
      '2026-11-23 06:08:21.774+00',
      '2026-11-23 06:08:21.7745+00',
      '2026-11-23 06:08:21.774512+00',
      '2024-02-29 23:59:59.999999+00',
      '1970-01-01 00:00:00+00',
      '0100-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999+00',
    ])
      same(s);
  });

  test('random instants over four centuries, to the microsecond', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor((rnd() * 400 - 200) * 365.25 * 86400_000);
      const iso = new Date(ms).toISOString(); // 1770..2170
      const micros = String(Math.floor(rnd() * 1_000_000))
        .padStart(6, '0')
        .slice(0, 1 + Math.floor(rnd() * 6));
      same(`${iso.slice(0, 10)} ${iso.slice(11, 19)}.${micros}+00`);
      same(`${iso.slice(0, 10)} ${iso.slice(11, 19)}+00`);
    }
  });

  test('other forms go to the generic parser', () => {
    for (const s of [
      'infinity',
      '-infinity',
      '2026-11-23 06:08:21+05:30',
      '2026-11-23 06:08:21.5-08',
      '0099-06-01 12:00:00+00',
      '0001-01-01 00:00:00+00 BC',
      '12026-11-23 06:08:21+00',
      '2026-11-23T06:08:21+00',
    ])
      same(s);
  });
});

describe('isoString', () => {
  test('formats a Date not read from Postgres with toISOString', () => {
    for (const ms of [0, -1, -86_400_001, 1_763_900_000_123, Date.UTC(9999, 11, 31, 23, 59, 59, 999)]) {
      const d = new Date(ms);
      expect(isoString(d)).toBe(d.toISOString());
    }
  });

  test('before 1970 the milliseconds still count up from the second', () => {
    const d = parseTimestamptz('1969-12-31 23:59:59.001+00') as Date;
    expect(d.getTime()).toBe(-999);
    expect(isoString(d)).toBe('1969-12-31T23:59:59.001Z');
  });
});
