import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
} from 'kysely';
import type { DB } from '../../src/db/types.js';

/** A Kysely that compiles Postgres SQL and runs nothing: unit tests read the SQL text it makes. */
export const offline = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** The SQL text and parameters of a fragment. */
export function compiled(fragment: RawBuilder<unknown>): { sql: string; parameters: readonly unknown[] } {
  const q = fragment.compile(offline);
  return { sql: q.sql.replace(/\s+/g, ' ').trim(), parameters: q.parameters };
}
