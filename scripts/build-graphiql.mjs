#!/usr/bin/env node
// Builds the browser assets the server serves at /graphiql and /docs into src/graphiql/dist
// (git-ignored): GraphiQL 5 with its Monaco workers, bundled by esbuild, and Swagger UI copied from
// swagger-ui-dist. Nothing is fetched from a CDN at run time. Skips the work when the inputs have not
// changed, because `npm start` runs it every time.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(ROOT, 'src/graphiql/dist');
const STAMP = '.stamp';
const require = createRequire(join(ROOT, 'package.json'));

function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** A hash of everything the output depends on: this script, the client sources, the lockfile. */
function inputsHash() {
  const h = createHash('sha256');
  const inputs = [
    fileURLToPath(import.meta.url),
    join(ROOT, 'package-lock.json'),
    join(ROOT, 'src/graphiql/example.ts'),
    ...listFiles(join(ROOT, 'src/graphiql/client')),
    ...listFiles(join(ROOT, 'src/openapi/client')),
  ];
  for (const f of inputs) {
    h.update(relative(ROOT, f));
    h.update(readFileSync(f));
  }
  return h.digest('hex');
}

export function isUpToDate() {
  try {
    return readFileSync(join(OUT_DIR, STAMP), 'utf8') === inputsHash();
  } catch {
    return false;
  }
}

async function bundle(tmp) {
  const esbuild = await import('esbuild');
  const common = {
    bundle: true,
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    target: ['es2022'],
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  };
  // The page script. ESM, so import.meta.url locates the workers next to it.
  await esbuild.build({
    ...common,
    entryPoints: { app: join(ROOT, 'src/graphiql/client/main.jsx') },
    outdir: join(tmp, 'graphiql'),
    format: 'esm',
    jsx: 'automatic',
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file' },
    assetNames: '[name]',
  });
  // Monaco's workers: classic scripts, one per language service GraphiQL uses.
  await esbuild.build({
    ...common,
    entryPoints: {
      'editor.worker': require.resolve('monaco-editor/esm/vs/editor/editor.worker.js'),
      'json.worker': require.resolve('monaco-editor/esm/vs/language/json/json.worker.js'),
      'graphql.worker': require.resolve('monaco-graphql/esm/graphql.worker.js'),
    },
    outdir: join(tmp, 'graphiql'),
    format: 'iife',
  });
  // Swagger UI for /docs: its prebuilt bundle, plus our initializer (inline scripts are not allowed).
  const swagger = dirname(require.resolve('swagger-ui-dist/package.json'));
  await mkdir(join(tmp, 'docs'), { recursive: true });
  for (const f of ['swagger-ui-bundle.js', 'swagger-ui.css'])
    await copyFile(join(swagger, f), join(tmp, 'docs', f));
  await copyFile(join(ROOT, 'src/openapi/client/docs.js'), join(tmp, 'docs', 'docs.js'));
  // Pre-compressed copies; the server sends them to clients that accept gzip.
  for (const f of listFiles(tmp)) {
    if (/\.(js|css|ttf|svg)$/.test(f)) await writeFile(`${f}.gz`, gzipSync(await readFile(f), { level: 9 }));
  }
}

/** Builds into a fresh folder and swaps it in, so a concurrent reader never sees half a build. */
export async function buildGraphiQL({ force = false } = {}) {
  if (!force && isUpToDate()) return { built: false, dir: OUT_DIR };
  const hash = inputsHash();
  const tmp = `${OUT_DIR}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    await bundle(tmp);
    await writeFile(join(tmp, STAMP), hash);
    // A concurrent build (two test files) may have finished first; keep its output in place.
    if (isUpToDate()) return { built: false, dir: OUT_DIR };
    const old = `${OUT_DIR}.old-${randomBytes(4).toString('hex')}`;
    if (existsSync(OUT_DIR)) await rename(OUT_DIR, old).catch(() => {});
    await rename(tmp, OUT_DIR).catch(async (err) => {
      // Another build won the race; keep its output if it is current.
      if (!isUpToDate()) throw err;
    });
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return { built: true, dir: OUT_DIR };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const force = process.argv.includes('--force');
  buildGraphiQL({ force }).then(
    ({ built }) => {
      if (built) process.stdout.write(`GraphiQL and /docs assets built in ${Date.now() - started} ms\n`);
    },
    (err) => {
      process.stderr.write(`building the GraphiQL assets failed: ${err?.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
