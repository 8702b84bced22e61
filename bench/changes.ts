/**
 * `npm run bench -- --changes`: the costs of issue 15's change feed, on Postgres.
 *
 * (a) Write path, change log on against off: scenarios 5a, 5b and 8 on two gateway processes on one
 *     database, taking turns (order swapped every round), as in bench/tracing.ts. "Off" is the build
 *     before the change log (commit `--base-commit`, default the main commit the change log was
 *     merged onto), extracted with `git archive` to a folder under the OS temp dir and built there
 *     with this checkout's node_modules; "on" is this build. The bench database is migrated by this
 *     build, so the old build starts with its migration step replaced by a no-op (it would refuse the
 *     newer migrations it does not know); it reads and writes only tables it knows. Everything else
 *     merged between the two commits is in the difference too: the report names both commits.
 * (b) Fan-out: 1,000 subscriptions (`recordChanged` on the write portfolio, one WebSocket each,
 *     10 keys) split over 2 gateway processes; writes go to the first; the latency from each write's
 *     acknowledgement (its HTTP response at the client) to each subscriber receiving its event.
 * (c) Webhook delivery throughput: a backlog of writes made while no process delivers, then 1 and
 *     then 2 delivering processes drain it to a local receiver (node:http, 200 at once).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { PACKAGE_ROOT } from '../src/paths.js';
import { percentile, runLoad } from './load.js';
import { load1 } from './machine.js';
import { offOnRounds } from './off-on.js';
import { freePort, ServerProcess } from './proc.js';
import {
  type BenchOptions,
  gatewayEnv,
  type PreparedDataset,
  prepareDataset,
  scenarioContext,
} from './runner.js';
import { SCENARIOS } from './scenarios.js';
import { median, r2 } from './stats.js';

// The write-path table prints medians to hundredths, and its CPU ratio divides the printed figures.
const r2Median = (xs: number[]) => r2(median(xs));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The main commit issue 15's change log was merged onto (the merge b86ae62's first parent). */
export const DEFAULT_BASE_COMMIT = '44483f99de3e5d23bd48486beecc47ed10edfb10';

export interface ChangesBenchOptions {
  rounds: number;
  baseCommit: string;
  subscriptions: number;
  fanoutWrites: number;
  /** Pause between the fan-out's writes, ms. */
  fanoutGapMs: number;
  webhookBacklog: number;
  /** Which parts: a (writes), b (fan-out), c (webhooks). */
  parts: string[];
}

