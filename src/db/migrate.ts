import { type Kysely, Migrator, sql } from 'kysely';
import { migrationProvider } from '../../migrations/index.js';

/**
 * Applies every pending migration; throws with the failing migration's name. On a database with the
 * citus extension (or with `citus: true`, which creates it) each migration distributes its tables
 * (src/db/citus.ts). Distribute a fresh database: tables made before the extension stay local.
 */
export async function migrateToLatest(db: Kysely<any>, opts: { citus?: boolean } = {}): Promise<string[]> {
  if (opts.citus) await sql`create extension if not exists citus`.execute(db);
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const msg = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${msg}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
