import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AbuseResults } from './abuse.js';

const statuses = (s: Record<string, number>) =>
  Object.entries(s)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');

/** One readable page: the tenant's latency under each attack as a ratio to calm, and the gateway's peak RSS. */
export function abuseMarkdown(r: AbuseResults): string {
  const { goals } = r;
  const lines = [
    `# Abuse benchmark, ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Gateway in production mode with ${r.options.keyLimit ? 'the default rate limits' : 'the per-key rate limit lifted (as if the attacker held many keys; the per-address limit stays)'}, on Postgres through a TCP proxy; dataset scale ${r.options.scale} (${r.dataset.projects.toLocaleString('en-US')} projects). A well-behaved tenant reads a REST first page (\`limit=100\`) at ${r.options.tenantRate} req/s, open loop, for ${r.options.duration} s per window while one attacker (its own process, its own key) floods the gateway. Goal (issue 12): the tenant's p99 within ${goals.p99Ratio}× of calm and the gateway's RSS under ${goals.rssMb} MB under every attack.`,
    '',
    `Machine: ${r.machine.cores} × ${r.machine.cpu}, ${r.machine.memoryGb} GB, Node ${r.machine.node}; 1-minute load ${r.machine.load1.start} at the start, ${r.machine.load1.end} at the end (other work shares these cores).`,
    '',
    `Each attack window follows a calm window of the tenant alone; ratios compare the two. The first calm window: p50 ${r.calm.latencyMs.p50} ms, p99 ${r.calm.latencyMs.p99} ms, RSS ${r.calm.peakRssMb} MB; the last, after every attack: p50 ${r.calmAfter.latencyMs.p50} ms, p99 ${r.calmAfter.latencyMs.p99} ms, RSS ${r.calmAfter.peakRssMb} MB.`,
    '',
    '| attack | calm p50 / p99 | under attack p50 / p99 | p50 ÷ calm | p99 ÷ calm | peak RSS | tenant answers | attacker answers | goal |',
    '|---|---:|---:|---:|---:|---:|---|---|---|',
  ];
  for (const a of r.attacks) {
    const extra =
      a.recoverySec !== undefined ? `; served again ${a.recoverySec} s after the path returned` : '';
    lines.push(
      `| ${a.title} | ${a.calm.latencyMs.p50} / ${a.calm.latencyMs.p99} ms | ${a.tenant.latencyMs.p50} / ${a.tenant.latencyMs.p99} ms | ${a.ratio.p50.toFixed(2)}× | ${a.ratio.p99.toFixed(2)}× | ${a.peakRssMb} MB | ${statuses(a.tenant.statuses)}${extra} | ${a.attacker ? `${a.attacker.requests.toLocaleString('en-US')}: ${statuses(a.attacker.statuses)}` : '—'} | ${a.goalMet ? 'met' : '**missed**'} |`,
    );
  }
  lines.push(
    '',
    "Under the silent database the tenant cannot be served: its goal there is an answer (503) within the bounds of the timeouts, never a hang, and service again within seconds of the path returning, without a restart. Peak RSS is the kernel's high-water mark of the gateway process during the window.",
  );
  return `${lines.join('\n')}\n`;
}

/** `bench/results/<stamp>-abuse-postgres-s<scale>[-label].{md,json}`. */
export function writeAbuse(r: AbuseResults, dir: string, label?: string): string[] {
  const stamp = r.startedAt.slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  const mode = r.options.keyLimit ? '' : '-unlimited-key';
  const base = join(
    dir,
    `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6)}-abuse${mode}-postgres-s${r.options.scale}${label ? `-${label}` : ''}`,
  );
  writeFileSync(`${base}.json`, `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(`${base}.md`, abuseMarkdown(r));
  return [`${base}.md`, `${base}.json`];
}
