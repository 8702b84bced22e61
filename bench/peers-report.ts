import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import {
  NESTED_RUNNERS,
  type NestedRatio,
  PEER_SCENARIOS,
  PEER_SERVERS,
  PEERS_DEFAULTS,
  type PeerMedians,
  type PeerRunner,
  type PeersResults,
  REST_RUNNERS,
  runPeers,
} from './peers.js';
import type { BenchOptions } from './runner.js';

const x2 = (v: number) => `${v.toFixed(2)}×`;
const rate = (v: number) => (v >= 100 ? Math.round(v).toString() : v.toFixed(1));
const LABEL: Record<PeerRunner, string> = {
  gateway: 'gateway (typed values)',
  gatewayRaw: 'gateway (raw properties)',
  postgraphile: 'PostGraphile',
  floor: 'raw floor',
  oneStatement: 'one-statement floor',
};
const REST_LABEL: Record<PeerRunner, string> = { ...LABEL, gateway: 'gateway' };

/** A table of one figure per runner and concurrency (the medians of the rounds). */
function mediansTable(
  L: string[],
  levels: { connections: number; medians: Partial<Record<PeerRunner, PeerMedians>> }[],
  runners: PeerRunner[],
  labels: Record<PeerRunner, string>,
  cell: (m: PeerMedians) => string,
) {
  L.push(`| server | ${levels.map((l) => `${l.connections} conn`).join(' | ')} |`);
  L.push(`|---|${levels.map(() => '---:').join('|')}|`);
  for (const who of runners)
    L.push(
      `| ${labels[who]} | ${levels.map((l) => (l.medians[who] ? cell(l.medians[who]) : '–')).join(' | ')} |`,
    );
}

const cpuCell = (x: PeerMedians) =>
  `${x.totalCpuMsPerRequest.toFixed(1)} ms (node ${x.nodeCpuMsPerRequest.toFixed(1)} + pg ${x.pgCpuMsPerRequest.toFixed(1)})`;
const rateCell = (x: PeerMedians) => `${rate(x.rps)} req/s, p50 ${Math.round(x.p50Ms)} ms, ${x.peakRssMb} MB`;

