import { type Kysely, sql } from 'kysely';
import { writesOnCitus } from '../../db/citus.js';
import type { DB } from '../../db/types.js';
import { isForeignKeyViolation } from '../../errors.js';
import {
  type Actor,
  actorValues,
  insertEntries,
  lockRecords,
  logColumns,
  recordLocks,
} from '../changes/index.js';
import { areaWeightedCentroid } from '../records/index.js';

export type ContactLinkTable = 'project_contacts' | 'parcel_contacts';
const PARENT_COL = { project_contacts: 'project_id', parcel_contacts: 'parcel_id' } as const;
const PARENT_KIND = { project_contacts: 'project', parcel_contacts: 'parcel' } as const;

export interface LinkKey {
  orgId: string;
  portfolioId: string;
  parentId: string;
  contactId: string;
}

/** The change-log rows of a contact link: one on each side, naming the other. */
const linkSides = (table: ContactLinkTable, k: LinkKey) =>
  sql`(values (${PARENT_KIND[table]}::text, ${k.parentId}::text, ${k.contactId}::text), ('contact', ${k.contactId}, ${k.parentId})) s(kind, rid, other)`;

/** linkSides as constants: one entry on each record, naming the other (the Citus form). */
const linkEntries = (table: ContactLinkTable, k: LinkKey, op: 'link' | 'unlink') => [
  {
    orgId: k.orgId,
    portfolioId: k.portfolioId,
    kind: PARENT_KIND[table],
    recordId: k.parentId,
    op,
    relatedId: k.contactId,
    changes: {},
  },
  {
    orgId: k.orgId,
    portfolioId: k.portfolioId,
    kind: 'contact' as const,
    recordId: k.contactId,
    op,
    relatedId: k.parentId,
    changes: {},
  },
];

/**
 * Links a contact; an existing link is left as it is (idempotent, never a second row, no log
 * entry). The foreign keys include the portfolio, so a link across portfolios, or to a record
 * deleted meanwhile, fails in the database: false then, true when the pair is linked. A new link
 * is logged on both records in the same statement.
 */
export async function link(
  db: Kysely<DB>,
  table: ContactLinkTable,
  k: LinkKey,
  actor: Actor,
): Promise<boolean> {
  try {
    if (await writesOnCitus()) {
      await lockRecords(db, k.orgId, [k.parentId, k.contactId]);
      const { rows } = await sql`
        insert into ${sql.table(table)} (org_id, portfolio_id, ${sql.ref(PARENT_COL[table])}, contact_id)
        values (${k.orgId}, ${k.portfolioId}, ${k.parentId}, ${k.contactId})
        on conflict do nothing returning org_id`.execute(db);
      if (rows.length) await insertEntries(db, linkEntries(table, k, 'link'), actor);
      return true;
    }
    await sql`
      with lk as (${recordLocks(k.orgId, [k.parentId, k.contactId])}), ins as (
        insert into ${sql.table(table)} (org_id, portfolio_id, ${sql.ref(PARENT_COL[table])}, contact_id)
        select ${k.orgId}, ${k.portfolioId}, ${k.parentId}, ${k.contactId} from lk where lk.ok
        on conflict do nothing
        returning org_id, portfolio_id
      ), log as (
        insert into change_log (${logColumns})
        select ins.org_id, ins.portfolio_id, s.kind, s.rid, 'link', s.other, '{}'::jsonb, ${actorValues(actor)}
        from ins cross join ${linkSides(table, k)} where ins.org_id = ${k.orgId}
      )
      select 1`.execute(db);
    return true;
  } catch (err) {
    if (isForeignKeyViolation(err)) return false;
    throw err;
  }
}

