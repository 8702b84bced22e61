import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli } from '../src/cli/main.js';
import type { Database } from '../src/db/database.js';
import { openTestDatabase } from './helpers/database.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  await database?.close();
});

async function sdg(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, database);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
const json = async (...argv: string[]) => JSON.parse((await sdg(...argv, '--json')).stdout);

test('sdg webhook add|list|remove|enable, with help and clear errors', async () => {
  const help = await sdg('webhook', 'add', '--help');
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/parcel\.updated/);
  expect(help.stdout).toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS/);
  expect((await sdg('--help')).stdout).toMatch(/webhook remove --id WHK/);

  const org = (await json('org', 'create', '--name', 'Hooks Inc')).id as string;
  const pf = (await json('portfolio', 'create', '--org', org, '--name', 'P')).id as string;

  const add = ['webhook', 'add', '--org', org, '--url', 'http://127.0.0.1:9/h'];
  // Private targets are refused unless the environment allows them.
  delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  const refused = await sdg(...add, '--event', 'parcel.updated');
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/checking http:\/\/127\.0\.0\.1:9\/h/);
  expect(refused.stderr).toMatch(/url: resolves to 127\.0\.0\.1, a loopback, link-local or private address/);
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';

  // Each refusal exits 2 and says what to fix.
  for (const [extra, says] of [
    [[], /missing --event/],
    [['--event', 'parcel.eaten'], /unknown parcel\.eaten/],
    [['--event', 'parcel.updated', '--portfolios', 'pf_nope'], /no portfolio pf_nope/],
  ] as const) {
    const r = await sdg(...add, ...extra);
    expect(r.code, extra.join(' ')).toBe(2);
    expect(r.stderr).toMatch(says);
  }

  const added = await sdg(
    'webhook',
    'add',
    '--org',
    org,
    '--url',
    'http://127.0.0.1:9/h',
    '--event',
    'parcel.updated,project.created',
    '--portfolios',
    pf,
  );
  expect(added.code).toBe(0);
  const id = /Created webhook endpoint (whk_\w+)/.exec(added.stdout)![1];
  expect(added.stdout).toMatch(/^whsec_[\w-]{43}$/m);

  const listed = await json('webhook', 'list', '--org', org);
  expect(listed).toMatchObject([
    { id, enabled: true, events: ['parcel.updated', 'project.created'], portfolioIds: [pf] },
  ]);
  expect(JSON.stringify(listed)).not.toMatch(/whsec_/);
  expect((await sdg('webhook', 'list', '--org', org)).stdout).toMatch(new RegExp(`${id}\\s+on`));

  expect((await sdg('webhook', 'enable', '--id', id)).code).toBe(0);
  const removed = await sdg('webhook', 'remove', '--id', id);
  expect(removed.code).toBe(0);
  expect(removed.stdout).toMatch(/Removed webhook endpoint/);
  const again = await sdg('webhook', 'remove', '--id', id);
  expect(again.code).toBe(2);
  expect(again.stderr).toMatch(/No webhook endpoint/);
  expect((await sdg('webhook', 'list', '--org', org)).stdout).toMatch(/No webhook endpoints/);
});
