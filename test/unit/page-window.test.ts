import { describe, expect, test } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageWindow } from '../../src/pagination/connection.js';

const problems = (args: Parameters<typeof pageWindow>[0]) => {
  try {
    pageWindow(args);
    return [];
  } catch (e) {
    return (e as { details: { field: string }[] }).details.map((d) => d.field);
  }
};

describe('page windows (Relay arguments)', () => {
  test('forward by default, backward with last or before', () => {
    expect(pageWindow({})).toEqual({ size: DEFAULT_PAGE_SIZE, direction: 'forward', cursor: undefined });
    expect(pageWindow({ first: 5, after: 'c' })).toEqual({ size: 5, direction: 'forward', cursor: 'c' });
    expect(pageWindow({ last: 3 })).toEqual({ size: 3, direction: 'backward', cursor: undefined });
    expect(pageWindow({ before: 'c' })).toEqual({
      size: DEFAULT_PAGE_SIZE,
      direction: 'backward',
      cursor: 'c',
    });
    expect(pageWindow({ first: 0 }).size).toBe(0);
    expect(pageWindow({ last: MAX_PAGE_SIZE }).size).toBe(MAX_PAGE_SIZE);
  });

  test('mixing directions, or sizes out of range, is refused with every problem named', () => {
    expect(problems({ first: 1, last: 1 })).toEqual(['first']);
    expect(problems({ after: 'a', before: 'b' })).toEqual(['after']);
    expect(problems({ first: 1, before: 'b' })).toEqual(['before']);
    expect(problems({ last: 1, after: 'a' })).toEqual(['after']);
    expect(problems({ first: -1 })).toEqual(['first']);
    expect(problems({ first: MAX_PAGE_SIZE + 1, last: 1.5 })).toEqual(['first', 'first', 'last']);
  });
});
