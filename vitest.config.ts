import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // graphql 16 ships CJS (main) and ESM (module). Node gives dependencies the CJS build; make our own
  // imports resolve to the same file, or graphql sees two copies of itself.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two cores: two test files at a time, each with its own database.
    maxWorkers: 2,
    // Generous: the file-scoped fixture seeds inside the first test, and CI machines can be busy.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
