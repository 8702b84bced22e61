import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import type { Context } from '../src/context.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { DB } from '../src/db/types.js';
import { createOrg, createPortfolio } from '../src/modules/org/repository.js';
import { compileListQuery } from '../src/modules/records/filter.js';
import { bulkInsertRecords, pagesFor } from '../src/modules/records/repository.js';
import { schemasByKeys } from '../src/modules/schema/repository.js';
import { installDefaultProperties } from '../src/modules/schema/service.js';
import { emptyCluster } from './helpers/database.js';

/**
 * Without pg_trgm (a PGlite started without the extension, or a Postgres that lacks it), the
 * migration skips the trigram index and search still works, as a plain ILIKE.
 */
describe('search without pg_trgm', () => {
  test('migrates without the trigram index, and search still finds records', async () => {
    const pglite = await PGlite.create(emptyCluster());
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ ...createPgConfig(pglite), max: 1 }) }),
    });
    try {
      await migrateToLatest(db);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_indexes where indexname like '%_search_trgm'`.execute(db);
      expect(rows[0].n).toBe(0);
      const org = await createOrg(db, 'No trigram');
      await installDefaultProperties(db, org.id);
      const pf = await createPortfolio(db, org.id, 'P');
      const [hal] = await bulkInsertRecords(db, 'project', org.id, pf.id, [
        { properties: { name: { text: 'Halvorsen' } } },
        { properties: { name: { text: 'Other' } } },
      ]);
      const [schema] = await schemasByKeys(db, [{ orgId: org.id, kind: 'project' }]);
      const ctx = {
        viewer: { userId: 'usr_x' },
        loaders: { schema: { load: async () => schema }, isOrgUser: { load: async () => true } },
      } as unknown as Context;
      const query = await compileListQuery(ctx, 'project', org.id, { search: 'HALV' });
      const [page] = await pagesFor(db, [
        {
          list: 'portfolio-projects',
          orgId: org.id,
          parentId: pf.id,
          limit: 10,
          direction: 'forward',
          query,
        },
      ]);
      expect(page.map((r) => r.record.id)).toEqual([hal]);
    } finally {
      await db.destroy();
      await pglite.close();
    }
  });
});
