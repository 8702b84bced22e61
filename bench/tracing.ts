/**
 * `npm run bench -- --tracing`: the cost of OpenTelemetry tracing at 100% sampling. Two gateway
 * processes on one database, one with tracing off (the default) and one with OTEL_* set (OTLP over
 * HTTP to a sink in this process, OTEL_TRACES_SAMPLER=always_on), take turns on scenarios 1 and 7,
 * the order swapped every round; the ratio is traced ÷ untraced throughput of the same round.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { load1 } from './machine.js';
import { offOnRounds } from './off-on.js';
import { freePort, ServerProcess } from './proc.js';
import { type BenchOptions, gatewayEnv, prepareDataset, scenarioContext } from './runner.js';
import { SCENARIOS } from './scenarios.js';
import { median, r2 } from './stats.js';

/** An OTLP/HTTP endpoint that takes every export and counts the spans in it. */
async function otlpSink() {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      spans += Buffer.concat(chunks).toString().split('"spanId"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

export async function tracingCommand(o: BenchOptions, rounds: number, label?: string, write = true) {
  if (o.backend !== 'postgres')
    throw new Error('--tracing runs two gateways on one database: Postgres only.');
  mkdirSync(o.rawDir, { recursive: true });
  const prepared = await prepareDataset(o);
  const sink = await otlpSink();
  const base = gatewayEnv(prepared.serverEnv);
  const traced = {
    ...base,
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_SERVICE_NAME: 'sdg-bench',
  };
  const stamp0 = new Date().toISOString().replace(/[-:.TZ]/g, '');
  // --cpu-prof: a V8 profile of each gateway (bench/results/raw/profiles), to see where tracing's cost goes.
  const profArgs = (name: string) =>
    o.cpuProf
      ? [
          '--cpu-prof',
          '--cpu-prof-dir',
          join(o.rawDir, 'profiles'),
          '--cpu-prof-name',
          `${stamp0}-tracing-${name}.cpuprofile`,
        ]
      : [];
  const start = async (name: string, env: Record<string, string>) => {
    const s = new ServerProcess(
      name,
      o.gateway.command,
      [...profArgs(name), ...o.gateway.args],
      env,
      await freePort(),
      join(o.rawDir, `tracing-${name}.log`),
    );
    await s.ready();
    return s;
  };
  const servers = { off: await start('off', base), on: await start('on', traced) };
  const loadAtStart = load1();
  const scenarios = SCENARIOS.filter((s) => (o.only.length ? o.only : ['1', '7']).includes(s.id));
  const rows: {
    scenario: string;
    connections: number;
    off: number[];
    on: number[];
    ratios: number[];
    /** Gateway CPU ms per request, off and on, and on ÷ off: steadier than req/s on a shared machine. */
    cpuOff: number[];
    cpuOn: number[];
    cpuRatios: number[];
    errors: number;
  }[] = [];
  try {
    const ctx = await scenarioContext(servers.off.url, prepared);
    for (const s of scenarios) {
      const next = s.gateway(ctx);
      const amount = (c: number) => (s.heavy ? o.heavyRequestsPerConnection * Math.max(c, 3) : undefined);
      for (const c of o.connections) {
        const row = {
          scenario: `${s.id}. ${s.title}`,
          connections: c,
          off: [] as number[],
          on: [] as number[],
          ratios: [] as number[],
          cpuOff: [] as number[],
          cpuOn: [] as number[],
          cpuRatios: [] as number[],
          errors: 0,
        };
        const load = {
          apiKey: ctx.apiKey,
          connections: c,
          next,
          warmup: o.warmup,
          duration: o.duration,
          warmupAmount: s.heavy ? c : undefined,
          amount: amount(c),
        };
        await offOnRounds(servers, load, rounds, (r, runs) => {
          const got = { off: runs.off.load.rps, on: runs.on.load.rps };
          const cpu = { off: runs.off.cpuMsPerRequest, on: runs.on.cpuMsPerRequest };
          row.errors += runs.off.load.errors + runs.on.load.errors;
          row.cpuOff.push(r2(cpu.off));
          row.cpuOn.push(r2(cpu.on));
          row.cpuRatios.push(r2(cpu.on / cpu.off));
          row.off.push(r2(got.off));
          row.on.push(r2(got.on));
          row.ratios.push(r2(got.on / got.off));
          process.stderr.write(
            `  ${s.id} c=${c} round ${r + 1}: off ${r2(got.off)} req/s, on ${r2(got.on)} req/s, ratio ${r2(got.on / got.off)}; CPU ms/request off ${r2(cpu.off)}, on ${r2(cpu.on)}\n`,
          );
        });
        rows.push(row);
      }
    }
  } finally {
    await servers.off.stop();
    await servers.on.stop();
    await sink.close();
  }
  const spans = sink.spans();
  const lines = [
    `# Tracing overhead (${new Date().toISOString()})`,
    '',
    `Scale ${o.scale}, ${rounds} alternating rounds of ${o.duration} s per level (heavy scenario: ${o.heavyRequestsPerConnection} requests per connection), load average ${loadAtStart} at start. Tracing on: OTLP/HTTP to a sink in the bench process, \`OTEL_TRACES_SAMPLER=always_on\`; the sink received ${spans} spans.`,
    '',
    '| scenario | conn | off req/s (median) | on req/s (median) | req/s on ÷ off, median [min–max] | gateway CPU ms/request off / on (median) | CPU on ÷ off, median [min–max] | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.connections} | ${r2(median(r.off))} | ${r2(median(r.on))} | ${r2(median(r.ratios))} [${Math.min(...r.ratios)}–${Math.max(...r.ratios)}] | ${r2(median(r.cpuOff))} / ${r2(median(r.cpuOn))} | ${r2(median(r.cpuRatios))} [${Math.min(...r.cpuRatios)}–${Math.max(...r.cpuRatios)}] | ${r.errors} |`,
    ),
  ];
  const md = lines.join('\n');
  process.stdout.write(`\n${md}\n`);
  if (write) {
    const stamp = new Date().toISOString().slice(0, 16).replace('T', '-').replace(':', '');
    const file = join(o.rawDir, '..', `${stamp}-tracing-postgres-s${o.scale}${label ? `-${label}` : ''}.md`);
    writeFileSync(file, `${md}\n`);
    writeFileSync(
      join(o.rawDir, `${stamp}-tracing.json`),
      JSON.stringify({ rows, spans, loadAtStart }, null, 2),
    );
    process.stderr.write(`results: ${file}\n`);
  }
}
