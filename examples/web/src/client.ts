import { cacheExchange, type Resolver } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { persistedExchange } from '@urql/exchange-persisted';
import type { DocumentNode } from 'graphql';
import { Client, fetchExchange } from 'urql';
import { PERSISTED } from './gateway';
import * as documents from './gql/graphql';

/**
 * The client preset embeds each document's hash (`__meta__.hash`, the key of
 * persisted-documents.json). urql hands exchanges a copy of the document, so look the hash up by
 * operation name instead of reading it off the object.
 */
const hashes = new Map<string, string>();
for (const doc of Object.values(documents) as unknown[]) {
  const d = doc as DocumentNode & { __meta__?: { hash?: string } };
  const op = d?.definitions?.find((x) => x.kind === 'OperationDefinition');
  if (op?.kind === 'OperationDefinition' && op.name && d.__meta__?.hash)
    hashes.set(op.name.value, d.__meta__.hash);
}

function hashOf(doc: DocumentNode): string {
  const op = doc.definitions.find((x) => x.kind === 'OperationDefinition');
  return documentHash(op?.kind === 'OperationDefinition' && op.name ? op.name.value : '');
}

/** The manifest hash of one of the app's operations, by its name. */
export function documentHash(operationName: string): string {
  const hash = hashes.get(operationName);
  // Every operation of the app is in the manifest; one that is not is a build mistake.
  if (!hash) throw new Error('operation missing from the trusted-documents manifest');
  return hash;
}

/**
 * relayPagination merges the pages of one filter and order into one list (edges and pageInfo
 * only); the connection's totalCount is read from the page asked for.
 */
const pages = relayPagination();
const paginated: Resolver = (parent, args, cache, info) => {
  const merged = pages(parent, args, cache, info) as Record<string, unknown> | undefined;
  const current = cache.resolve(info.parentKey, info.fieldName, args);
  if (!merged || typeof current !== 'string') return merged;
  return { ...merged, totalCount: cache.resolve(current, 'totalCount') };
};

/** Types without an id are stored inside their parent, not normalized. */
const embedded = () => null;

export function makeClient(gateway: string, apiKey: string): Client {
  return new Client({
    url: `${gateway.replace(/\/$/, '')}/graphql`,
    // The key travels in a header (never a cookie), so the gateway's CORS can allow any origin.
    fetchOptions: () => ({ headers: { 'x-api-key': apiKey } }),
    exchanges: [
      cacheExchange({
        keys: {
          ProjectConnection: embedded,
          ProjectEdge: embedded,
          PageInfo: embedded,
          TextValue: embedded,
          NumberValue: embedded,
          SelectValue: embedded,
          SelectOption: embedded,
          ProjectPayload: embedded,
          UserError: embedded,
          // The map view's types. A property definition's id is unique only within its kind (both
          // projects and parcels have `name`), so it is kept inside its parent, not by id.
          ParcelConnection: embedded,
          ContactConnection: embedded,
          Facet: embedded,
          DateValue: embedded,
          PeopleValue: embedded,
          CheckboxValue: embedded,
          PropertySchema: embedded,
          PropertyDefinition: embedded,
        },
        // "Load more" asks for the next page, appended to the same list.
        resolvers: { Portfolio: { projects: paginated } },
      }),
      // Only hashes go over the wire: the gateway runs the manifest's documents (trusted documents).
      persistedExchange({ ...PERSISTED, generateHash: async (_text, doc) => hashOf(doc) }),
      fetchExchange,
    ],
  });
}
