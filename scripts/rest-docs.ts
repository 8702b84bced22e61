// Writes docs/rest-v1.md from the route table (`npm run docs`), or with --check fails when the
// committed file differs from what the code would write (`npm run docs:check`, run by CI).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderRestReference } from '../src/openapi/markdown.js';
import { PACKAGE_ROOT } from '../src/paths.js';

const file = join(PACKAGE_ROOT, 'docs', 'rest-v1.md');
const fresh = renderRestReference();
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {}
  if (committed !== fresh) {
    console.error(
      'docs/rest-v1.md is out of date with src/rest/routes.ts: run `npm run docs` and commit it.',
    );
    process.exit(1);
  }
  console.log('docs/rest-v1.md is up to date.');
} else {
  writeFileSync(file, fresh);
  console.log(`wrote ${file}`);
}
