/**
 * Bytes allocated per nested request (scenario 7) by a gateway build, in process: the build's app
 * answers through Fastify's inject() while V8's sampling heap profiler counts every allocation,
 * including objects the garbage collector has already taken. Unlike CPU time, this does not move
 * with the load other work puts on the machine, so it compares builds on a shared machine.
 *
 *   node dist/bench/nested-alloc.js [--db sdg_bench] [--scenario 7|1] [--requests 20] [--top 25] [<build root>]
 *
 * `--scenario 1` measures the REST first page (`limit=100`) instead of the nested query.
 *
 * A build root is a folder holding a built checkout (dist/, schema.graphql, package.json); the
 * default is this one. It is measured in a child process (nested-alloc-child.ts) that loads only
 * that build, so this process's own modules (and pg parsers) do not mix in.
 * The bench dataset is reused (seeded by `npm run bench` first).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PACKAGE_ROOT } from '../src/paths.js';
import { DEFAULTS, reusedDataset } from './runner.js';

const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    db: { type: 'string', default: DEFAULTS.dbName },
    scenario: { type: 'string', default: '7' },
    requests: { type: 'string', default: '20' },
    top: { type: 'string', default: '25' },
  },
});
if (o.scenario !== '7' && o.scenario !== '1')
  throw new Error(
    `--scenario ${o.scenario}: only 7 (the nested query) and 1 (the REST first page) are measured`,
  );
const prepared = await reusedDataset(o.db!);
const { dataset, fixture } = prepared;
const root = positionals[0] ?? PACKAGE_ROOT;
const child = spawnSync(
  process.execPath,
  [
    join(PACKAGE_ROOT, 'dist/bench/nested-alloc-child.js'),
    root,
    prepared.serverEnv.DATABASE_URL,
    fixture.apiKey,
    dataset.orgId,
    dataset.portfolioIds[0],
    o.scenario!,
    o.requests!,
    o.top!,
  ],
  { stdio: 'inherit' },
);
process.exit(child.status ?? 1);
