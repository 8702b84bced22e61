import { type Kysely, sql } from 'kysely';
import { bumpOrgVersion } from '../../db/org-cache.js';
import { CROSS_TENANT } from '../../db/tenant-guard.js';
import type { DB, OrgRole } from '../../db/types.js';
import { newId } from '../../ids.js';
import type { AccessRole } from '../auth/index.js';
import type { OrgModel, PortfolioModel, UserModel } from './types.js';

const toOrg = (r: { id: string; name: string; created_at: Date }): OrgModel => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
});
const toPortfolio = (r: { org_id: string; id: string; name: string; created_at: Date }): PortfolioModel => ({
  orgId: r.org_id,
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
});

export async function orgsByIds(db: Kysely<DB>, ids: readonly string[]): Promise<OrgModel[]> {
  if (!ids.length) return [];
  const rows = await db
    .selectFrom('organizations')
    .select(['id', 'name', 'created_at'])
    .where('id', 'in', ids)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toOrg);
}

/** Portfolios of one org, oldest first; `only` restricts them (guests). */
export async function listPortfolios(
  db: Kysely<DB>,
  orgId: string,
  only?: ReadonlySet<string>,
): Promise<PortfolioModel[]> {
  if (only && only.size === 0) return [];
  let q = db
    .selectFrom('portfolios')
    .select(['org_id', 'id', 'name', 'created_at'])
    .where('org_id', '=', orgId);
  if (only) q = q.where('id', 'in', [...only]);
  const rows = await q.orderBy('created_at').orderBy('id').execute();
  return rows.map(toPortfolio);
}

/** Portfolios by (org, id) pairs, for DataLoader. */
export async function portfoliosByKeys(db: Kysely<DB>, keys: readonly { orgId: string; id: string }[]) {
  if (!keys.length) return [];
  const rows = await db
    .selectFrom('portfolios')
    .select(['org_id', 'id', 'name', 'created_at'])
    .where('org_id', 'in', [...new Set(keys.map((k) => k.orgId))])
    .where(
      'id',
      'in',
      keys.map((k) => k.id),
    )
    .execute();
  return rows.map(toPortfolio);
}

/**
 * Members with their role, plus guests of any portfolio of the org (role 'guest', with the
 * portfolios they were granted, which decide who else may see them: service.ts visibleOrgUsers).
 */
export async function listOrgUsers(db: Kysely<DB>, orgId: string): Promise<UserModel[]> {
  const { rows } = await sql<{
    id: string;
    email: string;
    name: string;
    role: AccessRole;
    portfolio_ids: string[] | null;
  }>`
    select u.id, u.email, u.name, m.role, null::text[] as portfolio_ids
    from org_members m join users u on u.id = m.user_id
    where m.org_id = ${orgId}
    union all
    select u.id, u.email, u.name, 'guest', array_agg(g.portfolio_id order by g.portfolio_id)
    from portfolio_guests g join users u on u.id = g.user_id
    where g.org_id = ${orgId}
      and not exists (select 1 from org_members m2 where m2.org_id = ${orgId} and m2.user_id = g.user_id)
    group by u.id, u.email, u.name
    order by name, id`.execute(db);
  return rows.map(({ portfolio_ids, ...u }) => (portfolio_ids ? { ...u, guestOf: portfolio_ids } : u));
}

/** Users of an org by id, for people values: only members and guests of that org are found. */
export async function orgUsersByIds(
  db: Kysely<DB>,
  orgId: string,
  ids: readonly string[],
): Promise<UserModel[]> {
  if (!ids.length) return [];
  const { rows } = await sql<UserModel>`
    select u.id, u.email, u.name from users u
    where u.id in (${sql.join(ids)})
      and (exists (select 1 from org_members m where m.org_id = ${orgId} and m.user_id = u.id)
        or exists (select 1 from portfolio_guests g where g.org_id = ${orgId} and g.user_id = u.id))`.execute(
    db,
  );
  return rows;
}

// ---- Administration (CLI, seeds) ----

export async function createOrg(db: Kysely<DB>, name: string): Promise<OrgModel> {
  const row = await db
    .insertInto('organizations')
    .values({ id: newId('Organization'), name })
    .returning(['id', 'name', 'created_at'])
    .executeTakeFirstOrThrow();
  return toOrg(row);
}

export async function createPortfolio(db: Kysely<DB>, orgId: string, name: string): Promise<PortfolioModel> {
  const row = await db
    .insertInto('portfolios')
    .values({ org_id: orgId, id: newId('Portfolio'), name })
    .returning(['org_id', 'id', 'name', 'created_at'])
    .executeTakeFirstOrThrow();
  await bumpOrgVersion(db, orgId);
  return toPortfolio(row);
}

