import { expect, test } from 'vitest';
import { dropBenchDatabase, runBenchCli } from './helpers/bench-cli.js';
import { onCitus } from './helpers/citus.js';

/**
 * `npm run bench -- --aggregates` in miniature (scale 0.01, one round of two requests), so the
 * dashboard benchmark cannot rot: it seeds, checks the raw statement answers what the gateway
 * answered, and reports. Postgres only, as the benchmark is.
 */
test.runIf(!!process.env.DATABASE_URL && !onCitus)(
  'the dashboard benchmark answers equal to its raw statement and reports',
  { timeout: 240_000 },
  async () => {
    const url = process.env.DATABASE_URL!;
    const dbName = `sdg_bench_agg_smoke_${process.pid}`;
    try {
      const { json, md } = await runBenchCli([
        ...['--aggregates', '--db', dbName, '--scale', '0.01', '--reseed'],
        ...['--rounds', '1', '--heavy-requests', '2'],
      ]);
      expect(json.kind).toBe('aggregates');
      expect(json.parcels).toBe(1000);
      expect(json.groups).toBe(4);
      expect(json.gatewayP50Ms).toBeGreaterThan(0);
      expect(json.rawP50Ms).toBeGreaterThan(0);
      expect(json.statement).toMatch(/count\(\*\) over \(\)/);
      expect(md).toContain('| the same SQL, raw |');
    } finally {
      await dropBenchDatabase(url, dbName);
    }
  },
);