/** The peer comparison as markdown: ratios with their spread, CPU per request, memory, every round. */
export function peersMarkdown(r: PeersResults): string {
  const m = r.machine;
  const levels = r.scenarios[0]?.runs ?? [];
  const conns = r.options.connections;
  const L: string[] = [];
  L.push(
    `## Nested query and REST pages: gateway, PostGraphile ${r.versions.postgraphile}, the raw floor and the one-statement floor — scale ${r.dataset.scale}`,
  );
  L.push('');
  L.push(
    `Run ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB RAM; every server on Node ${r.versions.node}, ` +
      `PostgreSQL ${r.database.version} on the same machine, sharing the cores with the load generator; 1-minute load average ${m.load1.start} before, ${m.load1.end} after. ` +
      `${r.dataset.readPortfolioProjects.toLocaleString('en-US')} projects in the portfolio read. ` +
      `${r.options.rounds} rounds per concurrency, each server once per round in a rotating order; a run is ${r.options.warmupRequests}+ warm-up requests, then max(${r.options.requestsPerConnection} × connections, ${r.options.minRequests}) measured ` +
      `(${r.options.lightFactor} times both on the light REST pages 1 and 2).`,
  );
  L.push('');
  L.push(
    'The one-statement floor (bench/one-statement.ts) answers each request with ONE statement in which Postgres builds the whole response text (bench/one-statement-sql.ts: JSON text by concatenation and string_agg over LATERAL pages, cursors signed with sha256; prepared, generic plans, no JIT), passed to the client unparsed; ' +
      "the API-key lookup and its stamp are in the same statement, and the labels are read by it each time (the gateway caches them per org version). It answers the nested query with raw `properties`, so it is compared with the gateway asked the same (`vsOneStatement`); the gateway's typed values are compared with it too (`typedVsOneStatement`).",
  );
  const p = r.probe;
  if (p) {
    L.push('');
    const e = p.equality;
    L.push(
      `Answers checked before any load: PostGraphile's and the gateway's are ${e.equal ? 'equal' : `**different** (${e.difference})`} over ${e.counts.projects} projects, ${e.counts.contacts} contacts and ${e.counts.parcels} parcels ` +
        `(same rows, same order, same stored values; cursors and the gateway's labels left out, see bench/peers-equal.ts); the raw floor's JSON is ${p.floorEqualsGateway ? 'identical to' : '**not** identical to'} the gateway's; ` +
        `the one-statement floor's JSON is ${p.oneStatementEqualsGateway ? 'identical to' : '**not** identical to'} the gateway's answer with raw properties (cursors and labels included). ` +
        `SQL statements per request: gateway ${p.gateway?.sql ?? '–'} (its API-key lookup included), with raw properties ${p.gatewayRaw?.sql ?? '–'}, PostGraphile ${p.postgraphile?.sql ?? '–'} (no authentication), raw floor ${p.floor?.sql ?? '–'}, one-statement floor ${p.oneStatement?.sql ?? '–'}. ` +
        `Body: gateway ${Math.round((p.gateway?.bodyBytes ?? 0) / 1024)} KB, with raw properties ${Math.round((p.gatewayRaw?.bodyBytes ?? 0) / 1024)} KB, PostGraphile ${Math.round((p.postgraphile?.bodyBytes ?? 0) / 1024)} KB, one-statement floor ${Math.round((p.oneStatement?.bodyBytes ?? 0) / 1024)} KB.`,
    );
  }
  if (levels.length) {
    L.push('');
    L.push('### Nested query: ratio of req/s (median of the rounds, [min–max])');
    L.push('');
    L.push(`| | ${levels.map((l) => `${l.connections} conn`).join(' | ')} |`);
    L.push(`|---|${levels.map(() => '---:').join('|')}|`);
    const row = (title: string, k: NestedRatio) =>
      L.push(
        `| ${title} | ${levels.map((l) => `**${x2(l[k])}** [${l.spread[k][0].toFixed(2)}–${l.spread[k][1].toFixed(2)}]`).join(' | ')} |`,
      );
    row('gateway ÷ PostGraphile (typed values, `vsPostgraphile`)', 'vsPostgraphile');
    row('gateway ÷ raw floor (typed values)', 'vsFloor');
    row('PostGraphile ÷ raw floor', 'postgraphileVsFloor');
    row('gateway ÷ one-statement floor (raw properties, `vsOneStatement`)', 'vsOneStatement');
    row('gateway ÷ one-statement floor (typed values, `typedVsOneStatement`)', 'typedVsOneStatement');
    row('PostGraphile ÷ one-statement floor', 'postgraphileVsOneStatement');
    L.push('');
    L.push(
      '### Nested query: CPU per request (median of the rounds): server process + its Postgres backends',
    );
    L.push('');
    mediansTable(L, levels, NESTED_RUNNERS, LABEL, cpuCell);
    L.push('');
    L.push(
      "Node: the server's user + system CPU time (/proc/<pid>/stat) over the measured run; pg: the same for the Postgres backends whose application_name is the server's (PGAPPNAME); both divided by the run's successful requests.",
    );
    L.push('');
    L.push(
      '### Nested query: throughput, latency and memory (median req/s and p50; peak RSS over the rounds)',
    );
    L.push('');
    mediansTable(L, levels, NESTED_RUNNERS, LABEL, rateCell);
  }
  if (r.rest.length) {
    L.push('');
    L.push('### REST pages: gateway ÷ one-statement floor (median of the rounds, [min–max])');
    L.push('');
    L.push(`| page | ${conns.map((c) => `${c} conn`).join(' | ')} |`);
    L.push(`|---|${conns.map(() => '---:').join('|')}|`);
    for (const page of r.rest)
      L.push(
        `| ${page.id}: ${page.title} (\`vsOneStatement\`) | ${page.runs.map((l) => `**${x2(l.vsOneStatement)}** [${l.spread.vsOneStatement[0].toFixed(2)}–${l.spread.vsOneStatement[1].toFixed(2)}]`).join(' | ')} |`,
      );
    L.push('');
    L.push(
      `Answers checked before any load: ${r.rest.map((page) => `page ${page.id} (${page.probe.items} items${page.probe.nextKey ? ', nextKey' : ''}) ${page.probe.equal ? 'identical' : '**different**'}`).join(', ')}; ` +
        `SQL statements per request: ${r.rest.map((page) => `page ${page.id} gateway ${page.probe.gateway.sql ?? '–'}, floor ${page.probe.oneStatement.sql ?? '–'}`).join('; ')}.`,
    );
    for (const page of r.rest) {
      L.push('');
      L.push(`#### ${page.id}: ${page.title}`);
      L.push('');
      mediansTable(L, page.runs, REST_RUNNERS, REST_LABEL, (x) => `${rateCell(x)}; ${cpuCell(x)}`);
    }
  }
  L.push('');
  L.push('### Every run');
  L.push('');
  L.push(
    '| scenario | conn | round | server | req/s | p50 ms | p99 ms | errors | node ms/req | pg ms/req | RSS start → peak | other cores |',
  );
  L.push('|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  const all = [
    ...levels.map((l) => ({ id: '7', l })),
    ...r.rest.flatMap((page) => page.runs.map((l) => ({ id: page.id, l }))),
  ];
  for (const { id, l } of all)
    for (const x of l.runs)
      L.push(
        `| ${id} | ${x.connections} | ${x.round} | ${x.server} | ${rate(x.rps)} | ${x.latencyMs.p50} | ${x.latencyMs.p99} | ${x.errors} | ${x.nodeCpuMsPerRequest} | ${x.pgCpuMsPerRequest} | ${x.startRssMb} → ${x.peakRssMb} MB | ${x.otherCores} |`,
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
  if (o.only.some((id) => !PEER_SCENARIOS.includes(id)))
    throw new Error(
      `--peers compares the nested query (7) and the REST pages (1, 2, 3); drop --only or pick among ${PEER_SCENARIOS.join(', ')}.`,
    );
  const d = cli.smoke
    ? { ...PEERS_DEFAULTS, minRequests: 4, warmupRequests: 2 }
    : cli.quick
      ? { ...PEERS_DEFAULTS, ...PEERS_DEFAULTS.quick }
      : PEERS_DEFAULTS;
  const r = await runPeers({
    ...o,
    oneStatementServer: {
      command: process.execPath,
      args: cli.smoke
        ? ['--import', 'tsx', join(PACKAGE_ROOT, 'bench/one-statement.ts')]
        : [join(PACKAGE_ROOT, 'dist/bench/one-statement.js')],
    },
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
