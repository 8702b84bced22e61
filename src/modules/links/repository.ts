import { type Kysely, sql } from 'kysely';
import { inTransaction } from '../../db/transaction.js';
import type { DB, RecordKind } from '../../db/types.js';
import { isForeignKeyViolation } from '../../errors.js';
import { type Actor, type LogEntry, lockRecords, writeLogged } from '../changes/index.js';
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

/** The change-log entries of a link or unlink: one on each record, naming the other. */
const linkEntries = (
  op: 'link' | 'unlink',
  portfolioId: string,
  a: [RecordKind, string],
  b: [RecordKind, string],
): LogEntry[] => [
  { kind: a[0], recordId: a[1], op, relatedId: b[1], portfolioId },
  { kind: b[0], recordId: b[1], op, relatedId: a[1], portfolioId },
];

const contactEntries = (table: ContactLinkTable, k: LinkKey, op: 'link' | 'unlink') =>
  linkEntries(op, k.portfolioId, [PARENT_KIND[table], k.parentId], ['contact', k.contactId]);

/**
 * Links a contact; an existing link is left as it is (idempotent, never a second row, no log
 * entry). The foreign keys include the portfolio, so a link across portfolios, or to a record
 * deleted meanwhile, fails in the database: false then, true when the pair is linked. A new link
 * is logged on both records.
 */
export async function link(
  db: Kysely<DB>,
  table: ContactLinkTable,
  k: LinkKey,
  actor: Actor,
): Promise<boolean> {
  try {
    await writeLogged(db, {
      orgId: k.orgId,
      actor,
      lock: [k.parentId, k.contactId],
      write: (locked) => sql<{ org_id: string }>`
        insert into ${sql.table(table)} (org_id, portfolio_id, ${sql.ref(PARENT_COL[table])}, contact_id)
        ${locked.values(sql`${k.orgId}, ${k.portfolioId}, ${k.parentId}, ${k.contactId}`)}
        on conflict do nothing returning org_id`,
      entries: contactEntries(table, k, 'link'),
    });
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
  const rows = await writeLogged(db, {
    orgId: k.orgId,
    actor,
    lock: [k.parentId, k.contactId],
    write: (locked) => sql<{ org_id: string }>`
      delete from ${sql.table(table)}
      where org_id = ${k.orgId} and ${sql.ref(PARENT_COL[table])} = ${k.parentId} and contact_id = ${k.contactId}
        and ${locked.ok}
      returning org_id`,
    entries: contactEntries(table, k, 'unlink'),
  });
  return rows.length > 0;
}

/**
 * Links parcels to a project (import path) and recomputes the project's location. Call it inside a
 * transaction: the project row is locked first (FOR NO KEY UPDATE, which contact links' foreign-key
 * checks do not wait for), so concurrent imports into one project take turns, and each recomputation
 * sees the parcels every earlier import committed. Without the lock, two imports each computed the
 * centroid of the old parcels plus their own, and the last commit dropped the other's parcels.
 * Each new link is logged on both records; a parcel already linked (a re-import by external id)
 * is left as it is and logs nothing.
 */
export async function linkParcelsToProject(
  db: Kysely<DB>,
  k: { orgId: string; portfolioId: string; projectId: string },
  parcelIds: string[],
  actor: Actor,
): Promise<void> {
  await db
    .selectFrom('projects')
    .select('id')
    .where('org_id', '=', k.orgId)
    .where('id', '=', k.projectId)
    .forNoKeyUpdate()
    .execute();
  for (let i = 0; i < parcelIds.length; i += 1000) {
    const ids = parcelIds.slice(i, i + 1000);
    const added = await db
      .insertInto('project_parcels')
      .values(
        ids.map((id) => ({
          org_id: k.orgId,
          portfolio_id: k.portfolioId,
          project_id: k.projectId,
          parcel_id: id,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning('parcel_id')
      .execute();
    await writeLogged(db, {
      orgId: k.orgId,
      actor,
      entries: added.flatMap((r) =>
        linkEntries('link', k.portfolioId, ['project', k.projectId], ['parcel', r.parcel_id]),
      ),
    });
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
    // `bounds` is the location as a box of one point, for spatial filters and tiles.
    .set({
      location: location ? JSON.stringify(location) : null,
      bounds: location ? `(${location.coordinates}),(${location.coordinates})` : null,
    })
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

/**
 * Links (or unlinks) many contact pairs of one portfolio in one transaction: the records' locks
 * (as a single link takes them, so each record's log entries keep its commit order), one INSERT …
 * ON CONFLICT DO NOTHING (or one DELETE) for every pair, and the log entries of the pairs it
 * changed, both sides each. A pair already so is left alone and logs nothing. Returns the changed
 * pairs as `parentId|contactId`. The caller has checked that every record is in the portfolio.
 */
export async function setContactLinks(
  db: Kysely<DB>,
  table: ContactLinkTable,
  k: { orgId: string; portfolioId: string },
  pairs: readonly [string, string][],
  actor: Actor,
  linked: boolean,
): Promise<Set<string>> {
  if (!pairs.length) return new Set();
  const parentCol = sql.ref(PARENT_COL[table]);
  return inTransaction(db, async (tx) => {
    await lockRecords(tx, k.orgId, [...new Set(pairs.flat())]);
    const { rows } = linked
      ? await sql<{ parent_id: string; contact_id: string }>`
          insert into ${sql.table(table)} (org_id, portfolio_id, ${parentCol}, contact_id)
          values ${sql.join(pairs.map(([a, b]) => sql`(${k.orgId}, ${k.portfolioId}, ${a}, ${b})`))}
          on conflict do nothing returning ${parentCol} as parent_id, contact_id`.execute(tx)
      : await sql<{ parent_id: string; contact_id: string }>`
          delete from ${sql.table(table)}
          where org_id = ${k.orgId} and (${parentCol}, contact_id) in (${sql.join(pairs.map(([a, b]) => sql`(${a}, ${b})`))})
          returning ${parentCol} as parent_id, contact_id`.execute(tx);
    const op = linked ? 'link' : 'unlink';
    await writeLogged(tx, {
      orgId: k.orgId,
      actor,
      entries: rows.flatMap((r) =>
        contactEntries(table, { ...k, parentId: r.parent_id, contactId: r.contact_id }, op),
      ),
    });
    return new Set(rows.map((r) => `${r.parent_id}|${r.contact_id}`));
  });
}
