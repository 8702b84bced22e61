import { dirname } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { ABUSE_DEFAULTS, runAbuse } from './abuse.js';
import { abuseMarkdown, writeAbuse } from './abuse-report.js';
import { type BenchOptions, defaultCommands } from './runner.js';

/** The flags of `npm run bench` that `--abuse` reads besides its own. */
export interface AbuseFlags {
  db?: string;
  scale?: string;
  duration?: string;
  quick: boolean;
  'unlimited-key': boolean;
  label?: string;
  'no-write': boolean;
  /** The smoke test's miniature: a calmer tenant and the WebSocket attacks at a tenth of their size. */
  smoke: boolean;
}

/** `npm run bench -- --abuse`: runs bench/abuse.ts, prints the summary and writes one md and one json. */
export async function abuseCommand(o: BenchOptions, v: AbuseFlags): Promise<void> {
  if (o.backend !== 'postgres')
    throw new Error('--abuse needs Postgres: its fifth attack cuts the network path to it. Drop --pglite.');
  const r = await runAbuse({
    serverUrl: o.serverUrl,
    dbName: v.db ?? ABUSE_DEFAULTS.dbName,
    scale: v.scale ? o.scale : ABUSE_DEFAULTS.scale,
    reseed: o.reseed,
    duration: v.duration ? o.duration : v.quick ? ABUSE_DEFAULTS.quickDuration : ABUSE_DEFAULTS.duration,
    tenantRate: v.smoke ? 5 : ABUSE_DEFAULTS.tenantRate,
    only: o.only,
    keyLimit: !v['unlimited-key'],
    gateway: o.gateway,
    attacker: defaultCommands(v.smoke).attacker,
    wsAttacker: defaultCommands(v.smoke).wsAttacker,
    wsSize: v.smoke ? 0.1 : undefined,
    rawDir: o.rawDir,
    quiet: false,
  });
  process.stdout.write(`\n${abuseMarkdown(r)}\n`);
  if (!v['no-write']) {
    const files = writeAbuse(r, dirname(o.rawDir), v.label);
    process.stderr.write(`results: ${files.map((f) => f.replace(`${PACKAGE_ROOT}/`, '')).join(', ')}\n`);
  }
}
