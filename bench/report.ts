import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResults } from './runner.js';

const n0 = (v: number) => Math.round(v).toLocaleString('en-US');
/** req/s: whole numbers, but slow scenarios keep a decimal or two. */
const rate = (v: number) => (v >= 100 ? n0(v) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const kb = (v: number) =>
  v >= 10_000 ? `${(v / 1024).toFixed(0)} KB` : v >= 1024 ? `${(v / 1024).toFixed(1)} KB` : `${v} B`;
const mark = (p: boolean | null) => (p === null ? '–' : p ? '✅' : '❌');

/** The results as markdown: machine, dataset, headline ratios, targets, and every run. */
export function toMarkdown(r: BenchResults): string {
  const m = r.machine;
  const d = r.dataset;
  const c = d.counts;
  const L: string[] = [];
  L.push(`## Benchmark results — ${r.database.backend}, scale ${d.scale}`);
  L.push('');
  L.push(
    `Run ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB RAM, ${m.os}, Node ${m.node}; ` +
      `${r.database.backend === 'postgres' ? `PostgreSQL ${r.database.version}` : `PGlite (PostgreSQL ${r.database.version})`} on the same machine. ` +
      `Load generator, gateway, baseline and database share the ${m.cores} cores; 1-minute load average ${m.load1.start} before, ${m.load1.end} after.`,
  );
  L.push('');
  L.push(
    `Dataset: 1 org, ${d.portfolioIds.length} portfolios, ${n0(c.projects)} projects, ${n0(c.parcels)} parcels (with polygons), ${n0(c.contacts)} contacts, ` +
      `${n0(c.project_parcels + c.project_contacts + c.parcel_contacts)} links (${n0(c.project_parcels)} project–parcel, ${n0(c.project_contacts)} project–contact, ${n0(c.parcel_contacts)} parcel–contact); ` +
      `${r.database.reused ? 'reused' : 'seeded'} (seeding took ${d.seedSeconds}s). Reads hit portfolio 1 (${n0(Math.round(c.projects / d.portfolioIds.length))} projects).`,
  );
  L.push('');
  L.push(
    `Each run: ${r.options.warmup}s warm-up, then ${r.options.duration}s measured (the slow scenarios 3 and 7: one request per connection to warm up, then ${r.options.heavyRequestsPerConnection} per connection, at least ${6 * r.options.heavyRequestsPerConnection} in all, measured), autocannon with ${r.options.connections.join(' / ')} connections; the server is let go idle between runs. ` +
      `Gateway: \`${r.options.gateway}\` (NODE_ENV=production, LOG_LEVEL=warn). SQL statements come from the server's \`x-sql-statements\` header.`,
  );
  L.push('');

  const withBaseline = r.scenarios.filter((s) => s.runs.some((x) => x.ratio !== undefined));
  if (withBaseline.length) {
    L.push(
      '### Headline: gateway throughput ÷ raw baseline (node:http + pg, same SQL, the gateway’s JSON serializer)',
    );
    L.push('');
    L.push(
      `Each cell: req/s ratio (higher is better)${(r.options.rounds ?? 1) > 1 ? `, the median of ${r.options.rounds} alternating rounds with their range` : ''}, then in brackets how many times the baseline's server CPU time per request the gateway spends (lower is better; steadier than req/s on a busy machine).`,
    );
    L.push('');
    L.push(`| Scenario | ${r.options.connections.map((x) => `${x} conn`).join(' | ')} | target |`);
    L.push(`|---|${r.options.connections.map(() => '---:').join('|')}|---:|`);
    for (const s of withBaseline) {
      const cells = r.options.connections.map((cc) => {
        const run = s.runs.find((x) => x.connections === cc);
        if (run?.ratio === undefined) return '–';
        const range = run.roundRatios
          ? ` [${Math.min(...run.roundRatios).toFixed(2)}–${Math.max(...run.roundRatios).toFixed(2)}]`
          : '';
        return `**${run.ratio.toFixed(2)}×**${range}${run.cpuRatio !== undefined ? ` (cpu ${run.cpuRatio.toFixed(1)}×)` : ''}`;
      });
      L.push(`| ${s.id}. ${s.title} | ${cells.join(' | ')} | ${s.id === '7' ? '≥ 0.5×' : '≥ 0.6×'} |`);
    }
    L.push('');
  }

  L.push('### Targets');
  L.push('');
  L.push('| | Target | Measured |');
  L.push('|---|---|---|');
  for (const t of r.targets) L.push(`| ${mark(t.pass)} | ${t.target} | ${t.measured} |`);
  L.push('');

  L.push('### All runs');
  L.push('');
  L.push(
    '| Scenario | Server | Conn | req/s | p50 ms | p95 ms | p99 ms | Errors | SQL/req | Body | CPU ms/req | RSS start → peak |',
  );
  L.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const s of r.scenarios) {
    if (!s.runs.length) {
      L.push(
        `| ${s.id}. ${s.title} | gateway | probe | | ${s.probe.gateway.ms} | | | 0 | ${s.probe.gateway.sql ?? '–'} (cold ${s.probe.gateway.coldSql ?? '–'}) | ${kb(s.probe.gateway.bodyBytes)} | | |`,
      );
      continue;
    }
    for (const run of s.runs) {
      for (const [who, x] of [
        ['gateway', run.gateway],
        ['baseline', run.baseline],
      ] as const) {
        if (!x) continue;
        const sqlCell = x.sql
          ? x.sql.min === x.sql.max
            ? `${x.sql.max}`
            : `${x.sql.min}–${x.sql.max}`
          : '–';
        L.push(
          `| ${s.id}. ${s.title} | ${who} | ${run.connections} | ${rate(x.rps)} | ${x.latencyMs.p50} | ${x.latencyMs.p95} | ${x.latencyMs.p99} | ${x.errors} | ${sqlCell} | ${kb(x.bodyBytes)} | ${x.cpuMsPerRequest} | ${x.startRssMb} → ${x.peakRssMb} MB |`,
        );
      }
    }
  }
  L.push('');
  L.push(
    `Gateway peak RSS over all runs: ${r.servers.gatewayPeakRssMb} MB${r.servers.baselinePeakRssMb !== undefined ? `; baseline: ${r.servers.baselinePeakRssMb} MB` : ''}. ` +
      "RSS: resident set size when the measured run began, and its peak during the run (the kernel high-water mark VmHWM, reset before each run). Runs go light scenarios first and the 5000-item page last, since V8 keeps heap it has grown. Body is the mean Content-Length; CPU ms/req is the server process's user+system CPU time over the run divided by its requests.",
  );
  if (r.profile) {
    const b = r.profile.baseline;
    L.push('');
    L.push(
      `### CPU profile (\`--cpu-prof\`): gateway ${r.profile.busyMs} ms busy${b ? `, baseline ${b.busyMs} ms` : ''}`,
    );
    L.push('');
    L.push(`| Gateway self time | Area |${b ? ' Baseline self time | Area |' : ''}`);
    L.push(`|---:|---|${b ? '---:|---|' : ''}`);
    for (let i = 0; i < 15; i++) {
      const g = r.profile.byArea[i];
      const x = b?.byArea[i];
      if (!g && !x) break;
      L.push(
        `| ${g ? `${g.selfPct}%` : ''} | ${g?.area ?? ''} |${b ? ` ${x ? `${x.selfPct}%` : ''} | ${x?.area ?? ''} |` : ''}`,
      );
    }
  }
  L.push('');
  return L.join('\n');
}

