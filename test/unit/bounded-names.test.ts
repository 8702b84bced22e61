import { describe, expect, test } from 'vitest';
import { BoundedNames, OTHER } from '../../src/observability/names.js';

/**
 * Operation-name label slots are shared fairly: one organization inventing operation names takes at
 * most its share of them, and every other organization's operations keep their own labels.
 */
describe('BoundedNames shares its slots fairly across organizations', () => {
  test('one org sending made-up names fills only its share; the others still get labels', () => {
    const names = new BoundedNames(100, 10);
    const flood = Array.from({ length: 1_000 }, (_, i) => names.label(`Made_up_${i}`, 'org-attacker'));
    expect(flood.filter((l) => l !== OTHER)).toHaveLength(10);
    expect(flood.slice(10).every((l) => l === OTHER)).toBe(true);
    // Ninety slots are left for the others.
    for (let org = 0; org < 9; org++)
      for (let i = 0; i < 10; i++) expect(names.label(`Op${org}_${i}`, `org-${org}`)).toBe(`Op${org}_${i}`);
    // All slots are taken now, by ten orgs' fair shares.
    expect(names.label('Late', 'org-late')).toBe(OTHER);
  });

  test('the default share is a tenth of the slots', () => {
    const names = new BoundedNames();
    const labels = Array.from({ length: 200 }, (_, i) => names.label(`Q${i}`, 'org-a'));
    expect(labels.filter((l) => l !== OTHER)).toHaveLength(10);
    expect(names.label('Mine', 'org-b')).toBe('Mine');
  });

  test('a name claimed already keeps its label for every org, whatever their share', () => {
    const names = new BoundedNames(100, 2);
    expect(names.label('ProjectsPage', 'org-a')).toBe('ProjectsPage');
    expect(names.label('Other1', 'org-b')).toBe('Other1');
    expect(names.label('Other2', 'org-b')).toBe('Other2');
    expect(names.label('Other3', 'org-b')).toBe(OTHER);
    // org-b's share is spent, but a name org-a claimed is shared, and it costs org-b nothing.
    expect(names.label('ProjectsPage', 'org-b')).toBe('ProjectsPage');
    expect(names.label('Other1', 'org-a')).toBe('Other1');
  });

  test('a key of several orgs claims as that set, in any order, and spends none of its orgs’ own shares', () => {
    const names = new BoundedNames(100, 2);
    expect(names.label('X1', ['org-b', 'org-a'])).toBe('X1');
    expect(names.label('X2', ['org-a', 'org-b'])).toBe('X2');
    expect(names.label('X3', ['org-a', 'org-b'])).toBe(OTHER);
    expect(names.label('A1', 'org-a')).toBe('A1');
    expect(names.label('A2', ['org-a'])).toBe('A2');
    expect(names.label('A3', 'org-a')).toBe(OTHER);
    expect(names.label('B1', 'org-b')).toBe('B1');
  });

  test('the anonymous label and odd names take no slot', () => {
    const names = new BoundedNames(100, 1);
    expect(names.label(undefined, 'org-a')).toBe('(anonymous)');
    expect(names.label('', 'org-a')).toBe('(anonymous)');
    expect(names.label('a"b', 'org-a')).toBe(OTHER);
    expect(names.label('x'.repeat(65), 'org-a')).toBe(OTHER);
    expect(names.label('Real', 'org-a')).toBe('Real');
  });

  test('the claims of each org are bounded by the slots, not by the orgs that ever asked', () => {
    const names = new BoundedNames(5, 1);
    for (let i = 0; i < 10_000; i++) names.label(`N${i}`, `org-${i}`);
    expect((names as unknown as { claimed: Map<string, number> }).claimed.size).toBe(5);
  });

  test('without an org, only the overall bound applies, as before', () => {
    const names = new BoundedNames(2, 1);
    expect(names.label('A')).toBe('A');
    expect(names.label('B')).toBe('B');
    expect(names.label('C')).toBe(OTHER);
  });
});
