import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings for a server process, set before anything runs (src/server.ts imports this first).
 *
 * `--no-allocation-site-pretenuring`: V8 watches how many objects of each allocation site survive
 * young collections, and once a site's mostly survive, optimized code allocates its objects
 * straight into the old generation. A request's containers (its pages, answer, loaders) do survive
 * a young collection that lands while the request is running, so in some processes V8 began
 * allocating them in the old generation. There each one, dead once its request finished, still
 * pointed at that request's young objects (rows, records, values), and young collections keep
 * whatever the old generation points at: every request's objects were copied and promoted, and
 * only a full collection freed them. Whether a process fell into this depended on its warm-up, so
 * the same build promoted 2 KB per nested request in one process and 700–1,100 KB in the next,
 * with 16–34% more Node CPU (bench/results/2026-11-23-issue18/README.md, "afternoon" section). Without
 * pretenuring, every process stays at about 2 KB. test/unit/v8-flags.test.ts checks the setting
 * takes effect.
 */
export const V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

for (const flag of V8_FLAGS) setFlagsFromString(flag);
