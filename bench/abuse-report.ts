import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AbuseResults, AttackResult } from './abuse.js';
import { isWsAttack, WEBHOOK_DELAY_GOAL_MS } from './abuse-ws.js';

const statuses = (s: Record<string, number>) =>
  Object.entries(s)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');

/** The goal an attack is held to, as the table shows it. */
function goalOf(a: AttackResult, goals: AbuseResults['goals']): string {
  if (a.id === 'silent-db') return '503 within 15 s, served again within 10 s';
  const base = `p99 ≤ ${goals.p99Ratio}×, RSS < ${goals.rssMb} MB`;
  return a.webhook ? `${base}, B's deliveries ≤ calm + ${WEBHOOK_DELAY_GOAL_MS / 1000} s` : base;
}

const delays = (d: NonNullable<AttackResult['webhook']>['calm']) =>
  `${d.delayMs.p50} / ${d.delayMs.p99} / ${d.delayMs.max} ms (${d.delivered} of ${d.writes} delivered${d.missing ? `, ${d.missing} not within ${d.waitedSec} s` : ''})`;

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
    '| attack | calm p50 / p99 | under attack p50 / p99 | p50 ÷ calm | p99 ÷ calm | RSS at start → peak | tenant answers | attacker answers | goal |',
    '|---|---:|---:|---:|---:|---:|---|---|---|',
  ];
  for (const a of r.attacks) {
    const extra =
      a.recoverySec !== undefined ? `; served again ${a.recoverySec} s after the path returned` : '';
    lines.push(
      `| ${a.title} | ${a.calm.latencyMs.p50} / ${a.calm.latencyMs.p99} ms | ${a.tenant.latencyMs.p50} / ${a.tenant.latencyMs.p99} ms | ${a.ratio.p50.toFixed(2)}× | ${a.ratio.p99.toFixed(2)}× | ${a.startRssMb !== undefined ? `${a.startRssMb} → ` : ''}${a.peakRssMb} MB | ${statuses(a.tenant.statuses)}${extra} | ${a.attacker ? `${a.attacker.requests.toLocaleString('en-US')}: ${statuses(a.attacker.statuses)}` : '—'} | ${goalOf(a, goals)}: ${a.goalMet ? 'met' : '**not met**'} |`,
    );
  }
  const hooks = r.attacks.filter((a) => a.webhook);
  if (hooks.length)
    lines.push(
      '',
      "The slow webhook tenant: org B's webhook delivery delay, from each write's response to its delivery (p50 / p99 / max; a delivery not in within the wait counts at the wait's length).",
      '',
      '| attack | calm | under attack | goal |',
      '|---|---|---|---|',
      ...hooks.map(
        (a) =>
          `| ${a.title} | ${delays(a.webhook!.calm)} | ${delays(a.webhook!.attack)} | ≤ calm + ${WEBHOOK_DELAY_GOAL_MS / 1000} s |`,
      ),
    );
  if (r.attacks.some((a) => isWsAttack(a.id)))
    lines.push(
      '',
      'The WebSocket attacks (issue 37) speak graphql-ws on `/graphql` with the key in `connection_init`. Their attacker column counts operations: *answered* (a first result), *refused* (an error coded RATE_LIMITED or OVERLOADED), *closed* (the server closed the socket with it in flight), *unanswered* (still in flight when the attacker stopped), *accepted* / *subscribed* (a subscription neither refused nor closed); `socket closed NNNN` and `socket refused (429)` count sockets, `error CODE` any other error. A refusal is the gateway defending itself, not a failure of the bench.',
    );
  lines.push(
    '',
    "Under the silent database the tenant cannot be served: its goal there is an answer (503) within the bounds of the timeouts, never a hang, and service again within seconds of the path returning, without a restart. Peak RSS is the kernel's high-water mark of the gateway process during the window; the HTTP attacks share one gateway process and each WebSocket attack starts a fresh one, so the RSS at a window's start is what ran before it on that process.",
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
