import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * `npm run bench` as a user runs it, for the smoke tests: `bench/run.ts` from its sources (tsx, no
 * build) with `--smoke`, its result files in a folder of their own. The tests read what the bench
 * wrote, as a reader of bench/results would, and import none of its modules.
 */
export interface BenchRun {
  /** The run's JSON result (the one file that is not a `latest-*` copy). */
  json: any;
  /** The run's markdown report. */
  md: string;
}

export async function runBenchCli(args: string[], env: Record<string, string> = {}): Promise<BenchRun> {
  const dir = mkdtempSync(join(tmpdir(), 'sdg-bench-cli-'));
  try {
    const output: string[] = [];
    const code = await new Promise<number | null>((ok, fail) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(PACKAGE_ROOT, 'bench/run.ts'), '--smoke', '--results', dir, ...args],
        { cwd: PACKAGE_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const keep = (b: Buffer) => {
        output.push(b.toString());
        if (output.length > 400) output.shift();
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.on('error', fail);
      child.on('exit', ok);
    });
    if (code !== 0)
      throw new Error(`bench ${args.join(' ')} exited ${code}:\n${output.join('').slice(-6000)}`);
    const own = (sub: string, ext: string) =>
      existsSync(join(dir, sub))
        ? readdirSync(join(dir, sub))
            .filter((f) => f.endsWith(ext) && !f.startsWith('latest-'))
            .map((f) => join(dir, sub, f))
        : [];
    const jsons = [...own('.', '.json'), ...own('raw', '.json')];
    const mds = own('.', '.md');
    if (jsons.length !== 1 || mds.length !== 1)
      throw new Error(
        `expected one JSON and one markdown result, found ${[...jsons, ...mds].join(', ') || 'none'}`,
      );
    return { json: JSON.parse(readFileSync(jsons[0], 'utf8')), md: readFileSync(mds[0], 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Drops a database the bench seeded on the server of `serverUrl`. */
export async function dropBenchDatabase(serverUrl: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(`drop database if exists ${name} with (force)`);
  } finally {
    await c.end();
  }
}
