/**
 * What the app can learn about its gateway before it shows data: whether it answers at all, whether
 * it takes the key, and whether it runs the app's trusted documents. No DOM and no imports, so the
 * gateway's own tests run it under Node against real servers (test/papercuts-example-web.test.ts).
 */

/** Whether the gateway runs trusted documents, as far as its answers tell. */
export type TrustedDocumentsMode =
  /** It ran one of the app's documents, sent by hash alone. */
  | 'on'
  /** It runs trusted documents, but its manifest lacks the app's. */
  | 'other-manifest'
  /** It took the hash for an automatic persisted query it has not stored: any document runs. */
  | 'off'
  | 'unknown';

export type GatewayStatus =
  | { state: 'unreachable'; gateway: string; reason: string }
  | { state: 'key-refused'; gateway: string; message: string }
  | { state: 'ready'; gateway: string; trustedDocuments: TrustedDocumentsMode };

/**
 * How the app sends its operations (src/client.ts): only their hashes, never the text. So it needs a
 * gateway with its trusted documents; one without answers every hash with an APQ miss, and urql,
 * told to enforce persisted queries, does not fall back to sending the text.
 */
export const PERSISTED = {
  enforcePersistedQueries: true,
  enableForMutation: true,
  preferGetForPersistedQueries: false,
} as const;

const MANIFEST = 'examples/web/src/gql/persisted-documents.json';

const base = (gateway: string) => gateway.replace(/\/+$/, '');

interface GraphQLAnswer {
  data?: unknown;
  errors?: { message?: string; extensions?: { code?: string } }[];
}

/**
 * Asks `gateway` whether it answers, and, with a key, sends `documentHash` (one of the app's own
 * read-only documents, as the app sends it: the hash alone) to learn the gateway's mode from how it
 * answers: the data (trusted documents that include the app's), PERSISTED_DOCUMENT_NOT_FOUND
 * (trusted documents of another manifest), or Apollo's PERSISTED_QUERY_NOT_FOUND (no trusted
 * documents: the hash was taken for an automatic persisted query). Each is a 200 but the second, as
 * any of the app's own requests would get.
 */
export async function probeGateway(
  gateway: string,
  apiKey: string | undefined,
  documentHash: string,
  fetcher: typeof fetch = fetch,
): Promise<GatewayStatus> {
  const url = base(gateway);
  try {
    // Public, cheap, and CORS-enabled like every gateway path.
    const health = await fetcher(`${url}/healthz`);
    if (!health.ok)
      return { state: 'unreachable', gateway: url, reason: `/healthz answered ${health.status}` };
  } catch (err) {
    return { state: 'unreachable', gateway: url, reason: (err as Error).message || String(err) };
  }
  if (!apiKey) return { state: 'ready', gateway: url, trustedDocuments: 'unknown' };
  let answer: GraphQLAnswer;
  try {
    const res = await fetcher(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: documentHash } } }),
    });
    answer = (await res.json()) as GraphQLAnswer;
  } catch (err) {
    return { state: 'unreachable', gateway: url, reason: (err as Error).message || String(err) };
  }
  const error = answer.errors?.[0];
  if (!error && answer.data) return { state: 'ready', gateway: url, trustedDocuments: 'on' };
  switch (error?.extensions?.code) {
    case 'UNAUTHENTICATED':
      return { state: 'key-refused', gateway: url, message: error.message ?? 'the key was refused' };
    case 'PERSISTED_DOCUMENT_NOT_FOUND':
      return { state: 'ready', gateway: url, trustedDocuments: 'other-manifest' };
    case 'PERSISTED_QUERY_NOT_FOUND':
      return { state: 'ready', gateway: url, trustedDocuments: 'off' };
    default:
      return { state: 'ready', gateway: url, trustedDocuments: 'unknown' };
  }
}

const MODES: Record<TrustedDocumentsMode, string> = {
  on: 'trusted documents on: it runs this app’s documents by their hashes',
  'other-manifest': `trusted documents on, but its manifest lacks this app’s documents: start it with GRAPHQL_TRUSTED_DOCUMENTS=${MANIFEST} from this build`,
  off: `trusted documents off, and this app sends only the hashes of its trusted documents: start the gateway with GRAPHQL_TRUSTED_DOCUMENTS=${MANIFEST}`,
  unknown: 'reachable',
};

/** One line for the page: which gateway, and what it said. */
export function describeGateway(s: GatewayStatus): string {
  switch (s.state) {
    case 'unreachable':
      return `Cannot reach the gateway at ${s.gateway} (${s.reason}): it is not running there, or its CORS_ORIGINS does not allow this page. Start it with npm start in the repository, or open this page with ?gateway=<its URL>.`;
    case 'key-refused':
      return `The gateway at ${s.gateway} refused this API key: ${s.message}`;
    case 'ready':
      return `Gateway ${s.gateway}: ${MODES[s.trustedDocuments]}.`;
  }
}
