import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, expect, test } from 'vitest';
import { AssetFolder } from '../../src/graphiql/assets.js';

// A folder of our own, so rewriting a file here cannot disturb the real build other tests serve.
const dir = mkdtempSync(join(tmpdir(), 'sdg-assets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function serve(folder: AssetFolder) {
  const app = Fastify();
  app.get<{ Params: { file: string } }>('/a/:file', async (req, reply) => {
    return (await folder.send(req, reply, req.params.file)) ?? reply.status(404).send('none');
  });
  return app;
}

test('files are read when asked for, so a rebuild under a running server is served with a new ETag', async () => {
  writeFileSync(join(dir, 'app.js'), 'one();');
  writeFileSync(join(dir, 'app.js.gz'), gzipSync('one();'));
  writeFileSync(join(dir, 'notes.txt'), 'not an asset type');
  const app = serve(new AssetFolder('test', dir));

  const first = await app.inject({ url: '/a/app.js' });
  expect(first.statusCode).toBe(200);
  expect(first.body).toBe('one();');
  expect(first.headers['content-type']).toMatch(/^text\/javascript/);
  const etag = String(first.headers.etag);
  expect((await app.inject({ url: '/a/app.js', headers: { 'if-none-match': etag } })).statusCode).toBe(304);

  writeFileSync(join(dir, 'app.js'), 'two(); // longer, so the size differs too');
  writeFileSync(join(dir, 'app.js.gz'), gzipSync('two(); // longer, so the size differs too'));
  const after = await app.inject({ url: '/a/app.js', headers: { 'if-none-match': etag } });
  expect(after.statusCode).toBe(200);
  expect(after.body).toBe('two(); // longer, so the size differs too');
  expect(after.headers.etag).not.toBe(etag);
  const gz = await app.inject({ url: '/a/app.js', headers: { 'accept-encoding': 'gzip' } });
  expect(gz.headers['content-encoding']).toBe('gzip');
  expect(gz.headers.etag).toBe(after.headers.etag);

  // Only names of a served type that were there at start-up; a removed one is not found, not a 500.
  expect((await app.inject({ url: '/a/notes.txt' })).statusCode).toBe(404);
  writeFileSync(join(dir, 'late.js'), 'late();');
  expect((await app.inject({ url: '/a/late.js' })).statusCode).toBe(404);
  rmSync(join(dir, 'app.js'));
  expect((await app.inject({ url: '/a/app.js' })).statusCode).toBe(404);
});