/** Removes the link only (logged on both records); unlinking an unlinked pair is a no-op. */
export async function unlink(
  db: Kysely<DB>,
  table: ContactLinkTable,
  k: LinkKey,
  actor: Actor,
): Promise<boolean> {
  if (await writesOnCitus()) {
    await lockRecords(db, k.orgId, [k.parentId, k.contactId]);
    const { rows } = await sql`
      delete from ${sql.table(table)}
      where org_id = ${k.orgId} and ${sql.ref(PARENT_COL[table])} = ${k.parentId} and contact_id = ${k.contactId}
      returning org_id`.execute(db);
    if (rows.length) await insertEntries(db, linkEntries(table, k, 'unlink'), actor);
    return rows.length > 0;
  }
  const { rows } = await sql`
    with lk as (${recordLocks(k.orgId, [k.parentId, k.contactId])}), del as (
      delete from ${sql.table(table)} l using lk
      where l.org_id = ${k.orgId} and l.${sql.ref(PARENT_COL[table])} = ${k.parentId} and l.contact_id = ${k.contactId} and lk.ok
      returning l.org_id, l.portfolio_id
    ), log as (
      insert into change_log (${logColumns})
      select del.org_id, del.portfolio_id, s.kind, s.rid, 'unlink', s.other, '{}'::jsonb, ${actorValues(actor)}
      from del cross join ${linkSides(table, k)} where del.org_id = ${k.orgId}
    )
    select 1 from del`.execute(db);
  return rows.length > 0;
}

/**
 * Links parcels to a project (import path) and recomputes the project's location. Call it inside a
 * transaction: the project row is locked first (FOR NO KEY UPDATE, which contact links' foreign-key
 * checks do not wait for), so concurrent imports into one project take turns, and each recomputation
 * sees the parcels every earlier import committed. Without the lock, two imports each computed the
 * centroid of the old parcels plus their own, and the last commit dropped the other's parcels.
 */
export async function linkParcelsToProject(
  db: Kysely<DB>,
  k: { orgId: string; portfolioId: string; projectId: string },
  parcelIds: string[],
): Promise<void> {
  await db
    .selectFrom('projects')
    .select('id')
    .where('org_id', '=', k.orgId)
    .where('id', '=', k.projectId)
    .forNoKeyUpdate()
    .execute();
  if (parcelIds.length) {
    await db
      .insertInto('project_parcels')
      .values(
        parcelIds.map((id) => ({
          org_id: k.orgId,
          portfolio_id: k.portfolioId,
          project_id: k.projectId,
          parcel_id: id,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  await recomputeProjectLocation(db, k.orgId, k.projectId);
}

/** Sets `projects.location` to the area-weighted centroid of the linked parcels (null without parcels). */
export async function recomputeProjectLocation(
  db: Kysely<DB>,
  orgId: string,
  projectId: string,
): Promise<void> {
  const rows = await db
    .selectFrom('project_parcels as l')
    .innerJoin('parcels as p', (j) => j.onRef('p.org_id', '=', 'l.org_id').onRef('p.id', '=', 'l.parcel_id'))
    .select('p.geometry')
    .where('l.org_id', '=', orgId)
    .where('l.project_id', '=', projectId)
    .execute();
  const location = areaWeightedCentroid(rows.map((r) => r.geometry));
  await db
    .updateTable('projects')
    .set({ location: location ? JSON.stringify(location) : null })
    .where('org_id', '=', orgId)
    .where('id', '=', projectId)
    .execute();
}

export type LinkTable = 'project_contacts' | 'parcel_contacts' | 'project_parcels';
const COLS: Record<LinkTable, [string, string]> = {
  project_contacts: ['project_id', 'contact_id'],
  parcel_contacts: ['parcel_id', 'contact_id'],
  project_parcels: ['project_id', 'parcel_id'],
};

/** Inserts many links of one portfolio with multi-row INSERTs; duplicates are ignored. */
export async function bulkLink(
  db: Kysely<DB>,
  table: LinkTable,
  orgId: string,
  portfolioId: string,
  pairs: [string, string][],
  chunk = 2000,
): Promise<void> {
  const [a, b] = COLS[table];
  for (let i = 0; i < pairs.length; i += chunk) {
    const rows = pairs
      .slice(i, i + chunk)
      .map(([x, y]) => ({ org_id: orgId, portfolio_id: portfolioId, [a]: x, [b]: y }));
    await db
      .insertInto(table)
      .values(rows as never)
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}
