import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { PACKAGE_ROOT } from '../../src/paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder that holds src/ and migrations/ compiled to JavaScript for this run. */
    compiledSources: string | undefined;
  }
}

/**
 * Global setup: src/ and migrations/ (what `npm run build` compiles) compiled once per run, file by
 * file, with the esbuild settings tsx uses, so that the tests that start the gateway or sdg as a
 * process run them with plain `node`, as production does, instead of `node --import tsx`: tsx's
 * loader hooks cost about a second of CPU per start, and a run starts a few dozen processes
 * (test/helpers/server-process.ts, sourceArgs).
 *
 * The build goes under node_modules/.cache, inside the package, because src/paths.ts finds the
 * package root (schema.graphql, the GraphiQL assets) by walking up from the running file; each run
 * has its own folder, removed at its end, so runs side by side do not share one.
 */
export default async function setup(project: TestProject) {
  const cache = join(PACKAGE_ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, 'sdg-test-server-'));
  const remove = async () => rmSync(out, { recursive: true, force: true });
  try {
    await build({
      entryPoints: ['src', 'migrations'].flatMap((dir) => sources(join(PACKAGE_ROOT, dir))),
      outdir: out,
      outbase: PACKAGE_ROOT,
      bundle: false,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node}`,
      keepNames: true,
      sourcemap: 'inline',
      logLevel: 'silent',
    });
  } catch (err) {
    await remove();
    throw err;
  }
  // Under node_modules, Node looks for no package.json above this one: the output is ES modules.
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  for (const p of project.vitest.projects) p.provide('compiledSources', out);
  return remove;
}

/** The TypeScript sources under `dir`, declaration files aside. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !relative(PACKAGE_ROOT, f).includes('node_modules'));
}
