import { type Kysely, sql } from 'kysely';
import { CROSS_TENANT } from '../../db/tenant-guard.js';
import type { DB, OrgRole } from '../../db/types.js';
import { newId } from '../../ids.js';
import { generateApiKey, hashApiKey, keyPrefix } from './keys.js';
import { Viewer } from './viewer.js';

/** How often `last_used_at` is written at most; keeps reads from writing on every request. */
const LAST_USED_RESOLUTION = '60 seconds';

/**
 * Resolves a key to its viewer in one read-only statement: the user, their org roles and guest
 * grants, and the version of each of their orgs (which keys the process caches, OrgCache). It reads
 * only reference tables (api_keys, users, org_members, portfolio_guests, org_versions), so on Citus it
 * is one task on one node although a user's memberships span organizations. Revoked and unknown keys
 * give null. `last_used_at` is stamped by a second statement, only when the stamp is a minute old.
 */
export function findViewerByKey(db: Kysely<DB>, key: string): Promise<Viewer | null> {
  return findViewerByHash(db, hashApiKey(key));
}

/** The same by the key's hash: a subscription re-checks its key with it, without keeping the key. */
export async function findViewerByHash(db: Kysely<DB>, hash: string): Promise<Viewer | null> {
  const { rows } = await sql<{
    key_id: string;
    stale: boolean;
    id: string;
    email: string;
    name: string;
    roles: { org: string; role: OrgRole }[];
    guest: { org: string; portfolio: string }[];
    versions: Record<string, number>;
    admin: boolean;
  }>`
    ${sql.raw(CROSS_TENANT)}
    select k.id as key_id, (k.last_used_at is null or k.last_used_at < now() - ${LAST_USED_RESOLUTION}::interval) as stale,
      u.id, u.email, u.name, k.admin,
      coalesce((select json_agg(json_build_object('org', m.org_id, 'role', m.role)) from org_members m where m.user_id = u.id), '[]') as roles,
      coalesce((select json_agg(json_build_object('org', g.org_id, 'portfolio', g.portfolio_id)) from portfolio_guests g where g.user_id = u.id), '[]') as guest,
      coalesce((select json_object_agg(v.org_id, v.version) from org_versions v where v.org_id in (
        select m.org_id from org_members m where m.user_id = u.id
        union select g.org_id from portfolio_guests g where g.user_id = u.id)), '{}') as versions
    from api_keys k join users u on u.id = k.user_id
    where k.key_hash = ${hash} and k.revoked_at is null`.execute(db);
  const row = rows[0];
  if (!row) return null;
  if (row.stale) await stampKeyUse(db, row.key_id);
  const roles = new Map(row.roles.map((r) => [r.org, r.role]));
  const guests = new Map<string, Set<string>>();
  for (const g of row.guest) {
    if (roles.has(g.org)) continue;
    if (!guests.has(g.org)) guests.set(g.org, new Set());
    guests.get(g.org)!.add(g.portfolio);
  }
  return new Viewer(
    row.id,
    row.email,
    row.name,
    roles,
    guests,
    new Map(Object.entries(row.versions).map(([o, v]) => [o, Number(v)])),
    row.key_id,
    row.admin,
  );
}

/** At most once a minute per key, even when requests race: the condition is checked again. */
async function stampKeyUse(db: Kysely<DB>, keyId: string): Promise<void> {
  try {
    await sql`update api_keys set last_used_at = now()
      where id = ${keyId} and (last_used_at is null or last_used_at < now() - ${LAST_USED_RESOLUTION}::interval)`.execute(
      db,
    );
  } catch (err) {
    // On Citus, api_keys is a reference table, and a transaction that writes several of them (an
    // invite: users, memberships, keys) can deadlock with this stamp. The stamp is a convenience that
    // the next request retries; the request it rides on must not fail for it.
    if ((err as { code?: string }).code !== '40P01') throw err;
  }
}

export interface CreatedKey {
  id: string;
  userId: string;
  /** The secret; shown once, never stored. */
  apiKey: string;
  prefix: string;
}

export async function createApiKey(
  db: Kysely<DB>,
  userId: string,
  label?: string,
  opts: { admin?: boolean } = {},
): Promise<CreatedKey> {
  const apiKey = generateApiKey();
  const id = newId('ApiKey');
  await db
    .insertInto('api_keys')
    .values({
      id,
      user_id: userId,
      key_hash: hashApiKey(apiKey),
      prefix: keyPrefix(apiKey),
      label: label ?? null,
      admin: opts.admin ?? false,
    })
    .execute();
  return { id, userId, apiKey, prefix: keyPrefix(apiKey) };
}

/** Revokes by key id, or by the key itself. Returns whether a live key was revoked. */
export async function revokeApiKey(db: Kysely<DB>, idOrKey: string): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`now()` })
    .where((eb) => eb.or([eb('id', '=', idOrKey), eb('key_hash', '=', hashApiKey(idOrKey))]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** A key's owner and state, by id or by the key itself (never its hash or secret). */
export async function findApiKey(
  db: Kysely<DB>,
  idOrKey: string,
): Promise<{ id: string; userId: string; prefix: string; revoked: boolean } | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'prefix', 'revoked_at'])
    .where((eb) => eb.or([eb('id', '=', idOrKey), eb('key_hash', '=', hashApiKey(idOrKey))]))
    .executeTakeFirst();
  return row && { id: row.id, userId: row.user_id, prefix: row.prefix, revoked: row.revoked_at !== null };
}
