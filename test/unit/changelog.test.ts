import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../helpers/markdown.js';

/** CHANGELOG.md follows Keep a Changelog, and package.json's version is its newest released section. */
describe('CHANGELOG.md', () => {
  const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
  const versions = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({
    version: m[1],
    date: m[2],
  }));

  test('starts with Unreleased, then released versions with dates, newest first', () => {
    expect(versions[0]).toEqual({ version: 'Unreleased', date: undefined });
    const released = versions.slice(1);
    expect(released.length).toBeGreaterThan(0);
    for (const r of released) {
      expect(r.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const key = (v: string) =>
      v
        .split('.')
        .map((n) => n.padStart(6, '0'))
        .join('.');
    const order = released.map((r) => key(r.version));
    expect(order).toEqual([...order].sort().reverse());
  });

  test("package.json's version is the newest released one", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.version).toBe(versions[1].version);
  });

  test('sections use only the Keep a Changelog kinds', () => {
    const kinds = [...changelog.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    for (const k of kinds)
      expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(k);
  });
});
