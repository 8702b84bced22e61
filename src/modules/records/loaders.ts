import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import type { DB, RecordKind } from '../../db/types.js';
import { tracedBatch } from '../../observability/tracing.js';
import type { RecordQuery } from './filter.js';
import type { ListName } from './lists.js';
import {
  countsFor,
  type FacetCount,
  facetsFor,
  type ListCount,
  type PageRequest,
  type PageRow,
  pagesFor,
  parcelGeometries,
  recordsByIds,
} from './repository.js';
import type { RecordModel } from './types.js';

/** One parent's list under one query: what counts and facets are asked for. */
export interface ListKey {
  list: ListName;
  orgId: string;
  parentId: string;
  /** PLAIN_QUERY for the whole list. */
  query: RecordQuery;
}

export interface FacetKey extends ListKey {
  propertyId: string;
  member: 'select' | 'people' | 'checkbox';
}

/**
 * One statement per list, org and query: a filtered query is compiled against one org's schema, so
 * it batches only within that org, and on Citus each statement then names one org, one shard.
 */
const queryGroup = (k: { list: ListName; orgId: string; query?: RecordQuery }) =>
  k.query?.sig ? `${k.list}:${k.orgId}:${k.query.sig}` : `${k.list}:${k.orgId}`;
const parentKey = (k: ListKey) => `${k.orgId}\0${k.parentId}`;
/** Equal page requests within one group (list, org, query and direction are the group's). */
const pageKey = (r: PageRequest) =>
  r.bound ? `${r.parentId}\0${r.limit}\0${JSON.stringify(r.bound)}` : `${r.parentId}\0${r.limit}`;

/**
 * A DataLoader batch function that asks once per distinct key and once per group: keys of one
 * group share one statement (`fetch`), equal keys share one row of it.
 */
function groupedBatch<K, V>(
  groupOf: (k: K) => string,
  keyOf: (k: K) => string,
  fetch: (group: K[]) => Promise<V[]>,
): (keys: readonly K[]) => Promise<V[]> {
  return async (keys) => {
    // A key is only equal to another of its own group. Each key's name is built once: a nested
    // query's level batches hundreds of them.
    const names = new Array<string>(keys.length);
    const groups = new Map<string, Map<string, K>>();
    keys.forEach((k, i) => {
      const g = groupOf(k);
      let unique = groups.get(g);
      if (!unique) {
        unique = new Map();
        groups.set(g, unique);
      }
      names[i] = `${g}\0${keyOf(k)}`;
      unique.set(names[i], k);
    });
    const byKey = new Map<string, V>();
    await Promise.all(
      [...groups.values()].map(async (unique) => {
        const values = await fetch([...unique.values()]);
        let i = 0;
        for (const name of unique.keys()) byKey.set(name, values[i++]);
      }),
    );
    return names.map((name) => byKey.get(name)!);
  };
}

/** Pages of one group's requests, each distinct request asked once. */
async function levelPages(db: Kysely<DB>, reqs: readonly PageRequest[]): Promise<PageRow[][]> {
  const index = new Map<string, number>();
  const unique: PageRequest[] = [];
  const at = reqs.map((r) => {
    const key = r.bound ? pageKey(r) : r.parentId;
    let i = index.get(key);
    if (i === undefined) {
      i = unique.length;
      index.set(key, i);
      unique.push(r);
    }
    return i;
  });
  const pages = await pagesFor(db, unique);
  return at.map((i) => pages[i]);
}

/**
 * Per-request record loaders. Pages, counts and facets of every parent at one level of a query
 * are fetched by one statement per list, direction and query, so a query costs statements by its
 * depth, not its width.
 *
 * Pages, counts and facets are batched but never cached beyond their batch: a mutation document
 * runs its fields one after another, and each payload must read the lists as they are after its
 * own write (link, unlink, create, delete), not as an earlier field of the same request saw them.
 */
export function createRecordLoaders(db: Kysely<DB>, orgIds: readonly string[]) {
  const byId = (kind: RecordKind) =>
    new DataLoader(
      tracedBatch('records.byId', async (ids: readonly string[]) => {
        const rows = new Map((await recordsByIds(db, kind, ids, orgIds)).map((r) => [r.id, r]));
        return ids.map((id) => rows.get(id));
      }),
    );
  const uncached = { cache: false } as const;
  return {
    record: { project: byId('project'), parcel: byId('parcel'), contact: byId('contact') } as Record<
      RecordKind,
      DataLoader<string, RecordModel | undefined>
    >,
    /**
     * One level's pages at once (a planned operation's: one list, org, query and direction), equal
     * requests asked once: the page loader's statement without a DataLoader key per parent.
     */
    level: tracedBatch('records.page', (reqs: readonly PageRequest[]) => levelPages(db, reqs)),
    page: new DataLoader<PageRequest, PageRow[], string>(
      tracedBatch(
        'records.page',
        groupedBatch(
          (r) => `${queryGroup(r)}:${r.direction}`,
          pageKey,
          (group) => pagesFor(db, group),
        ),
      ),
      uncached,
    ),
    /** totalCount of a list under a query. */
    count: new DataLoader<ListKey, ListCount, string>(
      tracedBatch(
        'records.count',
        groupedBatch(queryGroup, parentKey, (group) => countsFor(db, group[0].list, group, group[0].query)),
      ),
      uncached,
    ),
    /** Facet counts of one property of a list under a query. */
    facets: new DataLoader<FacetKey, FacetCount[], string>(
      tracedBatch(
        'records.facets',
        groupedBatch<FacetKey, FacetCount[]>(
          (k) => `${queryGroup(k)}:${k.member}:${k.propertyId}`,
          parentKey,
          (group) =>
            facetsFor(db, group[0].list, group, group[0].query, group[0].propertyId, group[0].member),
        ),
      ),
      uncached,
    ),
    geometry: new DataLoader(
      tracedBatch('records.geometry', async (ids: readonly string[]) => {
        const m = await parcelGeometries(db, orgIds, ids);
        return ids.map((id) => m.get(id) ?? null);
      }),
    ),
  };
}

declare module '../../context.js' {
  /** This module's loaders, on every request's context (src/request-context.ts builds them). */
  interface Loaders extends ReturnType<typeof createRecordLoaders> {}
}
