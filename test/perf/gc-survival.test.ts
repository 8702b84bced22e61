import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { backend, createScratchDatabase, seededSnapshot } from '../helpers/database.js';

/**
 * Finished requests leave nothing for V8's young-generation collector to keep. Four things did: the
 * async admission hook's `ctx.admit` closure (src/http/admission.ts), pg's promise form with its
 * query_timeout (src/db/database.ts), for /graphql Apollo's gateway hook
 * (src/graphql/apollo-executor.ts), and the old context of a request that waited for its admission
 * slot (src/graphql/executor.ts, admittedContext). Each kept every request's rows, records and answer alive
 * through the young collections that followed, so V8 copied them and then promoted them to the old
 * generation: on the bench's REST page about 30% of the gateway's Node CPU, half its gap to the floor.
 *
 * The measuring runs in its own process, started with --expose-gc (test/perf/gc-survival-child.ts):
 * ten REST pages over a real socket (or ten GraphQL pages, or ten reads of 1000 rows), then one
 * young collection. Before
 * the fixes, 1.4–1.5 MB of the ten pages stayed on either database, and 560 KB (PGlite) or 4.3 MB
 * (Postgres) of the ten reads; with either fix alone, the pages still left 1.2–1.4 MB.
 */
const snapshot = seededSnapshot();

test.skipIf(!snapshot)(
  'ten finished REST pages, GraphQL pages or reads do not build up in the young generation',
  { timeout: 120_000 },
  async () => {
    const { seeded, demo } = snapshot!;
    const scratch =
      backend === 'postgres' ? await createScratchDatabase(process.env.DATABASE_URL!, seeded) : undefined;
    try {
      const args = {
        ...(scratch ? { url: scratch.url } : { dump: seeded }),
        apiKey: demo.users.alice.apiKey,
        orgId: demo.orgs.A.id,
        portfolioId: demo.orgs.A.portfolios.A1,
      };
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', 'test/perf/gc-survival-child.ts', JSON.stringify(args)],
        { cwd: PACKAGE_ROOT, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } },
      );
      expect(child.status, child.stderr).toBe(0);
      const kept = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
        pageBytes: number;
        graphqlBytes: number;
        page: { once: number; tenTimes: number };
        graphql: { once: number; tenTimes: number };
        rows: { once: number; tenTimes: number };
        nestedBytes: number;
        nested: { once: number; waitedEight: number };
      };
      // A 100-item page builds several times its JSON in objects (rows, records, the answer). Before
      // the fixes the ten pages left 1.4 MB on either database (50 times the JSON); now about one
      // page's objects stays, the last one's (150–200 KB).
      expect(kept.pageBytes).toBeGreaterThan(20_000);
      expect(kept.page.tenTimes, JSON.stringify(kept)).toBeLessThan(10 * kept.pageBytes);
      // The same page through /graphql. Apollo's gateway hook, which ran the Executor until issue 18,
      // built accessors over each request's whole context, which kept it alive to young collections:
      // ten requests left 2 MB (each one's context and answer, 45 times the JSON) until the next full
      // collection. Through executorPlugin, about 100 KB.
      expect(kept.graphqlBytes).toBeGreaterThan(20_000);
      expect(kept.graphql.tenTimes, JSON.stringify(kept)).toBeLessThan(10 * kept.graphqlBytes);
      // One read of the 1000 rows makes about 330 KB of objects; before, ten left 4.3 MB (Postgres)
      // or 560 KB (PGlite), now 2–4 KB.
      expect(kept.rows.tenTimes, JSON.stringify(kept)).toBeLessThan(100_000);
      // Eight nested queries (330 KB answers) that waited for the large slot long enough for their
      // contexts to be promoted, then ran. Their contexts pointed at all they read, so 2.1 MB stayed
      // young on Postgres and 200–220 KB on PGlite; with a new context once admitted and the answer
      // handed back written (graphql/executor.ts, admittedContext), less than one query run alone leaves.
      expect(kept.nestedBytes).toBeGreaterThan(100_000);
      expect(kept.nested.waitedEight, JSON.stringify(kept)).toBeLessThan(kept.nestedBytes / 4);
    } finally {
      await scratch?.drop();
    }
  },
);
