import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/setup/sequencer.js';

const require = createRequire(import.meta.url);

export default defineConfig({
  // graphql 16 ships CJS (main) and ESM (module). Node gives dependencies the CJS build; make our own
  // imports resolve to the same file, or graphql sees two copies of itself.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    pool: 'forks',
    // Two cores: two test files at a time, each with its own database.
    maxWorkers: 2,
    // A worker runs its files one after another in one module graph instead of loading the app
    // (graphql, Apollo, Kysely, PGlite) again for each file: 40% less CPU for the suite. Test files
    // share no state through modules: each opens its own database and builds its own app.
    isolate: false,
    // Files known to take long start first, so that none of them is left running alone at the end.
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        // Pure logic: no database, no process started. `npm run test:unit`.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', 'bench/test/**/*.test.ts'],
          exclude: ['test/unit/**', 'test/perf/**', 'test/**/*.isolated.test.ts'],
          // One migrated and one seeded database per run; every file starts from a copy. The
          // gateway compiled once, for the tests that start it as a process.
          globalSetup: ['test/setup/snapshots.ts', 'test/setup/server-build.ts'],
          // Generous: the file-scoped fixture seeds inside the first test, and CI machines can be busy.
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          // Files that replace one of our modules (vi.mock) get a module graph of their own: in the
          // shared graph of the integration project, the app would already hold the real module.
          // No global setup of its own: the integration project's (when it is in the run) provides
          // its snapshots to this project too; run alone, the files here migrate and seed their own.
          name: 'isolated',
          include: ['test/**/*.isolated.test.ts'],
          isolate: true,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          // What V8 does with the gateway's garbage and its heap settings: child processes measured
          // against V8's own heuristics, which change between Node versions and wobble on a busy
          // machine. Not in `npm test`; `npm run test:perf`, a step of its own in CI.
          name: 'perf',
          include: ['test/perf/**/*.test.ts'],
          globalSetup: ['test/setup/snapshots.ts'],
          // One file at a time: a second file's processes would take the CPU the measured ones need.
          fileParallelism: false,
          // After the other projects, alone: vitest refuses to run projects with different worker
          // counts in one group, which a file list that names a perf test beside others would do.
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
