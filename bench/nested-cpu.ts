/**
 * CPU per nested request (scenario 7) of one or more gateway builds, for iterating on the nested
 * query while other work shares the machine (req/s is noise then; CPU time per request is not):
 *
 *   node dist/bench/nested-cpu.js [--db sdg_bench] [--scenario 7] [--requests 40] [--rounds 3] [--connections 1] [--limit n] [--prof dir] [--gc] <server.js> [other.js …]
 *
 * `dist/bench/baseline.js` among the builds runs the raw floor, sent its own form of the request.
 *
 * Each build runs as its own process on the (reused) bench dataset; their answers are first checked
 * equal to the first build's, then every round sends each build the same sequential requests and
 * reports its process's CPU ms per request and that of its own Postgres backends (by application_name).
 * With --gc, each build also runs under V8's --trace-gc-nvp, and every round says what its garbage
 * collector did per request (bench/gc-trace.ts): the part of the CPU that allocation drives.
 */

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import pg from 'pg';
import { PACKAGE_ROOT } from '../src/paths.js';
import { type GcTotals, gcTotals, perRequest } from './gc-trace.js';
import { paired, pairedText } from './paired.js';
import { cpuSeconds, freePort, ServerProcess } from './proc.js';
import { DEFAULTS, gatewayEnv, probe, reusedDataset, scenarioContext } from './runner.js';
import type { RequestSpec } from './scenarios.js';
import { SCENARIOS } from './scenarios.js';

const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    db: { type: 'string', default: DEFAULTS.dbName },
    /** Another read scenario's request instead (1: the first REST page, 2: a deep page). */
    scenario: { type: 'string', default: '7' },
    /**
     * With a REST page scenario (1, 2, 3): ask for this many items instead. Two runs, at 1 and at
     * 100, split a page's cost into what every request pays and what each item adds.
     */
    limit: { type: 'string' },
    requests: { type: 'string', default: '40' },
    /**
     * Requests in flight at once (each connection sends its share one after another): what a
     * build does with concurrent requests (overlapping lifetimes, a larger heap) is not what it
     * does with one at a time.
     */
    connections: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    /** Write each build's V8 CPU profile to this folder (summarize with dist/bench/profile.js, skipping start-up). */
    prof: { type: 'string' },
    /** Also report each round's garbage collections per request, from V8's --trace-gc-nvp. */
    gc: { type: 'boolean', default: false },
  },
});
/**
 * A build is its entry file, optionally followed by node flags, each after `@` (a path may hold an
 * `@`, a flag starts with `--`), so that V8 settings can be compared on one build:
 * `dist/src/server.js@--max-semi-space-size=32`.
 */
const entry = (build: string) => build.split('@--')[0];
const nodeFlags = (build: string) =>
  build
    .split('@--')
    .slice(1)
    .map((f) => `--${f}`);
