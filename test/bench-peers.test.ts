import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { PACKAGE_ROOT } from '../src/paths.js';
import { dropBenchDatabase, runBenchCli } from './helpers/bench-cli.js';

/**
 * `npm run bench -- --peers` in miniature: scale 0.01, one round at 2 connections, the three servers
 * on bench/peers' Node 22. It cannot pass unless PostGraphile answered the nested query, its answer
 * was compared with the gateway's over real rows, and every server served load. It never installs
 * bench/peers (that downloads PostGraphile and a Node binary): `npm ci --prefix bench/peers` does.
 */
const skip = !process.env.DATABASE_URL
  ? 'needs Postgres (DATABASE_URL): PostGraphile cannot open PGlite'
  : !existsSync(join(PACKAGE_ROOT, 'bench/peers/node_modules/.bin/node'))
    ? 'bench/peers is not installed; run `npm ci --prefix bench/peers` to include it'
    : undefined;

test.skipIf(skip)(
  `the peer bench checks PostGraphile's and the floors' answers equal to the gateway's and measures every server${skip ? ` (skipped: ${skip})` : ''}`,
  { timeout: 240_000 },
  async () => {
    const url = process.env.DATABASE_URL!;
    const dbName = `sdg_bench_peers_${process.pid}`;
    try {
      const { json: r, md } = await runBenchCli([
        ...['--peers', '--db', dbName, '--scale', '0.01', '--reseed', '--connections', '2', '--rounds', '1'],
        ...['--heavy-requests', '1'],
      ]);
      expect(r.versions.node).toMatch(/^22\./);
      // PostGraphile answered, and the comparison walked real rows at every level.
      expect(r.probe.postgraphile.status).toBe(200);
      expect(r.probe.postgraphile.sql).toBeGreaterThan(0);
      expect(r.probe.equality.equal).toBe(true);
      expect(r.probe.equality.counts.projects).toBe(100);
      expect(r.probe.equality.counts.contacts).toBeGreaterThan(0);
      expect(r.probe.equality.counts.parcels).toBeGreaterThan(0);
      expect(r.probe.floorEqualsGateway).toBe(true);
      expect(r.probe.oneStatementEqualsGateway).toBe(true);
      const [level] = r.scenarios[0].runs;
      expect(r.scenarios[0].id).toBe('7');
      expect(level.connections).toBe(2);
      expect(level.runs.map((x: { server: string }) => x.server).sort()).toEqual([
        'floor',
        'gateway',
        'gatewayRaw',
        'oneStatement',
        'postgraphile',
      ]);
      // The REST pages beside their one-statement floor, each answer checked equal first.
      expect(r.rest.map((p: { id: string }) => p.id)).toEqual(['1', '2', '3']);
      for (const page of r.rest) {
        expect(page.probe.equal, page.id).toBe(true);
        expect(page.probe.items, page.id).toBeGreaterThan(0);
        expect(page.runs[0].vsOneStatement, page.id).toBeGreaterThan(0);
        for (const x of page.runs[0].runs) expect(x.errors, `${page.id} ${x.server}`).toBe(0);
      }
      // CPU is read in clock ticks of 10 ms: on a run this short, a floor that does next to nothing
      // in Node (the one-statement floor) can use less than one tick, so only the gateway's must show.
      for (const x of level.runs) {
        expect(x.requests, x.server).toBeGreaterThanOrEqual(4);
        expect(x.errors, x.server).toBe(0);
        expect(x.nodeCpuMsPerRequest, x.server).toBeGreaterThanOrEqual(0);
        expect(x.peakRssMb, x.server).toBeGreaterThan(0);
      }
      const gateway = level.runs.find((x: { server: string }) => x.server === 'gateway');
      expect(gateway.nodeCpuMsPerRequest).toBeGreaterThan(0);
      expect(level.vsPostgraphile).toBeGreaterThan(0);
      expect(level.vsFloor).toBeGreaterThan(0);
      expect(level.vsOneStatement).toBeGreaterThan(0);
      expect(md).toContain('gateway ÷ PostGraphile');
    } finally {
      await dropBenchDatabase(url, dbName);
    }
  },
);
