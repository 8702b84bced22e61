import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import { orgCacheFor } from '../../db/org-cache.js';
import type { DB } from '../../db/types.js';
import { tracedBatch } from '../../observability/tracing.js';
import { listOrgUsers, listPortfolios, orgsByIds, orgUsersByIds, portfoliosByKeys } from './repository.js';
import type { PortfolioModel, UserModel } from './types.js';

const byKey = (k: { orgId: string; id: string }) => `${k.orgId}\0${k.id}`;

/**
 * Per-request loaders of the org module. An org's user list and portfolio list are served from the
 * process cache when the caller's key came with that org's version (always, for the caller's orgs);
 * cache misses read the primary, so a lagging replica can never fill the cache with old data.
 */
export function createOrgLoaders(
  db: Kysely<DB>,
  versions: ReadonlyMap<string, number>,
  primary: Kysely<DB> = db,
) {
  const cache = orgCacheFor(primary);
  const orgUsers = new DataLoader(
    tracedBatch('org.users', async (orgIds: readonly string[]) =>
      Promise.all(
        orgIds.map((o) =>
          cache.get<UserModel[]>(o, versions.get(o), 'users', () => listOrgUsers(primary, o)),
        ),
      ),
    ),
  );
  const orgPortfolios = new DataLoader(
    tracedBatch('org.portfolios', async (orgIds: readonly string[]) =>
      Promise.all(
        orgIds.map((o) =>
          cache.get<PortfolioModel[]>(o, versions.get(o), 'portfolios', () => listPortfolios(primary, o)),
        ),
      ),
    ),
  );
  return {
    org: new DataLoader(
      tracedBatch('org.org', async (ids: readonly string[]) => {
        const rows = await orgsByIds(db, ids);
        return ids.map((id) => rows.find((r) => r.id === id));
      }),
    ),
    /** Every portfolio of an org (callers apply the viewer's portfolio scope). */
    orgPortfolios,
    portfolio: new DataLoader(
      tracedBatch('org.portfolio', async (keys: readonly { orgId: string; id: string }[]) => {
        const known = keys.filter((k) => versions.has(k.orgId));
        const lists = new Map(
          (await orgPortfolios.loadMany([...new Set(known.map((k) => k.orgId))])).flatMap((l) =>
            Array.isArray(l) ? l.map((p) => [byKey({ orgId: p.orgId, id: p.id }), p] as const) : [],
          ),
        );
        const rest = keys.filter((k) => !versions.has(k.orgId));
        for (const p of rest.length ? await portfoliosByKeys(db, rest) : [])
          lists.set(byKey({ orgId: p.orgId, id: p.id }), p);
        return keys.map((k) => lists.get(byKey(k)));
      }),
      { cacheKeyFn: byKey },
    ),
    orgUsers,
    /** Whether a user belongs to an org (member or guest): people values may only name those. */
    isOrgUser: new DataLoader(
      tracedBatch('org.isOrgUser', async (keys: readonly { orgId: string; id: string }[]) => {
        const found = new Set<string>();
        for (const orgId of new Set(keys.map((k) => k.orgId))) {
          const ids = keys.filter((k) => k.orgId === orgId).map((k) => k.id);
          const users = versions.has(orgId)
            ? await orgUsers.load(orgId)
            : await orgUsersByIds(db, orgId, ids);
          for (const u of users) found.add(byKey({ orgId, id: u.id }));
        }
        return keys.map((k) => found.has(byKey(k)));
      }),
      { cacheKeyFn: byKey },
    ),
  };
}

declare module '../../context.js' {
  /** This module's loaders, on every request's context (src/request-context.ts builds them). */
  interface Loaders extends ReturnType<typeof createOrgLoaders> {}
}
