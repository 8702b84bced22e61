import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/** Document hash → document text: the manifest graphql-codegen's client preset writes with `persistedDocuments: true`. */
export type TrustedDocuments = ReadonlyMap<string, string>;

/** The client preset writes sha256 keys as `sha256:<hex>` (sha1 ones bare); both sides compare the bare hash. */
const bare = (hash: string) => hash.replace(/^sha256:/, '');

/** Reads GRAPHQL_TRUSTED_DOCUMENTS' manifest; a malformed one fails the start, not a request. */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: cannot read ${path} as JSON: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: ${path} must be a JSON object of hash → document`);
  const docs = new Map<string, string>();
  for (const [hash, doc] of Object.entries(json)) {
    if (typeof doc !== 'string' || !doc.trim())
      throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: the document of ${hash} in ${path} is not a string`);
    docs.set(bare(hash), doc);
  }
  return docs;
}

type GraphQLParams = {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
};

/** The hash a request names: GraphQL-over-HTTP's `documentId` (`sha256:` optional) or APQ's sha256Hash. */
function requestedHash(p: GraphQLParams): { hash: string; extensions?: Record<string, unknown> } | undefined {
  let extensions = p.extensions;
  if (typeof extensions === 'string') {
    try {
      extensions = JSON.parse(extensions);
    } catch {
      extensions = undefined;
    }
  }
  const ext =
    typeof extensions === 'object' && extensions !== null
      ? (extensions as Record<string, unknown>)
      : undefined;
  if (typeof p.documentId === 'string') return { hash: bare(p.documentId), extensions: ext };
  const apq = ext?.persistedQuery as { sha256Hash?: unknown } | undefined;
  if (typeof apq?.sha256Hash === 'string') return { hash: bare(apq.sha256Hash), extensions: ext };
  return undefined;
}

/**
 * Trusted documents: /graphql runs only the manifest's operations, named by their hash. The text
 * replaces the hash before Apollo sees the request, so the rest of the path (limits, validation,
 * the Executor) is the same. Ad-hoc documents are refused, except from admin keys. Installed on the
 * /graphql scope, so it runs after authentication (an unauthenticated caller hears 401 first).
 */
export function installTrustedDocuments(graphql: FastifyInstance, docs: TrustedDocuments): void {
  graphql.addHook('preHandler', async (req: FastifyRequest) => {
    if (req.method !== 'POST' && req.method !== 'GET') return;
    const params = (req.method === 'POST' ? req.body : req.query) as GraphQLParams | undefined;
    if (!params || typeof params !== 'object') return;
    const named = requestedHash(params);
    if (named) {
      const doc = documentOf(docs, named.hash);
      if (named.extensions) delete named.extensions.persistedQuery;
      if (req.method === 'POST') {
        params.query = doc;
        delete params.documentId;
        if (named.extensions) params.extensions = named.extensions;
      } else {
        // Apollo reads a GET's parameters from the URL itself.
        const [path, search = ''] = req.raw.url!.split('?', 2);
        const q = new URLSearchParams(search);
        q.set('query', doc);
        q.delete('documentId');
        if (named.extensions) q.set('extensions', JSON.stringify(named.extensions));
        req.raw.url = `${path}?${q}`;
      }
      return;
    }
    if (params.query !== undefined && !req.ctx?.viewer.admin) throw documentRequired();
  });
}

/**
 * The text an operation runs (src/graphql/seam.ts): the manifest's document when the request names
 * a hash, else its own query text, from an admin key only.
 */
export function trustedQuery(
  docs: TrustedDocuments,
  source: { query: string; documentId?: unknown; extensions?: unknown },
  admin: boolean,
): string {
  const named = requestedHash(source);
  if (named) return documentOf(docs, named.hash);
  if (!admin) throw documentRequired();
  return source.query;
}

function documentOf(docs: TrustedDocuments, hash: string): string {
  const doc = docs.get(hash);
  if (doc === undefined)
    throw new AppError(
      'PERSISTED_DOCUMENT_NOT_FOUND',
      `No trusted document has the hash "${hash.slice(0, 80)}". Build the client with the server's manifest (GRAPHQL_TRUSTED_DOCUMENTS).`,
    );
  return doc;
}

const documentRequired = () =>
  new AppError(
    'PERSISTED_DOCUMENT_REQUIRED',
    'This gateway runs only trusted documents: send the document hash as documentId (or extensions.persistedQuery.sha256Hash), not the query text. Ad-hoc documents need an admin key (sdg key create --admin).',
  );
