import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root, whether running from src/ (tsx, vitest) or from dist/src/. */
export const PACKAGE_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'schema.graphql'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the package root (schema.graphql)');
    dir = up;
  }
  return dir;
})();
