import { expect, test } from 'vitest';
import { dropBenchDatabase, runBenchCli } from './helpers/bench-cli.js';

/**
 * `npm run bench -- --maps` in miniature, so the map benchmark cannot rot (Postgres only, as the
 * bench is): it seeds scale 0.01, captures each case's statements from a gateway, and runs every
 * case against its floor briefly. It checks that everything answers and is measured, not how fast.
 */
test.skipIf(!process.env.DATABASE_URL)(
  'the map bench places every case, captures its statements and measures it against them',
  { timeout: 240_000 },
  async () => {
    const url = process.env.DATABASE_URL!;
    const dbName = `sdg_bench_maps_${process.pid}`;
    try {
      const { json: r, md } = await runBenchCli([
        ...['--maps', '--db', dbName, '--scale', '0.01', '--reseed', '--duration', '0.5', '--warmup', '0'],
      ]);
      const rows = r.rows as {
        id: string;
        status: number;
        statements: number;
        features: number | null;
        bodyBytes: number;
        wireBytes: number;
        encoding: string;
        gateway: { requests: number; p50: number };
        floor: { requests: number; p50: number };
      }[];
      expect(rows.map((x) => x.id)).toEqual([
        'bbox-geojson',
        'bbox-list',
        'tile-z14',
        'tile-whole',
        'tile-fit',
        'tile-fit-fields',
        'tile-z10',
        'tile-z10-fields',
      ]);
      for (const x of rows) {
        expect(x.status, x.id).toBe(200);
        // The key lookup and at least one statement of the case's own.
        expect(x.statements, x.id).toBeGreaterThanOrEqual(2);
        expect(r.statements[x.id].length, x.id).toBe(x.statements);
        expect(x.gateway.requests, x.id).toBeGreaterThanOrEqual(3);
        expect(x.floor.requests, x.id).toBeGreaterThanOrEqual(3);
        expect(x.floor.p50, x.id).toBeGreaterThan(0);
        expect(x.features, x.id).toBeGreaterThan(0);
      }
      const by = Object.fromEntries(rows.map((x) => [x.id, x]));
      // The whole portfolio's parcels are in its covering tile, one feature per cell at most.
      expect(by['tile-whole'].features).toBeLessThanOrEqual(r.dataset.counts.parcels / 3 + 1);
      // fields keeps fewer properties of the same features.
      expect(by['tile-fit-fields'].features).toBe(by['tile-fit'].features);
      expect(by['tile-fit-fields'].bodyBytes).toBeLessThan(by['tile-fit'].bodyBytes);
      // A browser-like client gets tiles over a kilobyte gzip-coded.
      for (const x of rows.filter((y) => y.id.startsWith('tile-') && y.bodyBytes >= 1024))
        expect(x.encoding, x.id).toBe('gzip');
      expect(md).toContain('| tile-z14: z14 tile');
    } finally {
      await dropBenchDatabase(url, dbName);
    }
  },
);
