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
 * the same build cost far more memory and Node CPU in one process than in the next. Without
 * pretenuring, no process does (docs/decisions.md#the-server-turns-off-v8s-allocation-site-pretenuring).
 *
 * `--heap-growing-percent=200`: after a full collection, V8 lets the old generation grow to a
 * multiple of what survived before it collects again, up to 4× on a machine with a large heap
 * limit, chosen by how fast collection is. The gateway's live heap is small and collects fast, so
 * V8 took the largest multiple, and the garbage that concurrent requests promote piled up to it,
 * close to the memory bound on large pages. 200% (3×) leaves a margin under that bound; a lower
 * setting trades it for CPU (why this one: docs/decisions.md#the-old-generation-grows-3-not-4).
 *
 * An option given on `node`'s command line is left as given (Node refuses both in NODE_OPTIONS).
 * test/perf/v8-flags.test.ts checks that both settings take effect, and yield to the operator's.
 */
export const V8_FLAGS = ['--no-allocation-site-pretenuring', '--heap-growing-percent=200'] as const;

/** A V8 option's name, without `--`, `no-` or a value, with `_` written `-` as V8 accepts either. */
const optionName = (flag: string) =>
  flag
    .replace(/^--(no-?)?/, '')
    .split('=')[0]
    .replaceAll('_', '-');

/** The options an operator gave on `node`'s command line: theirs win over ours. */
const given = new Set(process.execArgv.filter((a) => a.startsWith('--')).map(optionName));

for (const flag of V8_FLAGS) if (!given.has(optionName(flag))) setFlagsFromString(flag);
