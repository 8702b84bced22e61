import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { dropBenchDatabase, runBenchCli } from './helpers/bench-cli.js';
import { onCitus } from './helpers/citus.js';
import { dropCitusDatabase } from './helpers/citus-cluster.js';

/**
 * `npm run bench` in miniature, so the benchmark cannot rot: the bench runs as its own process
 * (from sources, `--smoke`), seeds scale 0.01 on the backend this test run uses, starts the gateway
 * and the raw baseline, and drives every scenario briefly. It checks that everything answers, not
 * how fast.
 */
test('the benchmark seeds, serves every scenario without errors and reports', {
  timeout: 240_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdg-bench-smoke-'));
  const url = process.env.DATABASE_URL;
  const dbName = `sdg_bench_smoke_${process.pid}`;
  try {
    const { json: r, md } = await runBenchCli([
      ...(url ? ['--db', dbName] : ['--pglite', '--pglite-dir', join(dir, 'pglite')]),
      ...['--scale', '0.01', '--reseed', '--connections', '2', '--duration', '0.5', '--warmup', '0'],
      ...['--heavy-requests', '1', '--filters'],
    ]);
    expect(r.dataset.counts.projects).toBe(1000);
    expect(r.dataset.counts.parcels).toBe(3000);
    const ids = r.scenarios.map((s: { id: string }) => s.id);
    expect(ids).toEqual(['1', '2', '3', '4', '5a', '5b', '6', '7', '7@10', '8', 'f1', 'f2', 'f3', 'f4']);
    for (const s of r.scenarios) {
      expect(s.probe.gateway.status, s.id).toBe(200);
      expect(s.probe.gateway.sql, s.id).toBeGreaterThan(0);
      if (s.id === '7@10') continue;
      expect(s.runs.length, s.id).toBe(1);
      const run = s.runs[0];
      expect(run.gateway.requests, s.id).toBeGreaterThan(0);
      expect(run.gateway.errors, s.id).toBe(0);
      expect(run.gateway.sql, s.id).not.toBeNull();
      expect(run.gateway.peakRssMb, s.id).toBeGreaterThan(0);
      if (['1', '2', '3', '7'].includes(s.id)) {
        // The raw baseline must answer exactly what the gateway answers, or the ratio means nothing.
        expect(s.probe.bodiesEqual, s.id).toBe(true);
        // …and do no more database work, or it is no floor: when the gateway's SQL changes, change bench/baseline.ts.
        expect(s.probe.baseline?.sql, s.id).toBeLessThanOrEqual(s.probe.gateway.sql!);
        expect(run.baseline?.errors, s.id).toBe(0);
        expect(run.ratio, s.id).toBeGreaterThan(0);
      }
    }
    expect(r.targets.length).toBeGreaterThan(5);
    expect(md).toContain('Headline');
    expect(md).toContain('| 7. GraphQL nested');
    expect(r.dataset.scale).toBe(0.01);
  } finally {
    if (url) await dropBenchDatabase(url, dbName);
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * `npm run bench -- --scaleout` in miniature (Postgres only: two processes cannot share PGlite):
 * the load really reaches both processes, and every run accounts for the machine's cores.
 */
test.skipIf(!process.env.DATABASE_URL)(
  'the scale-out bench splits the load over 1 and then 2 gateways and accounts for the cores',
  { timeout: 240_000 },
  async () => {
    const url = process.env.DATABASE_URL!;
    const dbName = `sdg_bench_scaleout_${process.pid}`;
    try {
      const { json: r, md } = await runBenchCli([
        ...['--scaleout', '--db', dbName, '--scale', '0.01', '--reseed', '--connections', '2'],
        ...[
          '--duration',
          '0.5',
          '--warmup',
          '0',
          '--heavy-requests',
          '1',
          '--processes',
          '1,2',
          '--only',
          '1,7',
        ],
      ]);
      expect(r.scenarios.map((s: { id: string }) => s.id)).toEqual(['1', '7']);
      for (const s of r.scenarios) {
        expect(
          s.runs.map((x: { processes: number }) => x.processes),
          s.id,
        ).toEqual([1, 2]);
        for (const run of s.runs) {
          expect(run.errors, s.id).toBe(0);
          expect(run.perProcess.length, s.id).toBe(run.processes);
          // Seen once at 0 with no error (2026-11-23, not reproduced): the message keeps the whole run.
          for (const n of run.perProcess) expect(n, `${s.id}: ${JSON.stringify(run)}`).toBeGreaterThan(0);
          // Read in clock ticks of 10 ms per process: on a smoke run this short, Postgres's work is
          // spread over backends that can each stay under one tick (seen on Citus, with its workers'
          // backends); the gateways' and the load generator's cannot.
          expect(run.cores.gateways, s.id).toBeGreaterThan(0);
          expect(run.cores.postgres, s.id).toBeGreaterThanOrEqual(0);
          expect(run.cores.loadGenerator, s.id).toBeGreaterThan(0);
        }
        expect(s.ratios.length, s.id).toBe(1);
        expect(s.ratios[0].ratio, s.id).toBeGreaterThan(0);
      }
      expect(md).toContain('### Throughput ratio');
      expect(md).toContain('| 7. GraphQL nested');
    } finally {
      await dropBenchDatabase(url, dbName);
    }
  },
);

/**
 * `npm run bench -- --scaleout --citus` in miniature (the Citus pass only, `npm run test:citus`):
 * both sides seed and answer every scenario, database CPU is found on each side, and a write
 * counts more statements on the cluster (its change-log entry is a statement of its own there).
 */
test.skipIf(!onCitus)(
  'the distribution bench runs the same scenarios on the cluster and on a single PostgreSQL',
  { timeout: 300_000 },
  async () => {
    const url = process.env.DATABASE_URL!;
    const dbName = `sdg_bench_dist_${process.pid}`;
    try {
      const { json: r, md } = await runBenchCli(
        [
          ...['--scaleout', '--citus', '--db', dbName, '--scale', '0.01', '--reseed', '--connections', '1'],
          ...[
            '--duration',
            '0.5',
            '--warmup',
            '0',
            '--heavy-requests',
            '1',
            '--only',
            '1,7,5a',
            '--rounds',
            '2',
          ],
        ],
        { CITUS_URL: url, SINGLE_URL: url },
      );
      expect(r.rows.map((x: { scenario: string }) => x.scenario)).toEqual(['1', '5a', '7']);
      for (const row of r.rows)
        for (const side of ['single', 'cluster'] as const) {
          expect(row[side], `${row.scenario} ${side}`).toHaveLength(2);
          for (const x of row[side]) {
            expect(x.errors, `${row.scenario} ${side}`).toBe(0);
            expect(x.rps, `${row.scenario} ${side}`).toBeGreaterThan(0);
            expect(x.statements, `${row.scenario} ${side}`).toBeGreaterThan(0);
          }
        }
      const write = r.rows.find((x: { scenario: string }) => x.scenario === '5a');
      expect(write.cluster[0].statements).toBeGreaterThan(write.single[0].statements);
      expect(
        r.rows.some((row: { cluster: { workerCpu?: number }[] }) =>
          row.cluster.some((x) => (x.workerCpu ?? 0) > 0),
        ),
      ).toBe(true);
      expect(md).toContain('| 5a. REST POST /projects/v1 |');
    } finally {
      await dropCitusDatabase(url, dbName);
      await dropBenchDatabase(url, `${dbName}_single`);
    }
  },
);