/** Writes `<stamp>-<backend>-s<scale>[-label].{json,md}`, and unlabelled runs also as `latest-<backend>.{json,md}`. */
/**
 * Writes a run: its markdown report in `dir`, its raw JSON in `dir/raw` (git-ignored), and, for an
 * unlabelled run, both as `latest` in `dir`. Labelled runs (experiments, A/B) leave latest-* alone.
 */
export function writeRun(
  dir: string,
  base: string,
  latest: string | undefined,
  md: string,
  json: string,
): string[] {
  mkdirSync(join(dir, 'raw'), { recursive: true });
  const files = [join(dir, `${base}.md`), join(dir, 'raw', `${base}.json`)];
  writeFileSync(files[0], md);
  writeFileSync(files[1], json);
  if (latest) {
    files.push(join(dir, `${latest}.md`), join(dir, `${latest}.json`));
    writeFileSync(files[2], md);
    writeFileSync(files[3], json);
  }
  return files;
}

export function writeResults(r: BenchResults, dir: string, label?: string): string[] {
  mkdirSync(dir, { recursive: true });
  const stamp = r.startedAt.slice(0, 16).replace('T', '-').replace(':', ''); // 2026-01-31-1405
  const base = `${stamp}-${r.database.backend}-s${r.dataset.scale}${label ? `-${label}` : ''}`;
  const json = `${JSON.stringify(r, null, 2)}\n`;
  const md = toMarkdown(r);
  return writeRun(dir, base, label ? undefined : `latest-${r.database.backend}`, md, json);
}