/** The old build's server entry, built once per commit under the OS temp dir. */
function oldBuild(commit: string, log: (s: string) => void): string {
  const sha = execFileSync('git', ['rev-parse', commit], { cwd: PACKAGE_ROOT }).toString().trim();
  const dir = join(tmpdir(), `sdg-bench-build-${sha.slice(0, 12)}`);
  const entry = join(dir, 'dist/src/server.js');
  if (existsSync(entry)) return entry;
  log(`building ${sha.slice(0, 12)} in ${dir} …`);
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C '${dir}'`], { cwd: PACKAGE_ROOT });
  if (!existsSync(join(dir, 'node_modules')))
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(dir, 'node_modules'));
  try {
    execFileSync(
      process.execPath,
      [join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: dir,
        stdio: 'pipe',
      },
    );
  } catch (err) {
    // Type errors against today's dependencies still emit JavaScript; a missing entry is fatal below.
    log(
      `tsc reported errors for the old build (it still emits): ${String((err as { stdout?: Buffer }).stdout ?? '').slice(0, 300)}`,
    );
  }
  if (existsSync(join(dir, 'scripts/build-graphiql.mjs')))
    execFileSync(process.execPath, ['scripts/build-graphiql.mjs'], { cwd: dir, stdio: 'pipe' });
  writeFileSync(
    join(dir, 'dist/src/db/migrate.js'),
    '// bench/changes.ts: the bench database is migrated by the newer build.\nexport async function migrateToLatest() { return []; }\n',
  );
  if (!existsSync(entry)) throw new Error(`the old build has no ${entry}`);
  return entry;
}

async function start(o: BenchOptions, name: string, args: string[], env: Record<string, string>) {
  const s = new ServerProcess(
    name,
    process.execPath,
    args,
    env,
    await freePort(),
    join(o.rawDir, `changes-${name}.log`),
  );
  await s.ready();
  return s;
}

interface WriteRow {
  scenario: string;
  connections: number;
  off: number[];
  on: number[];
  p99Off: number[];
  p99On: number[];
  cpuOff: number[];
  cpuOn: number[];
  errors: number;
}

async function writePath(o: BenchOptions, c: ChangesBenchOptions, prepared: PreparedDataset, md: string[]) {
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const oldEntry = oldBuild(c.baseCommit, log);
  const env = gatewayEnv(prepared.serverEnv);
  const servers = {
    off: await start(o, 'log-off', [oldEntry], env),
    on: await start(o, 'log-on', o.gateway.args, env),
  };
  const rows: WriteRow[] = [];
  try {
    const ctx = await scenarioContext(servers.on.url, prepared);
    for (const s of SCENARIOS.filter((x) => ['5a', '5b', '8'].includes(x.id))) {
      const next = s.gateway(ctx);
      for (const conn of o.connections) {
        const row: WriteRow = {
          scenario: `${s.id}. ${s.title}`,
          connections: conn,
          off: [],
          on: [],
          p99Off: [],
          p99On: [],
          cpuOff: [],
          cpuOn: [],
          errors: 0,
        };
        await offOnRounds(
          servers,
          { apiKey: ctx.apiKey, connections: conn, next, warmup: o.warmup, duration: o.duration },
          c.rounds,
          (r, runs) => {
            for (const which of ['off', 'on'] as const) {
              const { load, cpuMsPerRequest } = runs[which];
              row[which].push(r2(load.rps));
              row[which === 'on' ? 'p99On' : 'p99Off'].push(r2(load.latencyMs.p99));
              row[which === 'on' ? 'cpuOn' : 'cpuOff'].push(r2(cpuMsPerRequest));
              row.errors += load.errors;
            }
            log(`  ${s.id} c=${conn} round ${r + 1}: off ${row.off.at(-1)} req/s, on ${row.on.at(-1)} req/s`);
          },
        );
        rows.push(row);
      }
    }
  } finally {
    await servers.off.stop();
    await servers.on.stop();
  }
  md.push(
    '## (a) Write path: change log on ÷ off',
    '',
    `Off: commit \`${c.baseCommit.slice(0, 12)}\` (before the change log); on: this build (\`${gitHead()}\`). ${c.rounds} alternating rounds of ${o.duration} s per level after ${o.warmup} s warm-up each. Goal: on within 15% of off.`,
    '',
    '| scenario | conn | off req/s | on req/s | on ÷ off req/s (median [min–max]) | p99 ms off / on | CPU ms/request off / on | CPU on ÷ off | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const ratios = r.on.map((v, i) => r2(v / r.off[i]));
      return `| ${r.scenario} | ${r.connections} | ${r2Median(r.off)} | ${r2Median(r.on)} | ${r2Median(ratios)} [${Math.min(...ratios)}–${Math.max(...ratios)}] | ${r2Median(r.p99Off)} / ${r2Median(r.p99On)} | ${r2Median(r.cpuOff)} / ${r2Median(r.cpuOn)} | ${r2(r2Median(r.cpuOn) / r2Median(r.cpuOff))} | ${r.errors} |`;
    }),
    '',
  );
  return rows;
}

const gitHead = () =>
  execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: PACKAGE_ROOT }).toString().trim();