/** Each build's log: its output, and with --gc V8's collection trace. */
const logOf = (i: number) => `/tmp/nested-cpu-${i}.log`;
const servers = positionals.length ? positionals : [join(PACKAGE_ROOT, 'dist/src/server.js')];
const prepared = await reusedDataset(o.db!);
/** One request as autocannon sends it: without Accept-Encoding (fetch would ask for gzip). */
async function send(url: string, apiKey: string, spec: RequestSpec) {
  const r = await fetch(url + spec.path, {
    method: spec.method,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'accept-encoding': 'identity' },
    body: spec.body,
  });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`status ${r.status}`);
}
/** The request with `--limit` in place of the scenario's own page size. */
function withLimit(spec: RequestSpec): RequestSpec {
  if (o.limit === undefined) return spec;
  const url = new URL(spec.path, 'http://x');
  if (!url.searchParams.has('limit')) throw new Error(`--limit: scenario ${o.scenario} is not a REST page`);
  url.searchParams.set('limit', o.limit);
  return { ...spec, path: url.pathname + url.search };
}
const procs: ServerProcess[] = [];
try {
  for (const [i, file] of servers.entries()) {
    const args = o.prof
      ? ['--cpu-prof', '--cpu-prof-dir', o.prof, '--cpu-prof-name', `nested-${i}.cpuprofile`]
      : [];
    if (o.gc) args.push('--trace-gc-nvp');
    const p = new ServerProcess(
      `gw${i}`,
      process.execPath,
      [...args, ...nodeFlags(file), entry(file)],
      { ...gatewayEnv(prepared.serverEnv), PGAPPNAME: `nested-cpu-${i}` },
      await freePort(),
      logOf(i),
    );
    procs.push(p);
    await p.ready();
  }
  const isFloor = (file: string) => entry(file).endsWith('baseline.js');
  const gateway = procs[servers.findIndex((f) => !isFloor(f))];
  if (!gateway) throw new Error('name a gateway build too: it finds the ids the requests read');
  const ctx = await scenarioContext(gateway.url, prepared);
  const scenario = SCENARIOS.find((s) => s.id === o.scenario);
  if (!scenario) throw new Error(`no scenario ${o.scenario}`);
  // The raw floor (bench/baseline.js) serves the same answer at its own path.
  const specs = servers.map((file) =>
    withLimit((isFloor(file) && scenario.baseline ? scenario.baseline : scenario.gateway)(ctx)(0)),
  );
  const first = await probe(procs[0].url, ctx.apiKey, specs[0]);
  for (const [i, p] of procs.entries()) {
    const r = await probe(p.url, ctx.apiKey, specs[i]);
    if (r.status !== 200 || !isDeepStrictEqual(r.body, first.body))
      throw new Error(`${servers[i]} answers differently from ${servers[0]} (status ${r.status})`);
    console.log(`${servers[i]}: equal answer, ${r.bodyBytes} bytes, ${r.sql} statements`);
  }
  const monitor = new pg.Client({ connectionString: prepared.serverEnv.DATABASE_URL });
  await monitor.connect();
  const backends = async (i: number) => {
    const { rows } = await monitor.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
      [`nested-cpu-${i}`],
    );
    return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid) ?? 0]));
  };
  const n = Number(o.requests);
  const conns = Math.max(1, Number(o.connections));
  /** n requests, `conns` at a time. */
  const load = async (url: string, spec: RequestSpec) => {
    let next = 0;
    const worker = async () => {
      while (next < n) {
        next++;
        await send(url, ctx.apiKey, spec);
      }
    };
    await Promise.all(Array.from({ length: conns }, worker));
  };
  const cpu: number[][] = procs.map(() => []);
  const promoted: number[][] = procs.map(() => []);
  for (let round = 0; round < Number(o.rounds); round++) {
    for (const [i, p] of procs.entries()) {
      for (let w = 0; w < (round === 0 ? 20 : 5); w++) await send(p.url, ctx.apiKey, specs[i]);
      await p.waitIdle();
      const pg0 = await backends(i);
      const traceAt = o.gc ? statSync(logOf(i)).size : 0;
      p.startWindow();
      const t = performance.now();
      await load(p.url, specs[i]);
      const ms = performance.now() - t;
      const { cpuSec, peakRssMb } = p.endWindow();
      let gc: GcTotals | undefined;
      if (o.gc) {
        // The trace reaches the log through a pipe: give the last lines a moment.
        await new Promise((r) => setTimeout(r, 200));
        gc = gcTotals(readFileSync(logOf(i), 'utf8').slice(traceAt));
        promoted[i].push(gc.promotedBytes / 1024 / n);
      }
      let pgSec = 0;
      for (const [pid, sec] of await backends(i)) pgSec += Math.max(0, sec - (pg0.get(pid) ?? 0));
      const pgMs = (pgSec * 1000) / n;
      cpu[i].push((cpuSec * 1000) / n);
      console.log(
        `round ${round + 1} ${servers[i]}: node ${((cpuSec * 1000) / n).toFixed(2)} ms + postgres ${pgMs.toFixed(2)} ms per request, ${(ms / n).toFixed(1)} ms wall, peak RSS ${peakRssMb.toFixed(0)} MB`,
      );
      if (gc) console.log(`  garbage collection per request: ${perRequest(gc, n)}`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  await monitor.end();
  for (const [i, xs] of cpu.entries())
    console.log(
      `median node CPU ${servers[i]}: ${median(xs).toFixed(2)} ms${o.gc ? `, promoted ${median(promoted[i]).toFixed(0)} KB per request` : ''}`,
    );
  // The steadier figure on a drifting machine: each build against the first, round by round
  // (round 1, which warms the builds up, left out when there are others).
  const measured = (xs: number[]) => (xs.length > 1 ? xs.slice(1) : xs);
  for (let i = 1; i < cpu.length; i++)
    console.log(
      `paired node CPU ${servers[i]} ÷ ${servers[0]}: ${pairedText(paired(measured(cpu[i]), measured(cpu[0])))}`,
    );
} finally {
  for (const p of procs) await p.stop();
}
