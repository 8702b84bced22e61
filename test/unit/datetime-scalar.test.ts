import { Kind } from 'graphql';
import { describe, expect, test } from 'vitest';
import { DateTimeScalar } from '../../src/graphql/scalars.js';

/** The DateTime a variable's value becomes, or the message it is refused with. */
const read = (v: unknown): string => {
  try {
    return (DateTimeScalar.parseValue(v) as Date).toISOString();
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
};
const literal = (value: string) => DateTimeScalar.parseLiteral({ kind: Kind.STRING, value }) as Date;

describe('the DateTime scalar is strict', () => {
  test('ISO 8601 date-times are read exactly, with their offsets', () => {
    expect(read('2026-03-01T12:00:00.000Z')).toBe('2026-03-01T12:00:00.000Z');
    expect(read('2026-03-01T12:00:00Z')).toBe('2026-03-01T12:00:00.000Z');
    expect(read('2026-03-01t12:00:00z')).toBe('2026-03-01T12:00:00.000Z');
    expect(read('2026-03-01 12:00:00Z')).toBe('2026-03-01T12:00:00.000Z');
    expect(read('2026-03-01T12:00Z')).toBe('2026-03-01T12:00:00.000Z');
    expect(read('2026-03-01T12:00:00+02:00')).toBe('2026-03-01T10:00:00.000Z');
    expect(read('2026-03-01T00:30:00-01:00')).toBe('2026-03-01T01:30:00.000Z');
    expect(read('2026-12-31T23:30:00-01:00')).toBe('2027-01-01T00:30:00.000Z');
    expect(read('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    expect(read('2026-03-01T12:00:00.5Z')).toBe('2026-03-01T12:00:00.500Z');
    // Finer than a millisecond is cut, as Date keeps milliseconds.
    expect(read('2026-03-01T12:00:00.123456789Z')).toBe('2026-03-01T12:00:00.123Z');
    expect(literal('2026-03-01T12:00:00+02:00').toISOString()).toBe('2026-03-01T10:00:00.000Z');
  });

  test('a date alone is its UTC midnight, and a time without an offset is UTC', () => {
    expect(read('2026-03-01')).toBe('2026-03-01T00:00:00.000Z');
    expect(read('2026-03-01T12:00:00')).toBe('2026-03-01T12:00:00.000Z');
  });

  test('years 0001 to 9999 only; the years 0-99 are not moved to the 1900s', () => {
    expect(read('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(read('0050-06-01T00:00:00Z')).toBe('0050-06-01T00:00:00.000Z');
    expect(read('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    for (const v of ['0000-12-31T00:00:00Z', '0001-01-01T00:00:00+01:00', '9999-12-31T23:00:00-05:00'])
      expect(read(v), v).toMatch(/^refused: DateTime must be in the years 0001 to 9999/);
  });

  test('impossible calendar dates are refused, not rolled over', () => {
    for (const v of [
      '2023-02-30',
      '2023-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10',
    ])
      expect(read(v), v).toMatch(
        /^refused: DateTime must be a real calendar date; \d{4}-\d{2}-\d{2} is not$/,
      );
  });

  test('hours, minutes, seconds and offsets out of range are refused', () => {
    for (const v of [
      '2026-03-01T24:00:00Z',
      '2026-03-01T12:60:00Z',
      '2026-03-01T12:00:60Z',
      '2026-03-01T99:99Z',
    ])
      expect(read(v), v).toBe('refused: DateTime must have hours 00–23, minutes 00–59 and seconds 00–59');
    for (const v of ['2026-03-01T12:00:00+24:00', '2026-03-01T12:00:00-05:60'])
      expect(read(v), v).toBe('refused: DateTime must have an offset from -23:59 to +23:59');
  });

  test('anything before or after the date-time is refused', () => {
    const shape = 'refused: DateTime must be an ISO 8601 date-time, such as 2026-03-01T12:00:00.000Z';
    for (const v of [
      '2026-03-01T12:00:00Z\u0000',
      '2026-03-01\u0000',
      '2026-03-01T12:00:00Zjunk',
      '2026-03-01junk',
      ' 2026-03-01T12:00:00Z',
      '2026-03-01T12:00:00Z ',
      '2026-03-01T12:00:00Z\n',
      '2026-03-01T12:00:00.Z',
      '2026-03-01T12:00:00.1234567890Z',
      '2026-03-01T12Z',
      '2026-03-01T12:00:00+0200',
      '2026-03-01T12:00:00+02',
      '+275760-09-13T00:00:00.000Z',
      '-000001-01-01T00:00:00Z',
      '26-03-01',
      '2026-3-1',
      '２０２６-03-01',
      'March 1, 2026',
      '1772366400000',
      '',
    ])
      expect(read(v), JSON.stringify(v)).toBe(shape);
    for (const v of [1772366400000, null, true, {}, ['2026-03-01']])
      expect(read(v), JSON.stringify(v)).toBe(shape);
    expect(() => DateTimeScalar.parseLiteral({ kind: Kind.INT, value: '1772366400000' })).toThrow(/ISO 8601/);
  });
});
