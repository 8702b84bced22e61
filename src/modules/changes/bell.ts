import { type Kysely, sql } from 'kysely';
import { rootHandle } from '../../db/database.js';
import type { DB } from '../../db/types.js';

/** The NOTIFY channel that tells every process an organization's change log has grown. */
export const CHANGES_CHANNEL = 'sdg_changes';

const pending = new WeakMap<Kysely<DB>, Set<string>>();

/**
 * Rings the doorbell for an organization after a write committed: `pg_notify(sdg_changes, org)`,
 * coalesced per database handle so a burst of writes sends one notification per org per tick.
 * It carries no data: listeners read the change log from their own position, so a lost ring
 * (a crash right after commit, a listener reconnecting) delays events until the next poll but
 * loses none. Not inside the write's transaction: NOTIFY takes a database-wide lock at commit,
 * which would serialize every writer.
 */
export function ringChanges(db: Kysely<DB>, orgId: string): void {
  const root = rootHandle(db);
  if (root.isTransaction) return;
  let orgs = pending.get(root);
  if (!orgs) {
    orgs = new Set();
    pending.set(root, orgs);
    const flush = orgs;
    setTimeout(() => {
      pending.delete(root);
      sql`select pg_notify(${CHANGES_CHANNEL}, o) from unnest(${[...flush]}::text[]) o`
        .execute(root)
        .catch(() => {});
    }, 5).unref();
  }
  orgs.add(orgId);
}