async function gql(url: string, key: string, query: string, variables: Record<string, unknown>) {
  const r = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await r.json()) as { data?: any; errors?: unknown[] };
  if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors).slice(0, 300)}`);
  return body.data;
}

/** More API keys of the bench owner: each key may hold 100 subscriptions. */
async function extraKeys(prepared: PreparedDataset, n: number): Promise<string[]> {
  const { createDatabase } = await import('../src/db/database.js');
  const { createApiKey } = await import('../src/modules/auth/index.js');
  const { findViewerByKey } = await import('../src/modules/auth/index.js');
  const env = prepared.serverEnv;
  const database = await createDatabase({ url: env.DATABASE_URL, dataDir: env.SDG_DATA_DIR });
  try {
    const viewer = await findViewerByKey(database.db, prepared.fixture.apiKey);
    if (!viewer) throw new Error('the bench key does not authenticate');
    const keys: string[] = [];
    for (let i = 0; i < n; i++)
      keys.push((await createApiKey(database.db, viewer.userId, `bench-changes-${i}`)).apiKey);
    return keys;
  } finally {
    await database.close();
  }
}

async function fanOut(o: BenchOptions, c: ChangesBenchOptions, prepared: PreparedDataset, md: string[]) {
  const env = { ...gatewayEnv(prepared.serverEnv), WEBHOOK_DELIVERY: '0' };
  const servers = [
    await start(o, 'fanout-1', o.gateway.args, env),
    await start(o, 'fanout-2', o.gateway.args, env),
  ];
  const keys = await extraKeys(prepared, Math.ceil(c.subscriptions / 100));
  const ctx = await scenarioContext(servers[0].url, prepared);
  const pf = ctx.scratchPortfolioId;
  const target = ctx.writeProjectIds[0];
  const received = new Map<number, number[]>();
  const clients: ReturnType<typeof createClient>[] = [];
  let open = 0;
  try {
    for (let i = 0; i < c.subscriptions; i++) {
      const url = `${servers[i % 2].url.replace('http', 'ws')}/graphql`;
      const client = createClient({
        url,
        webSocketImpl: WebSocket,
        connectionParams: { apiKey: keys[Math.floor(i / 100)] },
        retryAttempts: 0,
        lazy: false,
        keepAlive: 0,
      });
      clients.push(client);
      client.subscribe(
        {
          query: `subscription ($pf: ID!) { recordChanged(portfolioId: $pf, kinds: [PROJECT]) { recordId properties { propertyId stored } } }`,
          variables: { pf },
        },
        {
          next: (v) => {
            const at = performance.now();
            const ch = (v.data as any)?.recordChanged;
            const n = ch?.properties?.find((p: any) => p.propertyId === 'capacity_mw')?.stored?.after?.number;
            if (ch?.recordId === target && typeof n === 'number') {
              const list = received.get(n) ?? [];
              list.push(at);
              received.set(n, list);
            }
          },
          error: () => {},
          complete: () => {},
        },
      );
      // Let the sockets open at a pace the loaded machine takes.
      if (i % 50 === 49) await sleep(100);
    }
    // Wait until every subscription is live: a probe write is seen by all.
    const probeValue = 900_000;
    const put = (n: number) =>
      fetch(`${servers[0].url}/projects/v1/${target}?orgId=${ctx.orgId}&portfolioId=${pf}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-api-key': ctx.apiKey },
        body: JSON.stringify({ properties: { capacity_mw: { number: n } } }),
      });
    const deadline = Date.now() + 120_000;
    for (let k = 0; (received.get(probeValue + k - 1)?.length ?? 0) < c.subscriptions; k++) {
      if (Date.now() > deadline)
        throw new Error(`only ${received.get(probeValue + k - 1)?.length ?? 0} subscriptions live`);
      await put(probeValue + k);
      await sleep(2_000);
    }
    open = c.subscriptions;
    const lat: number[] = [];
    const ackAt = new Map<number, number>();
    const loadAt = load1();
    for (let w = 1; w <= c.fanoutWrites; w++) {
      const r = await put(w);
      ackAt.set(w, performance.now());
      if (r.status !== 200) throw new Error(`write answered ${r.status}`);
      await sleep(c.fanoutGapMs);
    }
    // Stragglers: wait until every subscriber has every write, or 60 s.
    const all = () => [...ackAt.keys()].every((w) => (received.get(w)?.length ?? 0) >= c.subscriptions);
    for (const end = Date.now() + 60_000; !all() && Date.now() < end; ) await sleep(250);
    let missing = 0;
    for (const [w, ack] of ackAt) {
      const got = received.get(w) ?? [];
      missing += c.subscriptions - got.length;
      for (const t of got) lat.push(t - ack);
    }
    const sorted = Float64Array.from(lat).sort();
    md.push(
      '## (b) Fan-out: write acknowledged → event at each subscriber',
      '',
      `${open} subscriptions (one WebSocket each, ${keys.length} keys) split evenly over 2 gateway processes; ${c.fanoutWrites} writes, ${c.fanoutGapMs} ms apart, to the first process; events not in within 60 s of the last write count as missing. Latency from the write's HTTP response at the client to each subscriber's event (negative when the event came before the response). Load average ${loadAt} at the start of the writes.`,
      '',
      '| deliveries | missing | p50 ms | p90 ms | p99 ms | max ms |',
      '|---:|---:|---:|---:|---:|---:|',
      `| ${lat.length} | ${missing} | ${r2(percentile(sorted, 50))} | ${r2(percentile(sorted, 90))} | ${r2(percentile(sorted, 99))} | ${r2(sorted.at(-1) ?? Number.NaN)} |`,
      '',
    );
    return { deliveries: lat.length, missing, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  } finally {
    await Promise.all(clients.map((cl) => cl.dispose()));
    for (const s of servers) await s.stop();
  }
}

