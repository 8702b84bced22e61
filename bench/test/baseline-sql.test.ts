import {
  DummyDriver,
  Kysely,
  type LogEvent,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import { expect, test } from 'vitest';
import type { DB } from '../../src/db/types.js';
import { findViewerByHash } from '../../src/modules/auth/index.js';
import { listOrgUsers, listPortfolios } from '../../src/modules/org/index.js';
import { type PageRequest, pagesFor } from '../../src/modules/records/index.js';
import { schemasByKeys } from '../../src/modules/schema/index.js';
import {
  AUTH_SQL,
  LIST,
  ORG_USERS_SQL,
  PORTFOLIOS_SQL,
  pagesSql,
  SCHEMA_SQL,
  STAMP_SQL,
} from '../baseline-sql.js';

/**
 * The raw floor (bench/baseline.ts) is a floor only while it sends the statements the gateway
 * sends. These are the gateway's repositories, compiled by Kysely against no database, with the
 * rows a warm bench request reads; each text must equal the floor's, whitespace aside.
 */
class Recording extends DummyDriver {
  constructor(private readonly rows: (sql: string) => unknown[]) {
    super();
  }
  override async acquireConnection() {
    const rows = this.rows;
    return {
      async executeQuery<R>(q: { sql: string }): Promise<QueryResult<R>> {
        return { rows: rows(q.sql) as R[] };
      },
      async *streamQuery() {},
    };
  }
}

function capture(rows: (sql: string) => unknown[] = () => []) {
  const sent: string[] = [];
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new Recording(rows),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (e: LogEvent) => void sent.push(e.query.sql),
  });
  return { db, sent };
}

const same = (text: string) => text.replace(/\s+/g, ' ').trim();

test('the key lookup, and the stamp a minute-old key gets', async () => {
  const { db, sent } = capture((q) =>
    q.includes('key_hash') ? [{ key_id: 'k', stale: true, roles: [], guest: [], versions: {} }] : [],
  );
  await findViewerByHash(db, 'hash');
  expect(sent.map(same)).toEqual([same(AUTH_SQL), same(STAMP_SQL)]);
});

test("an org's portfolios, users and property schemas (what the process cache fills from)", async () => {
  const { db, sent } = capture();
  await listPortfolios(db, 'org');
  await listOrgUsers(db, 'org');
  await schemasByKeys(db, [{ orgId: 'org', kind: 'project' }]);
  expect(sent.map(same)).toEqual([same(PORTFOLIOS_SQL), same(ORG_USERS_SQL), same(SCHEMA_SQL(1))]);
});

test.each(['portfolio-projects', 'project-contacts', 'contact-parcels'] as const)(
  'the plain page of %s',
  async (list) => {
    const { db, sent } = capture();
    const req: PageRequest = { list, orgId: 'org', parentId: 'p', limit: 101, direction: 'forward' };
    await pagesFor(db, [req]);
    expect(sent.map(same)).toEqual([same(pagesSql(LIST[list]))]);
  },
);
