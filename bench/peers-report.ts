import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { PEER_SERVERS, PEERS_DEFAULTS, type PeersResults, runPeers } from './peers.js';
import type { BenchOptions } from './runner.js';

const x2 = (v: number) => `${v.toFixed(2)}×`;
const rate = (v: number) => (v >= 100 ? Math.round(v).toString() : v.toFixed(1));
const LABEL = {
  gateway: 'gateway (typed values)',
  postgraphile: 'PostGraphile',
  floor: 'raw floor',
} as const;

/** The peer comparison as markdown: ratios with their spread, CPU per request, memory, every round. */
export function peersMarkdown(r: PeersResults): string {
  const m = r.machine;
  const levels = r.scenarios[0].runs;
  const conns = levels.map((l) => l.connections);
  const L: string[] = [];
  L.push(
    `## Nested query: gateway, PostGraphile ${r.versions.postgraphile} and the raw floor — scale ${r.dataset.scale}`,
  );
  L.push('');
  L.push(
    `Run ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB RAM; all three servers on Node ${r.versions.node}, ` +
      `PostgreSQL ${r.database.version} on the same machine, sharing the cores with the load generator; 1-minute load average ${m.load1.start} before, ${m.load1.end} after. ` +
      `${r.dataset.readPortfolioProjects.toLocaleString('en-US')} projects in the portfolio read. ` +
      `${r.options.rounds} rounds per concurrency, each server once per round in a rotating order; a run is ${r.options.warmupRequests}+ warm-up requests, then max(${r.options.requestsPerConnection} × connections, ${r.options.minRequests}) measured.`,
  );
  L.push('');
  const e = r.probe.equality;
  L.push(
    `Answers checked before any load: PostGraphile's and the gateway's are ${e.equal ? 'equal' : `**different** (${e.difference})`} over ${e.counts.projects} projects, ${e.counts.contacts} contacts and ${e.counts.parcels} parcels ` +
      `(same rows, same order, same stored values; cursors and the gateway's labels left out, see bench/peers-equal.ts); the floor's JSON is ${r.probe.floorEqualsGateway ? 'identical to' : '**not** identical to'} the gateway's. ` +
      `SQL statements per request: gateway ${r.probe.gateway.sql ?? '–'} (its API-key lookup included), PostGraphile ${r.probe.postgraphile.sql ?? '–'} (no authentication), floor ${r.probe.floor.sql ?? '–'}. ` +
      `Body: gateway ${Math.round(r.probe.gateway.bodyBytes / 1024)} KB, PostGraphile ${Math.round(r.probe.postgraphile.bodyBytes / 1024)} KB.`,
  );
  L.push('');
  L.push('### Ratio of req/s (median of the rounds, [min–max])');
  L.push('');
  L.push(`| | ${conns.map((c) => `${c} conn`).join(' | ')} |`);
  L.push(`|---|${conns.map(() => '---:').join('|')}|`);
  const row = (title: string, k: 'vsPostgraphile' | 'vsFloor' | 'postgraphileVsFloor') =>
    L.push(
      `| ${title} | ${levels.map((l) => `**${x2(l[k])}** [${l.spread[k][0].toFixed(2)}–${l.spread[k][1].toFixed(2)}]`).join(' | ')} |`,
    );
  row('gateway ÷ PostGraphile (`vsPostgraphile`)', 'vsPostgraphile');
  row('gateway ÷ raw floor', 'vsFloor');
  row('PostGraphile ÷ raw floor', 'postgraphileVsFloor');
  L.push('');
  L.push('### CPU per request (median of the rounds): server process + its Postgres backends');
  L.push('');
  L.push(`| server | ${conns.map((c) => `${c} conn`).join(' | ')} |`);
  L.push(`|---|${conns.map(() => '---:').join('|')}|`);
  for (const who of PEER_SERVERS) {
    L.push(
      `| ${LABEL[who]} | ${levels
        .map((l) => {
          const x = l.medians[who];
          return `${x.totalCpuMsPerRequest.toFixed(1)} ms (node ${x.nodeCpuMsPerRequest.toFixed(1)} + pg ${x.pgCpuMsPerRequest.toFixed(1)})`;
        })
        .join(' | ')} |`,
    );
  }
  L.push('');
  L.push(
    "Node: the server's user + system CPU time (/proc/<pid>/stat) over the measured run; pg: the same for the Postgres backends whose application_name is the server's (PGAPPNAME); both divided by the run's successful requests.",
  );
  L.push('');
  L.push('### Throughput, latency and memory (median req/s and p50; peak RSS over the rounds)');
  L.push('');
  L.push(`| server | ${conns.map((c) => `${c} conn`).join(' | ')} |`);
  L.push(`|---|${conns.map(() => '---:').join('|')}|`);
  for (const who of PEER_SERVERS)
    L.push(
      `| ${LABEL[who]} | ${levels.map((l) => `${rate(l.medians[who].rps)} req/s, p50 ${Math.round(l.medians[who].p50Ms)} ms, ${l.medians[who].peakRssMb} MB`).join(' | ')} |`,
    );
  L.push('');
  L.push('### Every run');
  L.push('');
  L.push(
    '| conn | round | server | req/s | p50 ms | p99 ms | errors | node ms/req | pg ms/req | RSS start → peak | other cores |',
  );
  L.push('|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const l of levels)
    for (const x of l.runs)
      L.push(
        `| ${x.connections} | ${x.round} | ${x.server} | ${rate(x.rps)} | ${x.latencyMs.p50} | ${x.latencyMs.p99} | ${x.errors} | ${x.nodeCpuMsPerRequest} | ${x.pgCpuMsPerRequest} | ${x.startRssMb} → ${x.peakRssMb} MB | ${x.otherCores} |`,
      );
  L.push('');
  L.push(
    `"Other cores": CPU the rest of the machine used during the run (other processes, the kernel), in cores. Busiest other processes over the whole comparison: ${r.otherProcesses.map((p) => `${p.name} ${p.cpuSec}s`).join(', ') || 'none'}.`,
  );
  if (r.profiles) {
    L.push('');
    L.push('### CPU profiles (`--cpu-prof`, start-up left out), self time by stage');
    L.push('');
    for (const who of PEER_SERVERS) {
      const p = r.profiles[who];
      if (p)
        L.push(
          `- ${LABEL[who]} (${p.busyMs} ms busy, \`${p.file}\`): ${p.byStage
            .slice(0, 10)
            .map((a) => `${a.stage} ${a.selfPct}%`)
            .join(', ')}`,
        );
    }
  }
  L.push('');
  return L.join('\n');
}

/** Writes `<stamp>-peers-postgres-s<scale>[-label].{md,json}`: one summary and one JSON per run. */
export function writePeers(r: PeersResults, dir: string, label?: string): string[] {
  mkdirSync(dir, { recursive: true });
  const stamp = r.startedAt.slice(0, 16).replace('T', '-').replace(':', '');
  const base = join(
    dir,
    `${stamp}-peers-${r.database.backend}-s${r.dataset.scale}${label ? `-${label}` : ''}`,
  );
  writeFileSync(`${base}.md`, peersMarkdown(r));
  writeFileSync(`${base}.json`, `${JSON.stringify(r, null, 2)}\n`);
  return [`${base}.md`, `${base}.json`];
}

/** `npm run bench -- --peers`: the comparison with the command line's options, printed and written. */
export async function peersCommand(
  o: BenchOptions,
  cli: {
    rounds?: number;
    quick: boolean;
    /** The smoke test's miniature: a handful of requests per run. */
    smoke: boolean;
    requestsPerConnection?: number;
    label?: string;
    write: boolean;
  },
): Promise<void> {
  if (o.backend !== 'postgres')
    throw new Error('--peers needs Postgres: PostGraphile cannot open a PGlite database. Drop --pglite.');
  if (o.only.some((id) => id !== '7'))
    throw new Error('--peers compares the nested query (scenario 7) only; drop --only or pass --only 7.');
  const d = cli.smoke
    ? { ...PEERS_DEFAULTS, minRequests: 4, warmupRequests: 2 }
    : cli.quick
      ? { ...PEERS_DEFAULTS, ...PEERS_DEFAULTS.quick }
      : PEERS_DEFAULTS;
  const r = await runPeers({
    ...o,
    rounds: cli.rounds ?? d.rounds,
    requestsPerConnection: cli.requestsPerConnection ?? d.requestsPerConnection,
    minRequests: d.minRequests,
    warmupRequests: d.warmupRequests,
  });
  process.stdout.write(`\n${peersMarkdown(r)}\n`);
  if (cli.write) {
    const files = writePeers(r, dirname(o.rawDir), cli.label);
    process.stderr.write(`results: ${files.map((f) => f.replace(`${PACKAGE_ROOT}/`, '')).join(', ')}\n`);
  }
}
