import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

/**
 * src/db/tenant-guard.ts: a statement that spans tenants on purpose carries the CROSS_TENANT marker
 * and is listed in docs/scaling.md ("Which queries are not single-shard"), where an operator of a
 * Citus cluster reads what each one costs. Each marked statement is named there by its function.
 */
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** The functions whose body uses the marker, by the nearest function declared above each use. */
function markedFunctions(): string[] {
  const names: string[] = [];
  for (const file of files('src')) {
    if (file.endsWith('tenant-guard.ts')) continue;
    let current = '';
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const declared = /function\s+([A-Za-z0-9_]+)/.exec(line);
      if (declared) current = declared[1];
      if (line.includes('sql.raw(CROSS_TENANT)')) names.push(current);
    }
  }
  return [...new Set(names)].sort();
}

test('every statement marked cross-tenant is named in docs/scaling.md', () => {
  const marked = markedFunctions();
  expect(marked.length).toBeGreaterThan(5);
  const doc = readFileSync('docs/scaling.md', 'utf8');
  expect(marked.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
});
