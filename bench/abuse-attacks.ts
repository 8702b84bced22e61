/**
 * One attacker of `npm run bench -- --abuse`, in its own process so that its load does not skew the
 * tenant's timings in the bench process:
 *
 *   node dist/bench/abuse-attacks.js <attack> <gateway url> <attacker key> <seconds> <portfolio id>
 *
 * Floods the gateway for the given time and prints one JSON line: requests sent and answers by status.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';

/** The requests of each attack of issue 12 (the silent database path is not a request: see abuse.ts). */
export const FLOODS = {
  fragments: {
    title: '1. fragments spreading the next one twice, 24 deep (any key)',
    connections: 8,
  },
  'variable-default': {
    title: '2. a page size of 5000 hidden in a variable default, 16 at once',
    connections: 16,
  },
  'junk-keys': {
    title: '3. a different junk X-API-Key on every request',
    connections: 32,
  },
  'random-keys': {
    title: '4. well-formed random keys (each one a key lookup before the fix)',
    connections: 32,
  },
} as const;
export type Flood = keyof typeof FLOODS;

function exponentialFragments(levels: number): string {
  let doc = 'query{...F0}';
  for (let i = 0; i < levels; i++) doc += ` fragment F${i} on Query{...F${i + 1} ...F${i + 1}}`;
  return `${doc} fragment F${levels} on Query{__typename}`;
}

const VARIABLE_DEFAULT = `query($n: Int = 5000, $pf: ID!) { node(id: $pf) { ... on Portfolio {
  projects(first: $n) { edges { node { id properties contacts(first: $n) { edges { node { id properties } } } } } } } } }`;

function request(attack: Flood, key: string, portfolioId: string) {
  const json = { 'content-type': 'application/json' };
  switch (attack) {
    case 'fragments':
      return () => ({
        method: 'POST' as const,
        path: '/graphql',
        headers: { ...json, 'x-api-key': key },
        body: JSON.stringify({ query: exponentialFragments(24) }),
      });
    case 'variable-default':
      return () => ({
        method: 'POST' as const,
        path: '/graphql',
        headers: { ...json, 'x-api-key': key },
        body: JSON.stringify({ query: VARIABLE_DEFAULT, variables: { pf: portfolioId } }),
      });
    case 'junk-keys': {
      let n = 0;
      return () => ({
        method: 'GET' as const,
        path: '/organizations/v1',
        headers: { 'x-api-key': `junk-${n++}` },
      });
    }
    case 'random-keys':
      return () => ({
        method: 'GET' as const,
        path: '/organizations/v1',
        headers: { 'x-api-key': `sdg_${randomBytes(32).toString('base64url')}` },
      });
  }
}

async function main() {
  const [attack, url, key, seconds, portfolioId] = process.argv.slice(2);
  if (!(attack in FLOODS))
    throw new Error(`unknown attack "${attack}"; one of ${Object.keys(FLOODS).join(', ')}`);
  const next = request(attack as Flood, key, portfolioId);
  const statuses: Record<string, number> = {};
  let requests = 0;
  const instance = autocannon({
    url,
    connections: FLOODS[attack as Flood].connections,
    duration: Number(seconds),
    timeout: 60,
    requests: [{ setupRequest: (req) => ({ ...req, ...next() }) }],
  });
  (instance as unknown as NodeJS.EventEmitter).on('response', (_c: unknown, status: number) => {
    requests++;
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  const result = await instance;
  statuses.errors = result.errors;
  process.stdout.write(`${JSON.stringify({ requests, statuses })}\n`);
}

if (process.argv[1]?.endsWith('abuse-attacks.js') || process.argv[1]?.endsWith('abuse-attacks.ts'))
  main().catch((err) => {
    process.stderr.write(`attacker failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
