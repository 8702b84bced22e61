import { type Kysely, sql } from 'kysely';
import { rootHandle } from './database.js';
import type { DB } from './types.js';

/**
 * Process-wide cache of small per-organization data (property schemas, user lists, portfolio lists),
 * keyed by (org, org version). The version comes with the caller's key on every request and is bumped
 * by triggers on every change (migration 0003), so an entry is never stale: a change is seen by the
 * next request on every replica. Entries of older versions are simply never asked for again and fall
 * out of the LRU.
 */
export class OrgCache {
  private readonly entries = new Map<string, unknown>();
  /** Lookups with a known org version, found or not (metrics). */
  readonly stats = { hits: 0, misses: 0 };
  constructor(private readonly max = 5_000) {}

  peek<T>(orgId: string, version: number | undefined, what: string): T | undefined {
    if (version === undefined) return undefined;
    const key = `${orgId}\0${version}\0${what}`;
    const v = this.entries.get(key) as T | undefined;
    if (v !== undefined) {
      this.stats.hits++;
      this.entries.delete(key);
      this.entries.set(key, v);
    } else this.stats.misses++;
    return v;
  }

  put<T>(orgId: string, version: number | undefined, what: string, value: T): void {
    if (version === undefined) return;
    this.entries.set(`${orgId}\0${version}\0${what}`, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  async get<T>(orgId: string, version: number | undefined, what: string, load: () => Promise<T>): Promise<T> {
    // Unknown version (an org outside the caller's reach): no caching.
    if (version === undefined) return load();
    const key = `${orgId}\0${version}\0${what}`;
    if (this.entries.has(key)) {
      this.stats.hits++;
      const v = this.entries.get(key) as T;
      // Refresh recency.
      this.entries.delete(key);
      this.entries.set(key, v);
      return v;
    }
    this.stats.misses++;
    const v = await load();
    this.entries.set(key, v);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return v;
  }
}

const caches = new WeakMap<Kysely<DB>, OrgCache>();

/** One cache per database (tests open several in one process). */
export function orgCacheFor(handle: Kysely<DB>): OrgCache {
  const db = rootHandle(handle);
  let c = caches.get(db);
  if (!c) {
    c = new OrgCache();
    caches.set(db, c);
  }
  return c;
}

/**
 * Bumps an org's version after a change to what OrgCache holds. Postgres also has triggers for it
 * (migration 0003); Citus cannot run them, so every writer calls this after its write (a reader
 * between the two caches the new data under the old version, which is still right).
 */
export async function bumpOrgVersion(db: Kysely<DB>, orgId: string): Promise<void> {
  await sql`insert into org_versions (org_id) values (${orgId})
    on conflict (org_id) do update set version = org_versions.version + 1`.execute(db);
}
