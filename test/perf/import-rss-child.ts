/**
 * The measuring half of test/perf/import-rss.test.ts: one `sdg parcels import` of a generated file,
 * in a process of its own started with --expose-gc. Prints one JSON line: its peak resident set
 * size, the peak RSS sampled in each half of the import's time, the most heap in use after a full
 * collection while it ran (one every 500 ms), and after one at the end.
 *
 *   node --expose-gc --import tsx test/perf/import-rss-child.ts '<json: DATABASE_URL or PGlite folder, portfolio, file>'
 */
import { runCli } from '../../src/cli/main.js';
import { createDatabase } from '../../src/db/database.js';

const args = JSON.parse(process.argv[2]) as {
  url?: string;
  dataDir?: string;
  portfolioId: string;
  file: string;
};
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('start this with node --expose-gc');
const database = await createDatabase(args.url ? { url: args.url } : { dataDir: args.dataDir! });
gc();
const openedHeap = process.memoryUsage().heapUsed;
const openedRssKb = process.resourceUsage().maxRSS;
const samples: [number, number][] = [];
const started = performance.now();
const sampler = setInterval(() => samples.push([performance.now() - started, process.memoryUsage().rss]), 20);
// What the import keeps reachable while it runs: the heap after a full collection, twice a second.
let liveHeap = 0;
const collector = setInterval(() => {
  gc();
  liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
}, 500);
const err: string[] = [];
const code = await runCli(
  ['parcels', 'import', args.file, '--portfolio', args.portfolioId],
  { out: () => {}, err: (s) => err.push(s) },
  database,
);
const ms = performance.now() - started;
clearInterval(sampler);
clearInterval(collector);
gc();
const heapAfterGc = process.memoryUsage().heapUsed;
await database.close();
const peakIn = (from: number, to: number) =>
  Math.max(0, ...samples.filter(([t]) => t >= from && t < to).map(([, rss]) => rss));
console.log(
  JSON.stringify({
    code,
    err,
    ms,
    // maxRSS is in kilobytes.
    openedRssKb,
    peakRssKb: process.resourceUsage().maxRSS,
    firstHalfRss: peakIn(0, ms / 2),
    secondHalfRss: peakIn(ms / 2, ms),
    openedHeap,
    liveHeap,
    heapAfterGc,
  }),
);
