import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../helpers/markdown.js';

/** SECURITY.md keeps its promises checkable: a reporting route, and a proving test for every limit. */
describe('SECURITY.md', () => {
  const policy = readFileSync(join(ROOT, 'SECURITY.md'), 'utf8');
  const section = (title: string) => policy.split(`\n## ${title}\n`)[1]?.split('\n## ')[0] ?? '';

  test('names a private reporting route, supported versions and scope, and no placeholder address', () => {
    expect(section('Reporting a vulnerability')).toMatch(/Report a vulnerability/);
    expect(section('Supported versions')).toMatch(/\|/);
    expect(section('Scope')).toMatch(/Out of scope/);
    expect(policy).not.toMatch(/@[\w.-]+\.example\b/);
  });

  test('every limit links to at least one test file (the link check proves the files exist)', () => {
    const rows = section('Limits and their defaults')
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| limit ') && !l.startsWith('|---'));
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) expect(row, row.slice(0, 60)).toMatch(/\]\(test\/[\w/.-]+\.test\.ts\)/);
  });

  test('the supported version is the version in package.json', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const minor = version.split('.').slice(0, 2).join('.');
    expect(section('Supported versions')).toContain(`| ${minor}.x `);
  });
});
