/**
 * `npm run bench -- --compression`: what response compression costs on scenario 1 (the REST first
 * page). Each level pair runs in its own gateway process; in that process the same load runs
 * without Accept-Encoding, with `gzip` and with `br`, so each ratio compares one process with
 * itself in the same run. Also reports the bytes on the wire per response.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import pg from 'pg';
import { runLoad } from './load.js';
import { load1, machineInfo } from './machine.js';
import { freePort, ServerProcess, waitDatabaseIdle } from './proc.js';
import {
  type BenchOptions,
  gatewayEnv,
  type PostgresBenchOptions,
  prepareDataset,
  scenarioContext,
} from './runner.js';
import { SCENARIOS } from './scenarios.js';
import { median, r2 } from './stats.js';

export type CompressionOptions = PostgresBenchOptions &
  Pick<BenchOptions, 'connections' | 'duration' | 'warmup'> & { levels: Level[]; rounds: number };

/** br quality, gzip level, and the largest answer compressed in one synchronous call (bytes). */
export interface Level {
  brotli: number;
  gzip: number;
  sync: number;
}

// The default (one-call compression up to 512 KB) against @fastify/compress's own choice on two
// cores (8 KB, so a scenario-1 page streams): the A/B of the change that met the 10% target.
export const COMPRESSION_LEVELS: Level[] = [
  { brotli: 1, gzip: 1, sync: 512 * 1024 },
  { brotli: 1, gzip: 1, sync: 8192 },
];

const ENCODINGS = ['identity', 'gzip', 'br'] as const;

interface Row extends Level {
  round: number;
  encoding: (typeof ENCODINGS)[number];
  connections: number;
  rps: number;
  p99: number;
  wireBytes: number;
  errors: number;
  /** rps ÷ the same process's identity rps at the same concurrency, in the same round. */
  ratio: number;
  /** Gateway CPU per response, ms: steadier than req/s on a shared machine. */
  cpuMsPerRequest: number;
  /** Identity's CPU per response ÷ this one's: the throughput ratio a CPU-bound gateway would show. */
  cpuRatio: number;
}

/** CPU ms to compress one body at a level, over many rounds: the cost compression adds per response. */
function compressCpu(body: Buffer) {
  const time = (f: () => Buffer) => {
    for (let i = 0; i < 20; i++) f();
    const t = process.cpuUsage();
    let bytes = 0;
    for (let i = 0; i < 300; i++) bytes = f().length;
    const u = process.cpuUsage(t);
    return { ms: Math.round(((u.user + u.system) / 1000 / 300) * 1000) / 1000, bytes };
  };
  return [
    ...[1, 2, 4, 6].map((q) => ({
      encoding: 'br',
      level: q,
      ...time(() => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: q } })),
    })),
    ...[1, 4, 6].map((l) => ({ encoding: 'gzip', level: l, ...time(() => gzipSync(body, { level: l })) })),
  ];
}

/**
 * One gateway process per level, all up at once; each round runs identity, gzip and br on every
 * process in turn, so a slow minute of the shared machine falls on all of them alike.
 */
