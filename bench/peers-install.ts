/**
 * bench/peers: the bench-only package holding PostGraphile 5 and the Node 22 binary it needs. The
 * project's own `npm install` never installs it; `npm run bench -- --peers` does, on first use.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';

export const PEERS_DIR = join(PACKAGE_ROOT, 'bench/peers');
/** Node 22 from the npm package `node` (its preinstall script fetches the platform's binary package). */
export const PEERS_NODE = join(PEERS_DIR, 'node_modules/.bin/node');
export const POSTGRAPHILE_SERVER = join(PEERS_DIR, 'postgraphile.mjs');

const pinned = (): Record<string, string> =>
  JSON.parse(readFileSync(join(PEERS_DIR, 'package.json'), 'utf8')).dependencies;

const installedVersion = (pkg: string): string | undefined => {
  const file = join(PEERS_DIR, 'node_modules', pkg, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
};

/** Why bench/peers cannot run as it is (not installed, or installed at other versions), or undefined. */
export function peersMissing(): string | undefined {
  const want = pinned();
  for (const pkg of Object.keys(want)) {
    const have = installedVersion(pkg);
    if (have !== want[pkg])
      return have
        ? `bench/peers has ${pkg} ${have} installed, its package.json pins ${want[pkg]}`
        : `bench/peers is not installed (no ${pkg})`;
  }
  if (!existsSync(PEERS_NODE))
    return 'bench/peers has no node_modules/.bin/node (the node package did not install its binary)';
  return undefined;
}

/** The versions the peer bench runs, as recorded in its results: the Node binary's own answer. */
export function peerVersions(): { node: string; postgraphile: string } {
  const node = existsSync(PEERS_NODE)
    ? execFileSync(PEERS_NODE, ['--version'], { encoding: 'utf8' }).trim()
    : '?';
  return { node: node.replace(/^v/, ''), postgraphile: installedVersion('postgraphile') ?? '?' };
}

/**
 * Installs bench/peers with `npm ci` when it is missing or stale, showing npm's output (on stderr)
 * so a first run that downloads about 100 MB does not look hung.
 */
export async function ensurePeers(quiet: boolean): Promise<void> {
  const why = peersMissing();
  if (!why) return;
  const want = pinned();
  const say = (s: string) => {
    if (!quiet) process.stderr.write(`${s}\n`);
  };
  say(
    `${why}: installing PostGraphile ${want.postgraphile} and Node ${want.node} there (npm ci in bench/peers, about a minute; once)`,
  );
  const t0 = Date.now();
  const code = await new Promise<number | null>((ok, fail) => {
    const child = spawn('npm', ['ci', '--no-audit', '--no-fund', '--foreground-scripts'], {
      cwd: PEERS_DIR,
      stdio: ['ignore', quiet ? 'ignore' : process.stderr, quiet ? 'ignore' : process.stderr],
    });
    child.on('error', fail);
    child.on('exit', ok);
  });
  const still = peersMissing();
  if (code !== 0 || still)
    throw new Error(
      `npm ci in bench/peers failed (exit ${code}${still ? `; ${still}` : ''}). Run \`npm ci --prefix bench/peers\` to see why; it needs the npm registry.`,
    );
  say(`bench/peers installed in ${Math.round((Date.now() - t0) / 1000)}s`);
}
