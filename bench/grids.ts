/**
 * `npm run bench -- --grids`: issue 41's "grids at county scale" on Postgres. The cases of
 * bench/filters.ts GRID_CASES, asked of the gateway over HTTP one at a time (the gateway runs in this
 * process, as in bench/aggregates.ts), `requests` times each after a warm-up; p50 per case, with the
 * count each answered and whether it was an estimate.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/types.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { GRID_CASES, GRID_QUERY, gridSortIndexes } from './filters.js';
import { inProcessGateway } from './in-process.js';
import { load1 } from './machine.js';
import { type BenchOptions, prepareDataset } from './runner.js';

export interface GridCaseResult {
  id: string;
  title: string;
  p50Ms: number;
  totalCount: number;
  estimate: boolean;
  statements: number;
}

export async function gridsCommand(
  o: BenchOptions,
  requests: number,
  resultsDir: string,
  label: string | undefined,
  write: boolean,
): Promise<void> {
  if (o.backend !== 'postgres') throw new Error('--grids runs on Postgres; drop --pglite.');
  const prepared = await prepareDataset(o);
  const url = prepared.serverEnv.DATABASE_URL;
  const orgId = prepared.dataset.orgId;
  const portfolioId = prepared.dataset.portfolioIds[0];
  const server = await inProcessGateway(url, prepared.fixture.apiKey);
  try {
    await gridSortIndexes(server.database.db as Kysely<DB>, orgId);
    const results: GridCaseResult[] = [];
    const loadAtStart = load1();
    for (const c of GRID_CASES) {
      const body = JSON.stringify({ query: GRID_QUERY, variables: { orgId, portfolioId, ...c.variables } });
      const ask = async () => {
        const r = await server.ask(body);
        return { ms: r.ms, parcels: r.json.data.organization.portfolio.parcels, sql: r.sql };
      };
      const first = await ask();
      for (let i = 0; i < 3; i++) await ask();
      const times: number[] = [];
      for (let i = 0; i < requests; i++) times.push((await ask()).ms);
      const s = [...times].sort((a, b) => a - b);
      const p50 = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
      results.push({
        id: c.id,
        title: c.title,
        p50Ms: Math.round(p50 * 10) / 10,
        totalCount: first.parcels.totalCount,
        estimate: first.parcels.totalCountIsEstimate,
        statements: first.sql,
      });
      process.stderr.write(`${c.id}: p50 ${Math.round(p50 * 10) / 10} ms\n`);
    }
    const result = {
      kind: 'grids',
      at: new Date().toISOString(),
      scale: o.scale,
      database: prepared.database,
      load1AtStart: loadAtStart,
      load1: load1(),
      requests,
      results,
    };
    const md = [
      `Parcel grid of the first portfolio, scale ${o.scale}, \`first: 50\` with totalCount, ${requests} sequential requests per case after 4 warm-up`,
      '',
      `${result.at}, Postgres ${prepared.database.version}, load average ${loadAtStart} at the start, ${result.load1} at the end`,
      '',
      '| case | p50 ms | totalCount | estimate | statements |',
      '|---|---:|---:|---|---:|',
      ...results.map(
        (r) => `| ${r.title} | ${r.p50Ms} | ${r.totalCount} | ${r.estimate} | ${r.statements} |`,
      ),
    ].join('\n');
    process.stdout.write(`\n${md}\n`);
    if (write) {
      const file = join(resultsDir, `grids-scale${o.scale}${label ? `-${label}` : ''}`);
      writeFileSync(`${file}.json`, `${JSON.stringify(result, null, 2)}\n`);
      writeFileSync(`${file}.md`, `# Grids at county scale\n\n${md}\n`);
      process.stderr.write(`results: ${file.replace(`${PACKAGE_ROOT}/`, '')}.{json,md}\n`);
    }
  } finally {
    await server.close();
  }
}
