import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import type { DB, RecordKind } from '../../db/types.js';
import { PLAIN_QUERY, type RecordQuery } from './filter.js';
import type { ListName } from './lists.js';
import {
  countsFor,
  facetsFor,
  type PageRequest,
  type PageRow,
  pagesFor,
  parcelGeometries,
  recordsByIds,
} from './repository.js';
import type { RecordModel } from './types.js';

const pageKey = (r: PageRequest) =>
  JSON.stringify([r.list, r.orgId, r.parentId, r.limit, r.direction, r.query?.sig ?? '', r.bound ?? null]);

/** A filtered query is compiled against one org's schema, so it batches only within that org. */
const queryGroup = (list: ListName, orgId: string, query: RecordQuery) =>
  query.sig ? `${list}:${orgId}:${query.sig}` : list;

type ParentKey = { orgId: string; parentId: string };

/**
 * Per-request record loaders. Pages of every parent at one level of a query are fetched by one
 * statement (per list and direction), so a query costs statements by its depth, not its width.
 *
 * Pages and counts are batched but never cached beyond their batch: a mutation document runs its
 * fields one after another, and each payload must read the lists as they are after its own write
 * (link, unlink, create, delete), not as an earlier field of the same request saw them. Equal
 * requests inside one batch (the same contact under two projects) still share one row of the VALUES list.
 */
export function createRecordLoaders(db: Kysely<DB>, orgIds: readonly string[]) {
  const byId = (kind: RecordKind) =>
    new DataLoader(async (ids: readonly string[]) => {
      const rows = new Map((await recordsByIds(db, kind, ids, orgIds)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id));
    });
  const counts = new Map<string, DataLoader<ParentKey, number, string>>();
  const facets = new Map<string, DataLoader<ParentKey, { value: string | null; count: number }[], string>>();
  const k = (x: ParentKey) => `${x.orgId}\0${x.parentId}`;
  /** A loader per group, batching its parents, deduplicated, never cached past the batch. */
  function batched<T>(
    map: Map<string, DataLoader<ParentKey, T, string>>,
    group: string,
    fetch: (keys: ParentKey[]) => Promise<T[]>,
  ) {
    let l = map.get(group);
    if (!l) {
      l = new DataLoader(
        async (keys: readonly ParentKey[]) => {
          const unique = [...new Map(keys.map((x) => [k(x), x])).values()];
          const n = await fetch(unique);
          const byKey = new Map(unique.map((x, i) => [k(x), n[i]]));
          return keys.map((x) => byKey.get(k(x))!);
        },
        { cache: false },
      );
      map.set(group, l);
    }
    return l;
  }
  return {
    record: { project: byId('project'), parcel: byId('parcel'), contact: byId('contact') } as Record<
      RecordKind,
      DataLoader<string, RecordModel | undefined>
    >,
    page: new DataLoader<PageRequest, PageRow[], string>(
      async (reqs) => {
        // One request per distinct page, grouped by (list, direction): one statement per group.
        const unique = new Map<string, PageRequest>();
        for (const r of reqs) unique.set(pageKey(r), r);
        const groups = new Map<string, PageRequest[]>();
        for (const r of unique.values()) {
          const g = `${queryGroup(r.list, r.orgId, r.query ?? PLAIN_QUERY)}:${r.direction}`;
          if (!groups.has(g)) groups.set(g, []);
          groups.get(g)!.push(r);
        }
        const byKey = new Map<string, PageRow[]>();
        await Promise.all(
          [...groups.values()].map(async (group) => {
            const pages = await pagesFor(db, group);
            group.forEach((r, j) => {
              byKey.set(pageKey(r), pages[j]);
            });
          }),
        );
        return reqs.map((r) => byKey.get(pageKey(r))!);
      },
      { cache: false },
    ),
    /** totalCount of a list under a query (PLAIN_QUERY for the whole list). */
    count(list: ListName, orgId: string, query: RecordQuery = PLAIN_QUERY) {
      return batched(counts, queryGroup(list, orgId, query), (keys) => countsFor(db, list, keys, query));
    },
    /** Facet counts of one property of a list under a query. */
    facets(
      list: ListName,
      orgId: string,
      query: RecordQuery,
      propertyId: string,
      member: 'select' | 'people',
    ) {
      return batched(facets, `${queryGroup(list, orgId, query)}:${member}:${propertyId}`, (keys) =>
        facetsFor(db, list, keys, query, propertyId, member),
      );
    },
    geometry: new DataLoader(async (ids: readonly string[]) => {
      const m = await parcelGeometries(db, orgIds, ids);
      return ids.map((id) => m.get(id) ?? null);
    }),
  };
}
