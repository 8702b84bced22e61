import DataLoader from 'dataloader';
import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import { tracedBatch } from '../../observability/tracing.js';
import { externalIdsOf } from './repository.js';
import type { ExternalIdModel } from './types.js';

interface Key {
  orgId: string;
  kind: RecordKind;
  id: string;
}

/**
 * The `externalIds` of records, batched: one statement per organization and kind, so a page of
 * records (one level of a query) costs one statement. Kept per request beside its other loaders
 * (keyed by the request's loaders object, which a new read pool or an admitted operation replaces),
 * so that only the requests that ask for external ids build one.
 */
const perRequest = new WeakMap<object, DataLoader<Key, ExternalIdModel[], string>>();

export function externalIdsLoader(ctx: Context): DataLoader<Key, ExternalIdModel[], string> {
  let loader = perRequest.get(ctx.loaders);
  if (!loader) {
    const db = ctx.db;
    loader = new DataLoader(
      tracedBatch('sync.externalIds', async (keys: readonly Key[]) => {
        const found = new Map<string, ExternalIdModel[]>();
        const groups = new Map<string, Key[]>();
        for (const k of keys) {
          const g = `${k.orgId}\0${k.kind}`;
          groups.set(g, [...(groups.get(g) ?? []), k]);
        }
        for (const g of groups.values()) {
          const got = await externalIdsOf(db, g[0].orgId, g[0].kind, [...new Set(g.map((k) => k.id))]);
          for (const [id, list] of got) found.set(`${g[0].orgId}\0${id}`, list);
        }
        return keys.map((k) => found.get(`${k.orgId}\0${k.id}`) ?? []);
      }),
      { cacheKeyFn: (k) => `${k.orgId}\0${k.kind}\0${k.id}` },
    );
    perRequest.set(ctx.loaders, loader);
  }
  return loader;
}
