import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../helpers/markdown.js';

/**
 * The change log is written through one function (writeLogged, src/modules/changes): no other
 * code inserts into it, so what an entry holds and how a write and its entries stay atomic on each
 * engine are decided in one place (docs/scaling.md#the-change-log-on-citus).
 */
test('the only INSERT into change_log in src is the changes module writer', () => {
  const src = join(ROOT, 'src');
  const found: string[] = [];
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const hits =
      readFileSync(file, 'utf8').match(
        /insert\s+into\s+"?change_log\b|insertInto\(\s*['"]change_log['"]/gi,
      ) ?? [];
    for (const _ of hits) found.push(relative(ROOT, file));
  }
  expect(found).toEqual(['src/modules/changes/repository.ts']);
});
