import { describe, expect, test } from 'vitest';
import {
  DEFAULT_PAGE_SIZE,
  forwardConnection,
  forwardSize,
  MAX_PAGE_SIZE,
  pageWindow,
} from '../../src/pagination/connection.js';

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

describe('forward-only lists (history, the change feed, the delivery log)', () => {
  const cursorOf = (n: number) => `c${n}`;

  test('a page read one row past its size has a next page; its cursors are its own rows', () => {
    const page = forwardConnection([1, 2, 3], 2, 'c0', cursorOf);
    expect(page.edges).toEqual([
      { cursor: 'c1', node: 1 },
      { cursor: 'c2', node: 2 },
    ]);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: 'c1',
      endCursor: 'c2',
    });
  });

  test('an empty page keeps the cursor it was given, so a sync polls again from there', () => {
    expect(forwardConnection([], 10, 'c9', cursorOf).pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: null,
      endCursor: 'c9',
    });
    expect(forwardConnection([], 10, null, cursorOf).pageInfo.endCursor).toBeNull();
  });

  test('sizes: the default, zero, and the same refusals as first', () => {
    expect(forwardSize(undefined)).toBe(DEFAULT_PAGE_SIZE);
    expect(forwardSize(0)).toBe(0);
    expect(forwardSize(MAX_PAGE_SIZE)).toBe(MAX_PAGE_SIZE);
    for (const bad of [-1, MAX_PAGE_SIZE + 1, 1.5])
      expect(() => forwardSize(bad)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