export async function runCompression(o: CompressionOptions) {
  const startedAt = new Date().toISOString();
  mkdirSync(o.rawDir, { recursive: true });
  const loadAtStart = load1();
  const prepared = await prepareDataset({ ...o, backend: 'postgres', pgliteDir: '' });
  const monitor = new pg.Client({ connectionString: prepared.serverEnv.DATABASE_URL });
  await monitor.connect();
  const scenario = SCENARIOS.find((s) => s.id === '1')!;
  const rows: Row[] = [];
  let perPage: ReturnType<typeof compressCpu> = [];
  let pageBytes = 0;
  const servers: { level: Level; server: ServerProcess }[] = [];
  try {
    for (const level of o.levels) {
      const env = {
        ...gatewayEnv(prepared.serverEnv),
        COMPRESSION_BROTLI_QUALITY: String(level.brotli),
        COMPRESSION_GZIP_LEVEL: String(level.gzip),
        COMPRESSION_SYNC_MAX_BYTES: String(level.sync),
      };
      const server = new ServerProcess(
        `gateway br${level.brotli}/gz${level.gzip}/sync${level.sync}`,
        o.gateway.command,
        o.gateway.args,
        env,
        await freePort(),
        join(o.rawDir, `compression-gateway-${servers.length}.log`),
      );
      servers.push({ level, server });
      await server.ready();
    }
    const ctxs = await Promise.all(servers.map((s) => scenarioContext(s.server.url, prepared)));
    const nexts = ctxs.map((ctx) => scenario.gateway(ctx));
    {
      const page = await fetch(servers[0].server.url + nexts[0](0).path, {
        headers: { 'x-api-key': ctxs[0].apiKey },
      });
      const body = Buffer.from(await page.arrayBuffer());
      pageBytes = body.length;
      perPage = compressCpu(body);
    }
    for (let round = 1; round <= o.rounds; round++) {
      for (const [i, { level, server }] of servers.entries()) {
        const ctx = ctxs[i];
        const next = nexts[i];
        for (const c of o.connections) {
          let base = 0;
          let baseCpu = 0;
          for (const encoding of ENCODINGS) {
            const headers: Record<string, string> =
              encoding === 'identity' ? {} : { 'accept-encoding': encoding };
            const run = (duration: number) =>
              runLoad({ url: server.url, apiKey: ctx.apiKey, connections: c, duration, next, headers });
            if (o.warmup > 0) await run(o.warmup);
            await server.waitIdle();
            await waitDatabaseIdle(monitor);
            server.startWindow();
            const l = await run(o.duration);
            const { cpuSec } = server.endWindow();
            const cpuMs = l.requests ? r2((cpuSec * 1000) / l.requests) : 0;
            if (encoding === 'identity') {
              base = l.rps;
              baseCpu = cpuMs;
            }
            const row: Row = {
              ...level,
              round,
              encoding,
              connections: c,
              rps: l.rps,
              p99: l.latencyMs.p99,
              wireBytes: l.wireBytes,
              errors: l.errors,
              ratio: base ? r2(l.rps / base) : 0,
              cpuMsPerRequest: cpuMs,
              cpuRatio: cpuMs ? r2(baseCpu / cpuMs) : 0,
            };
            rows.push(row);
            if (!o.quiet)
              process.stderr.write(
                `  round ${round} br${level.brotli}/gz${level.gzip}/sync${level.sync} ${encoding.padEnd(8)} c=${String(c).padEnd(3)} ${String(row.rps).padStart(8)} req/s  ${row.ratio}×  cpu ${row.cpuMsPerRequest} ms/req (${row.cpuRatio}×)  p99 ${row.p99}ms  ${row.wireBytes} B/response  errors ${row.errors}\n`,
              );
          }
        }
      }
    }
  } finally {
    for (const { server } of servers) await server.stop();
    await monitor.end();
  }
  // Medians over the rounds, per level, encoding and concurrency. A group exists only once a row
  // is in it, so no median here is of an empty list and none needs a figure for one.
  const key = (x: Row) => `${x.brotli}/${x.gzip}/${x.sync}/${x.encoding}/${x.connections}`;
  const groups = new Map<string, Row[]>();
  for (const x of rows) groups.set(key(x), [...(groups.get(key(x)) ?? []), x]);
  const medians = [...groups.values()].map((g) => ({
    ...g[0],
    rounds: g.length,
    rps: median(g.map((x) => x.rps)),
    ratio: r2(median(g.map((x) => x.ratio))),
    cpuMsPerRequest: r2(median(g.map((x) => x.cpuMsPerRequest))),
    cpuRatio: r2(median(g.map((x) => x.cpuRatio))),
  }));
  return {
    kind: 'compression' as const,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(loadAtStart),
    loadAtEnd: load1(),
    dataset: { scale: prepared.dataset.scale },
    options: { connections: o.connections, duration: o.duration, warmup: o.warmup, rounds: o.rounds },
    pageBytes,
    perPage,
    rows,
    medians,
  };
}

export type CompressionResults = Awaited<ReturnType<typeof runCompression>>;

export function compressionMarkdown(r: CompressionResults): string {
  const lines = [
    `# Compression cost on scenario 1 (REST first page, limit=100)`,
    '',
    `${r.startedAt} – ${r.finishedAt}; scale ${r.dataset.scale}; ${r.options.warmup} s warm-up + ${r.options.duration} s per run; machine: ${JSON.stringify(r.machine)}`,
    '',
    `${r.options.rounds} alternating rounds (every process, then the next round); load average ${r.machine.load1.start} at the start, ${r.loadAtEnd} at the end. sync = the largest answer compressed in one synchronous call (COMPRESSION_SYNC_MAX_BYTES).`,
    '',
    'ratio = req/s with this encoding ÷ req/s without Accept-Encoding, same gateway process, same concurrency, same round.',
    'CPU ratio = gateway CPU per response without compression ÷ with it (the throughput ratio of a CPU-bound gateway; steadier on a shared machine).',
    '',
    `Compressing one scenario-1 page (${r.pageBytes} bytes) in the bench process, CPU per page:`,
    '',
    '| encoding | level | CPU ms | bytes |',
    '|---|---:|---:|---:|',
    ...r.perPage.map((x) => `| ${x.encoding} | ${x.level} | ${x.ms} | ${x.bytes} |`),
    '',
    'Medians over the rounds:',
    '',
    '| br / gzip / sync | encoding | connections | req/s | ratio | CPU ms/response | CPU ratio |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...r.medians.map(
      (x) =>
        `| ${x.brotli} / ${x.gzip} / ${x.sync} | ${x.encoding} | ${x.connections} | ${x.rps} | ${x.ratio}× | ${x.cpuMsPerRequest} | ${x.cpuRatio}× |`,
    ),
    '',
    'Every run:',
    '',
    '| round | br / gzip / sync | encoding | connections | req/s | ratio | CPU ms/response | CPU ratio | p99 ms | bytes/response | errors |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map(
      (x) =>
        `| ${x.round} | ${x.brotli} / ${x.gzip} / ${x.sync} | ${x.encoding} | ${x.connections} | ${x.rps} | ${x.ratio}× | ${x.cpuMsPerRequest} | ${x.cpuRatio}× | ${x.p99} | ${x.wireBytes} | ${x.errors} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

export function writeCompression(r: CompressionResults, dir: string, label?: string): string[] {
  const t = r.startedAt;
  const name = `${t.slice(0, 10)}-${t.slice(11, 13)}${t.slice(14, 16)}-compression-postgres-s${r.dataset.scale}${label ? `-${label}` : ''}`;
  const md = join(dir, `${name}.md`);
  writeFileSync(md, compressionMarkdown(r));
  mkdirSync(join(dir, 'raw'), { recursive: true });
  const raw = join(dir, 'raw', `${name}.json`);
  writeFileSync(raw, JSON.stringify(r, null, 2));
  return [md, raw];
}
