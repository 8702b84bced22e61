/**
 * The measuring half of bench/nested-alloc.ts, in a process of its own that loads nothing of this
 * checkout but the query text, so the build it measures brings its own modules (and pg parsers).
 *
 *   node dist/bench/nested-alloc-child.js <build root> <database url> <api key> <org id> <portfolio id> <scenario> <requests> <top>
 */
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { NESTED_QUERY } from './scenarios.js';

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

const [root, url, apiKey, orgId, portfolioId, scenario, requests, top] = process.argv.slice(2);
const load = (f: string) => import(pathToFileURL(join(root, 'dist/src', f)).href);
const { buildApp } = await load('app.js');
const { createDatabase } = await load('db/database.js');
const database = await createDatabase({ url });
const app = await buildApp({ database, logger: pino({ level: 'warn' }) });
// Scenario 7: the nested query; scenario 1: the REST first page.
const request =
  scenario === '1'
    ? { method: 'GET' as const, url: `/projects/v1?orgId=${orgId}&portfolioId=${portfolioId}&limit=100` }
    : {
        method: 'POST' as const,
        url: '/graphql',
        payload: JSON.stringify({
          query: NESTED_QUERY,
          variables: { orgId, portfolioId, projects: 100, contacts: 10, parcels: 5 },
        }),
      };
const one = async () => {
  const r = await app.inject({
    ...request,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
  });
  if (r.statusCode !== 200) throw new Error(`${root}: status ${r.statusCode}`);
};
for (let i = 0; i < 20; i++) await one(); // compiled, caches warm
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const n = Number(requests);
for (let i = 0; i < n; i++) await one();
const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: SamplingNode } };
session.disconnect();
const bySite = new Map<string, number>();
let total = 0;
const walk = (node: SamplingNode) => {
  const f = node.callFrame;
  const where = f.url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, '');
  const site = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
  bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const c of node.children) walk(c);
};
walk(profile.head);
const what = scenario === '1' ? 'REST first page' : 'nested request';
console.log(`${root}: ${(total / n / 1e6).toFixed(2)} MB allocated per ${what} (${n} requests)`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
  console.log(`  ${((bytes / total) * 100).toFixed(1).padStart(5)}%  ${site}`);
await app.close();
await database.close();
process.exit(0);
