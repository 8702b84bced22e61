/**
 * `npm run bench -- --aggregates`: issue 41's dashboard goal, on Postgres. Acres summed by parcel
 * status over the first portfolio of the bench dataset (100,000 parcels at scale 1), asked of the
 * gateway over HTTP one request at a time (one connection), against the very statement the gateway
 * sent, run raw through `pg` in the same process, in alternating rounds. The statement is taken
 * from the gateway's own `pg` client while it answers the warm-up requests (as bench/sql-capture.ts
 * does for the maps), so the floor cannot drift from the gateway's SQL; the raw answer is checked
 * equal to the gateway's before anything is timed.
 *
 * The status's statistics are created first, as `sdg schema index` would (statusStatistics).
 *
 * The gateway runs in this process (bench/in-process.ts): in-process is the only way to read the
 * statement off its `pg` client without a build.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { DB } from '../src/db/types.js';
import { groupStatisticsSql } from '../src/modules/records/index.js';
import { schemasByKeys } from '../src/modules/schema/index.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { inProcessGateway } from './in-process.js';
import { load1 } from './machine.js';
import { onStatements } from './pg-statements.js';
import { type BenchOptions, prepareDataset } from './runner.js';
import { median, r2 } from './stats.js';

export interface AggregatesBenchOptions {
  /** Alternating rounds; each times `requests` gateway requests, then as many raw runs. */
  rounds: number;
  requests: number;
}

/** The dashboard question: acres by parcel status, with the count of each group. */
export const ACRES_BY_STATUS = `query AcresByStatus($orgId: ID!, $portfolioId: ID!) {
  organization(id: $orgId) { portfolio(id: $portfolioId) { parcels(first: 0) {
    groupedAggregates(groupBy: [{ propertyId: "parcel-status" }]) {
      totalGroups truncated groups { keys { value label } aggregates { count acres: sum(field: ACRES) } }
    } } } } }`;

interface Captured {
  text: string;
  values: unknown[];
}

/** Records every statement this process's pg clients send while `on` is set. */
function captureStatements() {
  const sent: Captured[] = [];
  const state = { on: false };
  const restore = onStatements((text, values) => {
    if (state.on) sent.push({ text, values });
  });
  return { sent, state, restore };
}

/**
 * What `sdg schema index --kind parcel --id parcel-status` does: the statistics that tell Postgres
 * the status makes few groups, so that it plans the grouped scan on parallel workers.
 */
async function statusStatistics(db: Kysely<DB>, orgId: string): Promise<void> {
  const [schema] = await schemasByKeys(db, [{ orgId, kind: 'parcel' }]);
  const statistics = groupStatisticsSql('parcels', schema, 'parcel-status');
  if (!statistics) throw new Error('parcel-status is not a select property of the bench org');
  await statistics.create.execute(db);
  await statistics.analyze.execute(db);
}

export async function aggregatesCommand(
  o: BenchOptions,
  opts: AggregatesBenchOptions,
  resultsDir: string,
  label: string | undefined,
  write: boolean,
): Promise<void> {
  if (o.backend !== 'postgres') throw new Error('--aggregates runs on Postgres; drop --pglite.');
  const prepared = await prepareDataset(o);
  const url = prepared.serverEnv.DATABASE_URL;
  const orgId = prepared.dataset.orgId;
  const portfolioId = prepared.dataset.portfolioIds[0];
  const capture = captureStatements();
  const server = await inProcessGateway(url, prepared.fixture.apiKey);
  await statusStatistics(server.database.db as Kysely<DB>, orgId);
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  try {
    const body = JSON.stringify({ query: ACRES_BY_STATUS, variables: { orgId, portfolioId } });
    const ask = () => server.ask(body);
    // Warm-up, with the aggregate statement captured (the one that groups).
    capture.state.on = true;
    const first = await ask();
    capture.state.on = false;
    for (let i = 0; i < 4; i++) await ask();
    const statement = capture.sent.find((s) => /count\(\*\) over \(\)/.test(s.text));
    if (!statement) throw new Error('the grouped statement was not seen');
    const groups = first.json.data.organization.portfolio.parcels.groupedAggregates.groups as {
      keys: { value: string | null }[];
      aggregates: { count: number; acres: number | null };
    }[];
    const runRaw = async () => {
      const t = performance.now();
      const r = await raw.query(statement.text, statement.values as unknown[]);
      return { ms: performance.now() - t, rows: r.rows };
    };
    const check = await runRaw();
    const rawGroups = check.rows.map((r: any) => ({ key: r.k0 ?? null, count: r.n, acres: r.m0 }));
    const gwGroups = groups.map((g) => ({
      key: g.keys[0].value,
      count: g.aggregates.count,
      acres: g.aggregates.acres,
    }));
    if (JSON.stringify(rawGroups) !== JSON.stringify(gwGroups))
      throw new Error(`raw and gateway answers differ: ${JSON.stringify({ rawGroups, gwGroups })}`);
    const parcels = groups.reduce((s, g) => s + g.aggregates.count, 0);

    const gateway: number[] = [];
    const floor: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < opts.rounds; round++) {
      const g: number[] = [];
      const f: number[] = [];
      // Order swapped every round, so neither side always runs on a warmer cache.
      const sides = round % 2 ? ['raw', 'gateway'] : ['gateway', 'raw'];
      for (const side of sides)
        for (let i = 0; i < opts.requests; i++)
          if (side === 'gateway') g.push((await ask()).ms);
          else f.push((await runRaw()).ms);
      gateway.push(...g);
      floor.push(...f);
      ratios.push(median(g) / median(f));
      process.stderr.write(
        `round ${round + 1}: gateway p50 ${r2(median(g))} ms, raw p50 ${r2(median(f))} ms, ratio ${r2(median(g) / median(f))}\n`,
      );
    }
    const result = {
      kind: 'aggregates',
      at: new Date().toISOString(),
      scale: o.scale,
      database: prepared.database,
      load1: load1(),
      parcels,
      groups: groups.length,
      statementsPerRequest: first.sql,
      rounds: opts.rounds,
      requestsPerRound: opts.requests,
      gatewayP50Ms: r2(median(gateway)),
      rawP50Ms: r2(median(floor)),
      ratioOfP50s: r2(median(gateway) / median(floor)),
      medianRoundRatio: r2(median(ratios)),
      statement: statement.text,
    };
    const md = [
      `Acres summed by parcel status over ${parcels.toLocaleString('en-US')} parcels (${groups.length} groups), scale ${o.scale}, 1 connection, ${opts.rounds} rounds × ${opts.requests} requests`,
      '',
      `${result.at}, Postgres ${prepared.database.version}, load average ${result.load1} at the end of the run`,
      '',
      '| | p50 ms |',
      '|---|---:|',
      `| gateway (POST /graphql, ${first.sql} statements) | ${result.gatewayP50Ms} |`,
      `| the same SQL, raw | ${result.rawP50Ms} |`,
      `| ratio (median of rounds) | ${result.medianRoundRatio} |`,
    ].join('\n');
    process.stdout.write(`\n${md}\n`);
    if (write) {
      const file = join(resultsDir, `aggregates${label ? `-${label}` : ''}`);
      writeFileSync(`${file}.json`, `${JSON.stringify(result, null, 2)}\n`);
      writeFileSync(`${file}.md`, `# Dashboards: acres by parcel status\n\n${md}\n`);
      process.stderr.write(`results: ${file.replace(`${PACKAGE_ROOT}/`, '')}.{json,md}\n`);
    }
  } finally {
    capture.restore();
    await raw.end();
    await server.close();
  }
}
