/**
 * Would Postgres building the nested query's JSON be faster? Issue 18 suggests it (PostGraphile and
 * Hasura plan that way). This probe answers with Postgres's own CPU: it writes the nested query
 * (scenario 7) as ONE statement that returns the whole `projects` connection as JSON, typed values
 * included, checks that JSON equals the gateway's answer, and measures that statement's backend CPU
 * against the same statement without the typed values (the three page levels only).
 *
 *   node dist/bench/pg-json-probe.js [--db sdg_bench] [--runs 30]
 *
 * What it leaves out, so the figures are a lower bound for the approach: cursors (`endCursor` is
 * null here; the gateway signs them with an HMAC in Node), the key lookup, and any planning a
 * general compiler would do. The bench dataset is reused (seeded by `npm run bench` first).
 */
import { isDeepStrictEqual, parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { createDatabase } from '../src/db/database.js';
import { cpuSeconds } from './proc.js';
import { DEFAULTS, reusedDataset } from './runner.js';
import { NESTED_QUERY } from './scenarios.js';

const { values: o } = parseArgs({
  options: { db: { type: 'string', default: DEFAULTS.dbName }, runs: { type: 'string', default: '30' } },
});
const runs = Number(o.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs ${o.runs}: give a whole number of runs`);

const { dataset, fixture, serverEnv } = await reusedDataset(o.db!);
const orgId = dataset.orgId;
const portfolioId = dataset.portfolioIds[0];
const SIZES = { projects: 100, contacts: 10, parcels: 5 };

// ---- The gateway's answer, the reference the statement must equal ----
const database = await createDatabase({ url: serverEnv.DATABASE_URL });
const app = await buildApp({ database, logger: pino({ level: 'warn' }) });
const res = await app.inject({
  method: 'POST',
  url: '/graphql',
  headers: { 'x-api-key': fixture.apiKey, 'content-type': 'application/json' },
  payload: JSON.stringify({ query: NESTED_QUERY, variables: { orgId, portfolioId, ...SIZES } }),
});
await app.close();
await database.close();
if (res.statusCode !== 200) throw new Error(`the gateway answered ${res.statusCode}: ${res.body}`);
const expected = res.json().data.organization.portfolio.projects;

// ---- The statement ----
const client = new pg.Client({ connectionString: serverEnv.DATABASE_URL });
await client.connect();
type Def = { kind: string; id: string; type: string; options: { id: string; name: string; color: string }[] };
const { rows: defs } = await client.query<Def>(
  'select kind, id, property_type as type, options from property_defs where org_id = $1 order by kind, position',
  [orgId],
);
// The key is an owner's, who sees every member of the org (org/service.ts visibleOrgUsers).
const { rows: members } = await client.query<{ id: string; email: string; name: string }>(
  'select u.id, u.email, u.name from org_members m join users u on u.id = m.user_id where m.org_id = $1',
  [orgId],
);
const users = JSON.stringify(Object.fromEntries(members.map((u) => [u.id, { id: u.id, name: u.name }])));

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const TYPENAME: Record<string, [string, string]> = {
  text: ['TextValue', 'text'],
  url: ['TextValue', 'text'],
  email: ['TextValue', 'text'],
  number: ['NumberValue', 'number'],
  date: ['DateValue', 'date'],
  select: ['SelectValue', 'select'],
  multi_select: ['SelectValue', 'select'],
  people: ['PeopleValue', 'people'],
  checkbox: ['CheckboxValue', 'checkbox'],
};

/** The typed `values` of record `r` (fragment V of bench/scenarios.ts), in schema order. */
function valuesSql(kind: string, r: string): string {
  const parts = defs
    .filter((d) => d.kind === kind)
    .map((d) => {
      const [typename, member] = TYPENAME[d.type];
      const v = `${r}.properties->${lit(d.id)}`;
      let field: string;
      if (member === 'date') field = `${v}->'date'->'start' as start`;
      else if (member === 'checkbox') field = `${v}->'checkbox' as checked`;
      else if (member === 'select') {
        const options = `${lit(JSON.stringify(Object.fromEntries(d.options.map((x) => [x.id, { id: x.id, name: x.name, color: x.color }]))))}::jsonb`;
        field = `(select array_to_json(array_agg(coalesce(${options}->x.id, jsonb_build_object('id', x.id, 'name', x.id, 'color', '#9ca3af')) order by x.n))
          from jsonb_array_elements_text(${v}->'select') with ordinality x(id, n)) as options`;
      } else if (member === 'people')
        field = `coalesce((select array_to_json(array_agg($3::jsonb->x.id order by x.n))
          from jsonb_array_elements_text(${v}->'people') with ordinality x(id, n) where $3::jsonb ? x.id), '[]') as users`;
      else field = `${v}->${lit(member)} as ${member}`;
      return `case when ${v} ? ${lit(member)} then (select row_to_json(z)::text from (select ${lit(typename)} as "__typename", ${lit(d.id)} as "propertyId", ${field}) z) end`;
    });
  return `coalesce(array_to_json(array_remove(array[${parts.join(', ')}], null)::json[]), '[]')`;
}

/** `{ pageInfo { hasNextPage endCursor } nodes { … } }` of `rows` (read n + 1 to know hasNextPage). */
const connection = (rows: string, n: number, node: (x: string) => string) => `(select row_to_json(c) from (
  select (select row_to_json(i) from (select coalesce(max(y.rn), 0) > ${n} as "hasNextPage", null::text as "endCursor") i) as "pageInfo",
    coalesce(array_to_json(array_agg(y.node order by y.rn) filter (where y.rn <= ${n})), '[]') as nodes
  from (select x.rn, case when x.rn <= ${n} then (${node('x')}) end as node
    from (select r.*, row_number() over () as rn from (${rows}) r) x) y) c)`;

function statement(typed: boolean): string {
  const node = (kind: string, x: string, more = '') =>
    `select row_to_json(n) from (select ${x}.id as id${typed ? `, ${valuesSql(kind, x)} as "values"` : ''}${more}) n`;
  const linked = (
    table: string,
    child: string,
    parentCol: string,
    childCol: string,
    parent: string,
    n: number,
  ) =>
    `select c.id, c.properties from ${table} l join ${child} c on c.org_id = $1 and c.id = l.${childCol}
     where l.org_id = $1 and l.${parentCol} = ${parent}.id order by l.linked_at, l.${childCol} limit ${n + 1}`;
  const parcels = (p: string) =>
    connection(
      linked('parcel_contacts', 'parcels', 'contact_id', 'parcel_id', p, SIZES.parcels),
      SIZES.parcels,
      (x) => node('parcel', x),
    );
  const contacts = (p: string) =>
    connection(
      linked('project_contacts', 'contacts', 'project_id', 'contact_id', p, SIZES.contacts),
      SIZES.contacts,
      (x) => node('contact', x, `, ${parcels(x)} as parcels`),
    );
  const projects = connection(
    `select c.id, c.properties from projects c where c.org_id = $1 and c.portfolio_id = $2
     order by c.created_at, c.id limit ${SIZES.projects + 1}`,
    SIZES.projects,
    (x) => node('project', x, `, ${contacts(x)} as contacts`),
  );
  return `select ${projects}::text as j`;
}

const typedSql = statement(true);
const pagesSql = statement(false);
const run = async (text: string) =>
  (
    await client.query<{ j: string }>(
      text,
      text === typedSql ? [orgId, portfolioId, users] : [orgId, portfolioId],
    )
  ).rows[0].j;

// ---- Equal answers: the gateway's, with the cursors it signs left out ----
const withoutCursors = (c: {
  pageInfo: { endCursor: unknown };
  nodes: Record<string, unknown>[];
}): unknown => ({
  ...c,
  pageInfo: { ...c.pageInfo, endCursor: null },
  nodes: c.nodes.map((n) =>
    Object.fromEntries(
      Object.entries(n).map(([k, v]) => [
        k,
        k === 'contacts' || k === 'parcels' ? withoutCursors(v as never) : v,
      ]),
    ),
  ),
});
const answer = JSON.parse(await run(typedSql));
if (!isDeepStrictEqual(answer, withoutCursors(expected)))
  throw new Error('the statement does not answer what the gateway answers; fix it before measuring');

// ---- Postgres CPU per statement, from the backend's own /proc entry ----
const { rows: pidRow } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
const pid = pidRow[0].pid;
async function measure(text: string): Promise<{ cpuMs: number; wallMs: number; bytes: number }> {
  for (let i = 0; i < 5; i++) await run(text);
  const cpu0 = cpuSeconds(pid);
  const t0 = process.hrtime.bigint();
  let bytes = 0;
  for (let i = 0; i < runs; i++) bytes = (await run(text)).length;
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6 / runs;
  const cpu1 = cpuSeconds(pid);
  if (cpu0 === undefined || cpu1 === undefined)
    throw new Error(`cannot read /proc/${pid}/stat: run on the database's machine`);
  return { cpuMs: ((cpu1 - cpu0) * 1000) / runs, wallMs, bytes };
}
// Alternating, twice each, so a burst of other work does not land on one of them only.
const results = {
  pages: [] as Awaited<ReturnType<typeof measure>>[],
  typed: [] as Awaited<ReturnType<typeof measure>>[],
};
for (let round = 0; round < 2; round++) {
  results.pages.push(await measure(pagesSql));
  results.typed.push(await measure(typedSql));
}
await client.end();
const fmt = (xs: { cpuMs: number; wallMs: number; bytes: number }[]) =>
  `Postgres CPU ${xs.map((x) => x.cpuMs.toFixed(1)).join(' / ')} ms, wall ${xs.map((x) => x.wallMs.toFixed(1)).join(' / ')} ms, ${Math.round(xs[0].bytes / 1024)} KB`;
console.log(`nested query as one statement (${o.db}, ${runs} runs per figure, two alternating rounds):`);
console.log(`  pages only (ids, pageInfo):        ${fmt(results.pages)}`);
console.log(`  with typed values (equal answers): ${fmt(results.typed)}`);
