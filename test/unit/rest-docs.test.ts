import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { renderRestReference } from '../../src/openapi/markdown.js';
import { operationId } from '../../src/rest/names.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { ROOT } from '../helpers/markdown.js';

/** docs/rest-v1.md is what the route table renders (CI also runs `npm run docs:check`). */
describe('docs/rest-v1.md', () => {
  const committed = readFileSync(join(ROOT, 'docs', 'rest-v1.md'), 'utf8');

  test('equals what `npm run docs` writes from the route table', () => {
    expect(committed === renderRestReference(), 'docs/rest-v1.md is stale: run `npm run docs`').toBe(true);
  });

  test('has a section, an example and the operation id of every route', () => {
    for (const route of REST_ROUTES) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const section = committed.split(`\n### ${route.method} ${path}\n`)[1]?.split('\n### ')[0];
      expect(section, `${route.method} ${path}`).toBeDefined();
      expect(section).toContain(`\`${operationId(route)}\``);
      expect(section).toMatch(
        new RegExp(`\`\`\`sh\\n[^]*curl[^]*${route.method === 'GET' ? '' : `-X ${route.method}`}`),
      );
    }
  });

  test('a change to the route table changes the reference', () => {
    const doc = buildOpenApiDocument(REST_ROUTES.slice(1));
    expect(renderRestReference(doc)).not.toBe(committed);
    expect(renderRestReference(doc)).not.toContain('### GET /organizations/v1');
  });
});
