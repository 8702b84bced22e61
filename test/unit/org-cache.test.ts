import { describe, expect, test } from 'vitest';
import { OrgCache } from '../../src/db/org-cache.js';

describe('the per-organization cache', () => {
  test('entries are per org version: a new version is a miss, an unknown version is never cached', async () => {
    const cache = new OrgCache();
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('org_1', 1, 'users', load)).toBe(1);
    expect(await cache.get('org_1', 1, 'users', load)).toBe(1);
    expect(await cache.get('org_1', 2, 'users', load)).toBe(2);
    expect(await cache.get('org_1', undefined, 'users', load)).toBe(3);
    expect(await cache.get('org_1', undefined, 'users', load)).toBe(4);
    cache.put('org_1', undefined, 'schema', 'x');
    expect(cache.peek('org_1', undefined, 'schema')).toBeUndefined();
  });

  test('the least recently used entry goes first when full', () => {
    const cache = new OrgCache(2);
    cache.put('a', 1, 'w', 'A');
    cache.put('b', 1, 'w', 'B');
    expect(cache.peek('a', 1, 'w')).toBe('A'); // a is now the most recent
    cache.put('c', 1, 'w', 'C');
    expect(cache.peek('b', 1, 'w')).toBeUndefined();
    expect(cache.peek('a', 1, 'w')).toBe('A');
    expect(cache.peek('c', 1, 'w')).toBe('C');
  });
});
