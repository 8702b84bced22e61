import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { backend, createScratchDatabase, seededSnapshot } from '../helpers/database.js';

/**
 * Issue 40: an import's memory does not grow with its file. The same import, of 10,000 and of
 * 100,000 tiny squares in a FeatureCollection, each in a process of its own
 * (test/perf/import-rss-child.ts), into a database on disk (a Postgres scratch database, or a PGlite
 * folder: an in-memory PGlite would hold the rows in the measured process). Ten times the file may
 * cost the process little more than its first batches did. Figures: docs/benchmarks.md.
 */
const snapshot = seededSnapshot();

/** A FeatureCollection of `n` tiny squares, written as a stream: the test holds none of it either. */
async function writeCollection(file: string, n: number) {
  const out = createWriteStream(file);
  const write = (s: string) =>
    out.write(s) ? undefined : new Promise<void>((r) => out.once('drain', () => r()));
  await write('{"type":"FeatureCollection","features":[\n');
  for (let i = 0; i < n; i++) {
    const x = -101 + (i % 500) * 0.001;
    const y = 33 + Math.floor(i / 500) * 0.001;
    const d = 0.0005;
    const f = `{"type":"Feature","properties":{"name":"P${i}"},"geometry":{"type":"Polygon","coordinates":[[[${x},${y}],[${x + d},${y}],[${x + d},${y + d}],[${x},${y + d}],[${x},${y}]]]}}`;
    await write(i ? `,\n${f}` : f);
  }
  await write('\n]}\n');
  await new Promise<void>((r) => out.end(() => r()));
}

async function importOnce(n: number) {
  const { seeded, demo } = snapshot!;
  const work = mkdtempSync(join(tmpdir(), 'sdg-import-rss-'));
  const scratch =
    backend === 'postgres' ? await createScratchDatabase(process.env.DATABASE_URL!, seeded) : undefined;
  try {
    const file = join(work, 'parcels.geojson');
    await writeCollection(file, n);
    let dataDir: string | undefined;
    if (!scratch) {
      // Unpacked here, so that the measured process only opens the folder.
      dataDir = join(work, 'pglite');
      const db = await createDatabase({ dataDir, loadDataDir: new Blob([readFileSync(seeded)]) });
      await db.close();
    }
    const child = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        'test/perf/import-rss-child.ts',
        JSON.stringify({ url: scratch?.url, dataDir, portfolioId: demo.orgs.B.portfolios.B1, file }),
      ],
      { cwd: PACKAGE_ROOT, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    expect(child.status, child.stderr).toBe(0);
    const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
    expect(r.code, r.err.join('\n')).toBe(0);
    return r as Measured;
  } finally {
    await scratch?.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

interface Measured {
  ms: number;
  err: string[];
  openedRssKb: number;
  peakRssKb: number;
  firstHalfRss: number;
  secondHalfRss: number;
  openedHeap: number;
  liveHeap: number;
  heapAfterGc: number;
}

const MB = 1024 * 1024;

test.skipIf(!snapshot)(
  'importing 100,000 features keeps nothing per feature, and its memory stops growing once batches flow',
  { timeout: 900_000 },
  async () => {
    const small = await importOnce(10_000);
    const large = await importOnce(100_000);
    const mb = (bytes: number) => Math.round(bytes / MB);
    const view = (m: Measured) => ({
      seconds: Math.round(m.ms / 100) / 10,
      openedMb: mb(m.openedRssKb * 1024),
      peakMb: mb(m.peakRssKb * 1024),
      firstHalfMb: mb(m.firstHalfRss),
      secondHalfMb: mb(m.secondHalfRss),
      liveMb: Math.round((m.liveHeap - m.openedHeap) / 1e5) / 10,
      retainedMb: Math.round((m.heapAfterGc - m.openedHeap) / 1e5) / 10,
    });
    const figures = JSON.stringify({ backend, small: view(small), large: view(large) });
    console.log(figures);
    expect(small.err.at(-1)).toMatch(/^imported 10,000 parcels/);
    expect(large.err.at(-1)).toMatch(/^imported 100,000 parcels/);
    // What the import holds while it runs is the same for ten times the features: nothing of a
    // feature outlives its batch. Reading the whole file first, as before, held the file and every
    // parsed feature: ten times as much for ten times the file.
    expect(large.liveHeap - small.liveHeap, figures).toBeLessThan(4 * MB);
    expect(large.liveHeap - large.openedHeap, figures).toBeLessThan(32 * MB);
    expect(Math.abs(large.heapAfterGc - small.heapAfterGc), figures).toBeLessThan(2 * MB);
    // The process grows while V8 sizes its heap to the batches' garbage, then stays: the second
    // half of the large import (50,000 more features) peaks no higher than the first half did.
    expect(large.secondHalfRss - large.firstHalfRss, figures).toBeLessThan(16 * MB);
  },
);
