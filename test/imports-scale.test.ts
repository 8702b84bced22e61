import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { gridSquare } from '../bench/geo.js';
import { runCli } from '../src/cli/main.js';
import type { Database } from '../src/db/database.js';
import { openTestDatabase } from './helpers/database.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

async function sdgJson(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    [...argv, '--json'],
    { out: (s) => out.push(s), err: (s) => err.push(s) },
    database,
  );
  return { code, json: JSON.parse(out.at(-1) ?? 'null'), stderr: err.join('\n') };
}

/** A FeatureCollection of `n` tiny squares in a grid, each named (`prefix` and its index). */
function gridFile(n: number, prefix = 'P'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sdg-scale-')), 'grid.geojson');
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(
      JSON.stringify({
        type: 'Feature',
        properties: { apn: `APN-${i}`, name: `${prefix}${i}` },
        geometry: gridSquare(i, { x: -100, y: 30, columns: 200, cell: 0.001, side: 0.0005 }),
      }),
    );
  }
  writeFileSync(file, `{"type":"FeatureCollection","features":[\n${lines.join(',\n')}\n]}\n`);
  return file;
}

const count = async (table: 'parcels' | 'project_parcels' | 'change_log', orgId: string) =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where org_id = ${orgId}`.execute(
        database.db,
      )
    ).rows[0].n,
  );

// Issue 40: more parcels than one statement can link at 4 parameters each (Postgres's protocol
// takes at most 65,535 parameters a statement). With the links sent in one statement this fails
// with "bind message has 2464 parameter formats but 0 parameters" on PGlite and Postgres; it also
// holds each batch's records INSERT and change-log entries under the limit.
test('17,000 parcels import and link to a project, each logged', async () => {
  const org = (await sdgJson('org', 'create', '--name', 'Scale Org')).json;
  const pf = (await sdgJson('portfolio', 'create', '--org', org.id, '--name', 'Scale')).json;
  const [project] = await database.db
    .insertInto('projects')
    .values({ org_id: org.id, portfolio_id: pf.id, id: 'prj_scaletarget0000000000000', properties: '{}' })
    .returning('id')
    .execute();
  const n = 17_000;
  const logged = await count('change_log', org.id);
  const r = await sdgJson('parcels', 'import', gridFile(n), '--portfolio', pf.id, '--project', project.id);
  expect(r.stderr).toBe('');
  expect(r.code, JSON.stringify(r.json)).toBe(0);
  expect(r.json.created).toHaveLength(n);
  expect(await count('parcels', org.id)).toBe(n);
  expect(await count('project_parcels', org.id)).toBe(n);
  // A create per parcel, and a link entry on each side of each link.
  expect((await count('change_log', org.id)) - logged).toBe(3 * n);
  const p = await database.db
    .selectFrom('projects')
    .select('location')
    .where('id', '=', project.id)
    .executeTakeFirstOrThrow();
  expect(p.location).not.toBeNull();
});

// A re-import by external id that changes every parcel of a large roll, in one transaction. With a
// record lock per updated parcel (one lock-table slot each until commit) this fails on Postgres's
// default lock table: "out of shared memory".
test('17,000 parcels re-imported by external id, every one changed, update in one transaction', async () => {
  const org = (await sdgJson('org', 'create', '--name', 'Scale Sync Org')).json;
  const pf = (await sdgJson('portfolio', 'create', '--org', org.id, '--name', 'Scale')).json;
  const n = 17_000;
  const byId = ['--portfolio', pf.id, '--source', 'county', '--id-property', 'apn'];
  const first = await sdgJson('parcels', 'import', gridFile(n), ...byId, '--declare-source');
  expect(first.code, JSON.stringify(first.json)).toBe(0);
  const logged = await count('change_log', org.id);
  const again = await sdgJson('parcels', 'import', gridFile(n, 'Q'), ...byId);
  expect(again.code, JSON.stringify(again.json)).toBe(0);
  expect(again.json).toMatchObject({ count: 0, updated: n, unchanged: 0 });
  expect((await count('change_log', org.id)) - logged).toBe(n);
  const { rows } = await sql<{ n: string }>`select count(*) as n from parcels
    where org_id = ${org.id} and properties -> 'name' ->> 'text' like 'Q%'`.execute(database.db);
  expect(Number(rows[0].n)).toBe(n);
});