async function webhooks(o: BenchOptions, c: ChangesBenchOptions, prepared: PreparedDataset, md: string[]) {
  let got = 0;
  const ids = new Set<string>();
  const rx = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got++;
      ids.add(String(req.headers['sdg-delivery-id']));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
  const rxUrl = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/hook`;
  const base = {
    ...gatewayEnv(prepared.serverEnv),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    WEBHOOK_POLL_MS: '200',
  };
  const rows: { processes: number; deliveries: number; seconds: number; perSecond: number; load: number }[] =
    [];
  const writer = await start(o, 'webhook-writer', o.gateway.args, { ...base, WEBHOOK_DELIVERY: '0' });
  try {
    const ctx = await scenarioContext(writer.url, prepared);
    const made = await gql(
      writer.url,
      ctx.apiKey,
      `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`,
      {
        input: {
          organizationId: ctx.orgId,
          url: rxUrl,
          events: ['project.updated'],
          portfolioIds: [ctx.scratchPortfolioId],
        },
      },
    );
    const endpointId = made.createWebhookEndpoint.endpoint.id as string;
    const s5b = SCENARIOS.find((s) => s.id === '5b')!;
    for (const processes of [1, 2]) {
      // The backlog: writes while nothing delivers.
      const before = got;
      const res = await runLoad({
        url: writer.url,
        apiKey: ctx.apiKey,
        connections: 16,
        duration: 3600,
        amount: c.webhookBacklog,
        next: s5b.gateway(ctx),
      });
      const backlog = res.requests;
      const loadAt = load1();
      const t0 = performance.now();
      const senders = await Promise.all(
        Array.from({ length: processes }, (_, i) =>
          start(o, `webhook-sender-${i + 1}`, o.gateway.args, base),
        ),
      );
      try {
        const deadline = Date.now() + 300_000;
        while (got - before < backlog && Date.now() < deadline) await sleep(20);
      } finally {
        for (const s of senders) await s.stop();
      }
      // Start-up is inside the window: the senders start after the backlog exists.
      const seconds = (performance.now() - t0) / 1000;
      rows.push({
        processes,
        deliveries: got - before,
        seconds: r2(seconds),
        perSecond: r2((got - before) / seconds),
        load: loadAt,
      });
      process.stderr.write(
        `  webhooks: ${processes} process(es) delivered ${got - before}/${backlog} in ${r2(seconds)} s\n`,
      );
    }
    await gql(
      writer.url,
      ctx.apiKey,
      `mutation ($id: ID!) { deleteWebhookEndpoint(input: { id: $id }) { deletedId } }`,
      {
        id: endpointId,
      },
    );
  } finally {
    await writer.stop();
    await new Promise((r) => rx.close(r));
  }
  md.push(
    '## (c) Webhook delivery throughput',
    '',
    `A backlog of ${c.webhookBacklog} \`project.updated\` changes written while no process delivers (\`WEBHOOK_DELIVERY=0\`), then 1, then 2 fresh gateway processes (default \`WEBHOOK_CONCURRENCY\` 16 each) drain it to a node:http receiver on 127.0.0.1 answering 200 at once. The time includes the processes' start-up (about a second). ${ids.size} distinct delivery ids, ${got} requests.`,
    '',
    '| delivering processes | deliveries | seconds | deliveries/s | load average at start |',
    '|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.processes} | ${r.deliveries} | ${r.seconds} | ${r.perSecond} | ${r.load} |`),
    '',
  );
  return rows;
}

export async function changesCommand(o: BenchOptions, c: ChangesBenchOptions, label?: string, write = true) {
  if (o.backend !== 'postgres')
    throw new Error('--changes runs several gateways on one database: Postgres only.');
  mkdirSync(o.rawDir, { recursive: true });
  const prepared = await prepareDataset(o);
  const loadAtStart = load1();
  const md: string[] = [
    `# Change feed costs (${new Date().toISOString()})`,
    '',
    `Scale ${o.scale} on Postgres, load average ${loadAtStart} at start on a 2-core machine shared with other work: the numbers are indicative only.`,
    '',
  ];
  const json: Record<string, unknown> = { loadAtStart, options: c };
  if (c.parts.includes('a')) json.writes = await writePath(o, c, prepared, md);
  if (c.parts.includes('b')) json.fanOut = await fanOut(o, c, prepared, md);
  if (c.parts.includes('c')) json.webhooks = await webhooks(o, c, prepared, md);
  const text = md.join('\n');
  process.stdout.write(`\n${text}\n`);
  if (write) {
    const stamp = new Date().toISOString().slice(0, 16).replace('T', '-').replace(':', '');
    const file = join(o.rawDir, '..', `${stamp}-changes-postgres-s${o.scale}${label ? `-${label}` : ''}.md`);
    writeFileSync(file, `${text}\n`);
    writeFileSync(join(o.rawDir, `${stamp}-changes.json`), JSON.stringify(json, null, 2));
    process.stderr.write(`results: ${file}\n`);
  }
}
