import type { FastifyInstance } from 'fastify';
import { test as base } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import type { DemoOutput } from '../../src/seed/demo.js';
import { openSeededDatabase } from './database.js';
import { type Client, client } from './http.js';

export interface TestEnv {
  app: FastifyInstance;
  database: Database;
  demo: DemoOutput;
  /** Clients authenticated as each demo user, plus `anon` with no key. */
  as: Record<keyof DemoOutput['users'], Client> & { anon: Client };
}

/**
 * One seeded database and app per test file (a file-scoped fixture). Tests that write create their
 * own records, so the demo data the other tests read stays as seeded.
 */
export const test = base.extend<{ $file: { env: TestEnv } }>({
  env: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest fixtures take their dependencies by destructuring
    async ({}, use) => {
      const { database, demo } = await openSeededDatabase();
      const app = await buildApp({ database, exposeStatementCount: true });
      const as = Object.fromEntries(
        Object.entries(demo.users).map(([h, u]) => [h, client(app, u.apiKey)]),
      ) as TestEnv['as'];
      as.anon = client(app);
      await use({ app, database, demo, as });
      await app.close();
      await database.close();
    },
    { scope: 'file' },
  ],
});

export { describe, expect } from 'vitest';
