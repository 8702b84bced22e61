import { writeRun } from './report.js';
import type { ScaleoutResults } from './scaleout.js';

const rate = (v: number) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1));

/** The scale-out results as markdown: the 2/1 ratios first, then every run with its core accounting. */
export function scaleoutMarkdown(r: ScaleoutResults): string {
  const m = r.machine;
  const o = r.options;
  const L: string[] = [];
  L.push(`## Scale-out: ${o.processes.join(' vs ')} gateway processes on one ${r.database.backend} database`);
  L.push('');
  L.push(
    `Run ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB RAM, Node ${m.node}; ` +
      `PostgreSQL ${r.database.version} on the same machine; 1-minute load average ${m.load1.start} before, ${m.load1.end} after. ` +
      `Dataset scale ${r.dataset.scale} (reads hit a portfolio of ${r.dataset.readPortfolioProjects.toLocaleString('en-US')} projects). ` +
      `Each run: ${o.warmup}s warm-up, then ${o.duration}s measured (the nested query: ${o.heavyRequestsPerConnection} requests per connection), ` +
      'the connections split evenly over the processes, one autocannon instance per process, all in the one load-generator process.',
  );
  L.push('');
  L.push('### Throughput ratio');
  L.push('');
  L.push(
    '"per gateway core" divides each run\'s req/s by the cores its gateway processes actually got, so it shows whether a process does less work per request when there are more of them (1.0 means no loss).',
  );
  L.push('');
  L.push('| Scenario | Conn | Processes | req/s ratio | per gateway core |');
  L.push('|---|---:|---|---:|---:|');
  for (const s of r.scenarios)
    for (const x of s.ratios)
      L.push(
        `| ${s.id}. ${s.title} | ${x.connections} | ${x.processes} ÷ ${o.processes[0]} | **${x.ratio.toFixed(2)}×** | ${x.perGatewayCore.toFixed(2)}× |`,
      );
  L.push('');
  L.push('### Runs, and where the cores went');
  L.push('');
  L.push(
    `Cores = CPU seconds ÷ wall seconds over the measured run (the machine has ${m.cores}). "Load gen" is the bench process running autocannon; "other" is busy CPU not charged to those processes.`,
  );
  L.push('');
  L.push(
    '| Scenario | Procs | Conn | req/s | p50 ms | p99 ms | Errors | Split | Gateways | Load gen | Postgres | Other | Idle | Gateway CPU ms/req | All CPU ms/req |',
  );
  L.push('|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const s of r.scenarios)
    for (const x of s.runs)
      L.push(
        `| ${s.id}. ${s.title} | ${x.processes} | ${x.connections} | ${rate(x.rps)} | ${x.latencyMs.p50} | ${x.latencyMs.p99} | ${x.errors} | ${x.perProcess.join(' / ')} | ${x.cores.gateways} | ${x.cores.loadGenerator} | ${x.cores.postgres} | ${x.cores.other} | ${x.cores.idle} | ${x.gatewayCpuMsPerRequest} | ${x.totalCpuMsPerRequest} |`,
      );
  L.push('');
  return L.join('\n');
}

/** Writes `<stamp>-scaleout-<backend>-s<scale>[-label]` (see writeRun), and unlabelled runs as `latest-scaleout-<backend>.*`. */
export function writeScaleout(r: ScaleoutResults, dir: string, label?: string): string[] {
  const stamp = r.startedAt.slice(0, 16).replace('T', '-').replace(':', '');
  const base = `${stamp}-scaleout-${r.database.backend}-s${r.dataset.scale}${label ? `-${label}` : ''}`;
  const latest = label ? undefined : `latest-scaleout-${r.database.backend}`;
  return writeRun(dir, base, latest, scaleoutMarkdown(r), `${JSON.stringify(r, null, 2)}\n`);
}