export async function createUser(db: Kysely<DB>, email: string, name: string): Promise<UserModel> {
  return db
    .insertInto('users')
    .values({ id: newId('User'), email, name })
    .returning(['id', 'email', 'name'])
    .executeTakeFirstOrThrow();
}

export async function findUser(db: Kysely<DB>, idOrEmail: string): Promise<UserModel | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'name'])
    .where((eb) => eb.or([eb('id', '=', idOrEmail), eb('email', '=', idOrEmail)]))
    .executeTakeFirst();
}

/** A portfolio by id alone, for the admin CLI (cross-tenant: it does not know the org yet). */
export async function findPortfolio(
  db: Kysely<DB>,
  portfolioId: string,
): Promise<PortfolioModel | undefined> {
  const { rows } = await sql<{ org_id: string; id: string; name: string; created_at: Date }>`
    ${sql.raw(CROSS_TENANT)} select org_id, id, name, created_at from portfolios where id = ${portfolioId}`.execute(
    db,
  );
  return rows[0] && toPortfolio(rows[0]);
}

export async function addMember(db: Kysely<DB>, orgId: string, userId: string, role: OrgRole): Promise<void> {
  await db
    .insertInto('org_members')
    .values({ org_id: orgId, user_id: userId, role })
    .onConflict((oc) => oc.columns(['org_id', 'user_id']).doUpdateSet({ role }))
    .execute();
  await bumpOrgVersion(db, orgId);
}

export async function grantGuest(
  db: Kysely<DB>,
  orgId: string,
  portfolioId: string,
  userId: string,
): Promise<void> {
  await db
    .insertInto('portfolio_guests')
    .values({ org_id: orgId, portfolio_id: portfolioId, user_id: userId })
    .onConflict((oc) => oc.doNothing())
    .execute();
  await bumpOrgVersion(db, orgId);
}

/** A portfolio by id alone, among the given organizations (for `node(id)`). */
export async function portfolioInOrgs(db: Kysely<DB>, id: string, orgIds: readonly string[]) {
  if (!orgIds.length) return null;
  const row = await db
    .selectFrom('portfolios')
    .select(['org_id', 'id', 'name', 'created_at'])
    .where('org_id', 'in', orgIds)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toPortfolio(row) : null;
}

// ---- Administration over the API (admin.ts) ----

/**
 * Serializes the changes of one organization's memberships: taken first in each membership
 * transaction, so two transactions that each demote or remove an owner see each other's result
 * when they count the owners left. An advisory lock, because a row lock on the owners' rows would
 * not stop a concurrent promotion being missed, and it needs no table (so no shard) on Citus.
 */
export async function lockMemberships(db: Kysely<DB>, orgId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`members:${orgId}`}::text, 0))`.execute(db);
}

/** A user's role in an organization, if a member. */
export async function memberRole(
  db: Kysely<DB>,
  orgId: string,
  userId: string,
): Promise<OrgRole | undefined> {
  const row = await db
    .selectFrom('org_members')
    .select('role')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

export async function countOwners(db: Kysely<DB>, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('org_members')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('org_id', '=', orgId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteMember(db: Kysely<DB>, orgId: string, userId: string): Promise<boolean> {
  const res = await db
    .deleteFrom('org_members')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  await bumpOrgVersion(db, orgId);
  return Number(res.numDeletedRows) > 0;
}

/** The portfolios of an organization a user is a guest of. */
export async function guestPortfolioIds(db: Kysely<DB>, orgId: string, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('portfolio_guests')
    .select('portfolio_id')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .orderBy('portfolio_id')
    .execute();
  return rows.map((r) => r.portfolio_id);
}

export async function revokeGuest(
  db: Kysely<DB>,
  orgId: string,
  portfolioId: string,
  userId: string,
): Promise<boolean> {
  const res = await db
    .deleteFrom('portfolio_guests')
    .where('org_id', '=', orgId)
    .where('portfolio_id', '=', portfolioId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  await bumpOrgVersion(db, orgId);
  return Number(res.numDeletedRows) > 0;
}

/**
 * Every organization a user reaches, with their role there (`guest` for guests): a key works in all
 * of them, so who may make or revoke someone's key depends on all of them.
 */
export async function userOrgRoles(db: Kysely<DB>, userId: string): Promise<Map<string, AccessRole>> {
  const { rows } = await sql<{ org_id: string; role: AccessRole }>`
    ${sql.raw(CROSS_TENANT)}
    select org_id, role from org_members where user_id = ${userId}
    union
    select g.org_id, 'guest' from portfolio_guests g where g.user_id = ${userId}
      and not exists (select 1 from org_members m where m.org_id = g.org_id and m.user_id = g.user_id)`.execute(
    db,
  );
  return new Map(rows.map((r) => [r.org_id, r.role]));
}
