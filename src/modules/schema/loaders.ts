import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import { orgCacheFor } from '../../db/org-cache.js';
import type { DB, RecordKind } from '../../db/types.js';
import { tracedBatch } from '../../observability/tracing.js';
import { schemasByKeys } from './repository.js';
import type { PropertySchemaModel } from './types.js';

/**
 * Property schemas: from the process cache when the org's version is known, else one statement for
 * every (org, kind) the request touches. Misses read the primary (see createOrgLoaders).
 */
export function createSchemaLoaders(
  db: Kysely<DB>,
  versions: ReadonlyMap<string, number>,
  primary: Kysely<DB> = db,
) {
  const cache = orgCacheFor(primary);
  return {
    schema: new DataLoader(
      tracedBatch('schema.schema', async (keys: readonly { orgId: string; kind: RecordKind }[]) => {
        const out = keys.map((k) =>
          cache.peek<PropertySchemaModel>(k.orgId, versions.get(k.orgId), `schema:${k.kind}`),
        );
        const missing = keys.filter((_, i) => !out[i]);
        if (missing.length) {
          const cachable = missing.every((k) => versions.has(k.orgId));
          const loaded = await schemasByKeys(cachable ? primary : db, missing);
          missing.forEach((k, j) => {
            cache.put(k.orgId, versions.get(k.orgId), `schema:${k.kind}`, loaded[j]);
            out[keys.indexOf(k)] = loaded[j];
          });
        }
        return out as PropertySchemaModel[];
      }),
      { cacheKeyFn: (k) => `${k.orgId}\0${k.kind}` },
    ),
  };
}

declare module '../../context.js' {
  /** This module's loaders, on every request's context (src/request-context.ts builds them). */
  interface Loaders extends ReturnType<typeof createSchemaLoaders> {}
}
