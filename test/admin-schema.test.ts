import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/main.js';
import type { Database } from '../src/db/database.js';
import { orgFeedPage } from '../src/modules/changes/index.js';
import { DEFAULT_WEBHOOKS, WebhookDispatcher } from '../src/modules/webhooks/dispatcher.js';
import type { DemoOutput } from '../src/seed/demo.js';
import { openSeededDatabase } from './helpers/database.js';
import { type Client, client } from './helpers/http.js';
import { startReceiver } from './helpers/receiver.js';

/**
 * The property schema over GraphQL (issue 42): each targeted change, who may make it, what it
 * refuses and why, and that each change is seen at once by REST, GraphQL and the change log.
 */

let database: Database;
let demo: DemoOutput;
let app: FastifyInstance;
let alice: Client;
let org: string;
let pf: string;

beforeAll(async () => {
  ({ database, demo } = await openSeededDatabase());
  app = await buildApp({ database, webhooks: { allowPrivateTargets: true } });
  alice = client(app, demo.users.alice.apiKey);
  org = demo.orgs.A.id;
  pf = demo.orgs.A.portfolios.A1;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const PROPERTY = 'property { id name type required position options { id name color } }';
const ref = (propertyId: string, kind = 'PROJECT') => ({ organizationId: org, kind, propertyId });

/** Runs one mutation `name(input: $input)` and returns its data, or its first error's code and message. */
async function run(c: Client, name: string, input: Record<string, unknown>, select = PROPERTY) {
  const inputType = `${name[0].toUpperCase()}${name.slice(1)}Input`;
  const typeName =
    {
      RemovePropertyOptionInput: 'PropertyOptionInput',
    }[inputType] ?? inputType;
  const r = await c.gql(`mutation ($input: ${typeName}!) { ${name}(input: $input) { ${select} } }`, {
    input,
  });
  const e = r.body.errors?.[0];
  return e
    ? {
        code: e.extensions.code as string,
        message: e.message as string,
        details: e.extensions.details,
        status: r.status,
      }
    : { data: r.body.data[name], status: r.status };
}

async function schemaVia(c: Client, kind = 'project') {
  const r = await c.get(`/${kind}s/v1/schema`, { orgId: org });
  expect(r.status).toBe(200);
  return r.body.properties as {
    id: string;
    name: string;
    property_type: string;
    required?: boolean;
    select?: { options: { id: string; name: string; color: string }[] };
  }[];
}

const projects = async (where = sql`true`) =>
  (
    await sql<{ id: string; portfolio_id: string; properties: Record<string, any>; updated_at: Date }>`
      select id, portfolio_id, properties, updated_at from projects where org_id = ${org} and ${where} order by id`.execute(
      database.db,
    )
  ).rows;

describe('who may change the schema', () => {
  test('members, viewers and guests get FORBIDDEN; another organization NOT_FOUND; nothing changes', async () => {
    const input = { organizationId: org, kind: 'PROJECT', id: 'nope', name: 'Nope', type: 'TEXT' };
    for (const who of ['bob', 'vera', 'gina'] as const) {
      const r = await run(client(app, demo.users[who].apiKey), 'createProperty', input);
      expect(r.code).toBe('FORBIDDEN');
      expect(r.message).toMatch(/Only owners and admins .* Ask an owner to make you an admin/);
    }
    const nora = await run(client(app, demo.users.nora.apiKey), 'renameProperty', {
      ...ref('stage'),
      name: 'X',
    });
    expect(nora.code).toBe('NOT_FOUND');
    expect((await schemaVia(alice)).map((p) => p.id)).not.toContain('nope');
  });
});

describe('defining a property', () => {
  test('a created property is in REST, GraphQL and the feed at once, logged with its author', async () => {
    const before = await schemaVia(alice);
    const openapi = (await alice.get('/openapi.json')).raw;
    const r = await run(alice, 'createProperty', {
      organizationId: org,
      kind: 'PROJECT',
      id: 'grid_queue',
      name: 'Grid queue',
      type: 'SELECT',
      options: [
        { id: 'early', name: 'Early', color: '#94a3b8' },
        { id: 'late', name: 'Late', color: '#f59e0b' },
      ],
    });
    expect(r.data.property).toMatchObject({ id: 'grid_queue', type: 'SELECT', position: before.length });
    // The OpenAPI document has no per-organization property list: it stays as it was.
    expect((await alice.get('/openapi.json')).raw).toBe(openapi);
    expect((await schemaVia(alice)).find((p) => p.id === 'grid_queue')).toMatchObject({
      name: 'Grid queue',
      property_type: 'select',
    });
    const g = await alice.gql(
      `query ($o: ID!) { organization(id: $o) { propertySchema(kind: PROJECT) { properties { id } } } }`,
      { o: org },
    );
    expect(g.body.data.organization.propertySchema.properties.map((p: { id: string }) => p.id)).toContain(
      'grid_queue',
    );
    // The feed holds back entries while an older transaction runs (other test files' work too).
    await vi.waitFor(
      async () => {
        const feed = await alice.gql(
          `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
            changes(first: 1000) { nodes { operation recordId userId source schema } } } } }`,
          { o: org, p: pf },
        );
        const entry = feed.body.data.organization.portfolio.changes.nodes.find(
          (c: { recordId: string }) => c.recordId === 'grid_queue',
        );
        expect(entry).toMatchObject({ operation: 'SCHEMA', userId: demo.users.alice.uid, source: 'API' });
        expect(entry.schema).toMatchObject({ before: null, after: { type: 'select' } });
      },
      { timeout: 15_000, interval: 200 },
    );
  });

  test('an id that exists, a bad definition, and a required property records lack are refused, each saying what to do', async () => {
    const dup = await run(alice, 'createProperty', {
      organizationId: org,
      kind: 'PROJECT',
      id: 'stage',
      name: 'S',
      type: 'TEXT',
    });
    expect(dup.code).toBe('VALIDATION_FAILED');
    expect(dup.details[0].reason).toMatch(/renameProperty/);
    const bad = await run(alice, 'createProperty', {
      organizationId: org,
      kind: 'PROJECT',
      id: '9x',
      name: ' ',
      type: 'SELECT',
    });
    expect(bad.details.map((d: { field: string }) => d.field).sort()).toEqual(['id', 'name', 'options']);
    const req = await run(alice, 'createProperty', {
      organizationId: org,
      kind: 'PROJECT',
      id: 'must_have',
      name: 'Must have',
      type: 'TEXT',
      required: true,
    });
    expect(req.code).toBe('VALIDATION_FAILED');
    expect(req.message).toMatch(/record\(s\) have no value for must_have, so it cannot be required yet/);
    expect(req.details[0].reason).toMatch(/set a value on those records first/);
    expect((await schemaVia(alice)).map((p) => p.id)).not.toContain('must_have');
  });

  test('rename, require, make optional and move', async () => {
    expect(
      (await run(alice, 'renameProperty', { ...ref('capacity_mw'), name: 'Capacity (MW AC)' })).data.property
        .name,
    ).toBe('Capacity (MW AC)');
    const lacking = await projects(sql`not (properties ? 'offtake')`);
    expect(lacking.length).toBeGreaterThan(0);
    const refused = await run(alice, 'setPropertyRequired', { ...ref('offtake'), required: true });
    expect(refused.message).toBe(
      `${lacking.length} project record(s) have no value for offtake, so it cannot be required yet.`,
    );
    expect(
      (await run(alice, 'setPropertyRequired', { ...ref('stage'), required: true })).data.property.required,
    ).toBe(true);
    expect((await schemaVia(alice)).find((p) => p.id === 'stage')?.required).toBe(true);
    expect(
      (await run(alice, 'setPropertyRequired', { ...ref('stage'), required: false })).data.property.required,
    ).toBe(false);
    const spec = await run(alice, 'setPropertyRequired', { ...ref('name'), required: false });
    expect(spec.message).toMatch(/required on projects by the REST v1 specification/);

    expect((await run(alice, 'moveProperty', { ...ref('stage'), position: 0 })).data.property.position).toBe(
      0,
    );
    const order = (await schemaVia(alice)).map((p) => p.id);
    expect(order[0]).toBe('stage');
    const moveLog = await sql<{ changes: { before: { position: number }; after: { position: number } } }>`
      select changes from change_log where org_id = ${org} and op = 'schema' and record_id = 'stage'
      order by seq desc limit 1`.execute(database.db);
    expect(moveLog.rows[0].changes.after.position).toBe(0);
    expect(moveLog.rows[0].changes.before.position).toBeGreaterThan(0);
    const out = await run(alice, 'moveProperty', { ...ref('stage'), position: order.length });
    expect(out.details[0].reason).toBe(`give a position from 0 to ${order.length - 1}`);
    await run(alice, 'moveProperty', { ...ref('name'), position: 0 });
  });
});

describe('options, one at a time', () => {
  test('add, rename, recolour, reorder and remove an unused option', async () => {
    const add = await run(alice, 'addPropertyOption', {
      ...ref('stage'),
      option: { id: 'retired', name: 'Retired', color: '#000000' },
      position: 0,
    });
    expect(add.data.property.options[0]).toEqual({ id: 'retired', name: 'Retired', color: '#000000' });
    const again = await run(alice, 'addPropertyOption', {
      ...ref('stage'),
      option: { id: 'retired', name: 'R', color: '#000000' },
    });
    expect(again.details[0].reason).toMatch(/renamePropertyOption/);
    await run(alice, 'renamePropertyOption', {
      ...ref('stage'),
      optionId: 'retired',
      name: 'Decommissioned',
    });
    await run(alice, 'recolorPropertyOption', { ...ref('stage'), optionId: 'retired', color: '#123456' });
    const badColour = await run(alice, 'recolorPropertyOption', {
      ...ref('stage'),
      optionId: 'retired',
      color: 'red',
    });
    expect(badColour.details[0].reason).toMatch(/colour must look like #a1b2c3/);
    const moved = await run(alice, 'movePropertyOption', {
      ...ref('stage'),
      optionId: 'retired',
      position: 2,
    });
    expect(moved.data.property.options[2]).toEqual({
      id: 'retired',
      name: 'Decommissioned',
      color: '#123456',
    });
    const rest = (await schemaVia(alice)).find((p) => p.id === 'stage')!;
    expect(rest.select?.options[2]).toMatchObject({
      id: 'retired',
      name: 'Decommissioned',
      color: '#123456',
    });
    const gone = await run(alice, 'removePropertyOption', { ...ref('stage'), optionId: 'retired' });
    expect(gone.data.property.options.map((o: { id: string }) => o.id)).not.toContain('retired');
    const missing = await run(alice, 'renamePropertyOption', {
      ...ref('stage'),
      optionId: 'retired',
      name: 'X',
    });
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });
    const noOptions = await run(alice, 'addPropertyOption', {
      ...ref('capacity_mw'),
      option: { id: 'a', name: 'A', color: '#000000' },
    });
    expect(noOptions.message).toMatch(/number property, which has no options/);
  });

  test('an option in use is not removed: the refusal counts its records and names the merge', async () => {
    const holding = await projects(sql`properties @> '{"stage":{"select":["operating"]}}'`);
    expect(holding.length).toBeGreaterThan(0);
    const r = await run(alice, 'removePropertyOption', { ...ref('stage'), optionId: 'operating' });
    expect(r.message).toBe(
      `Option operating of stage is in use on ${holding.length} project record(s), so it cannot be removed.`,
    );
    expect(r.details[0].reason).toMatch(/mergePropertyOptions/);
    expect(
      (await schemaVia(alice)).find((p) => p.id === 'stage')!.select!.options.map((o) => o.id),
    ).toContain('operating');
  });

  test('a merge moves every value and logs each changed record, in one transaction', async () => {
    const holding = await projects(sql`properties @> '{"stage":{"select":["origination"]}}'`);
    expect(holding.length).toBeGreaterThan(0);
    const r = await run(
      alice,
      'mergePropertyOptions',
      { ...ref('stage'), optionId: 'origination', intoOptionId: 'site-control' },
      `recordsChanged ${PROPERTY}`,
    );
    expect(r.data.recordsChanged).toBe(holding.length);
    expect(r.data.property.options.map((o: { id: string }) => o.id)).not.toContain('origination');
    expect(await projects(sql`properties @> '{"stage":{"select":["origination"]}}'`)).toEqual([]);
    for (const p of holding) {
      const after = (await projects(sql`id = ${p.id}`))[0];
      expect(after.properties.stage).toEqual({ select: ['site-control'] });
      expect(after.updated_at.getTime()).toBeGreaterThan(p.updated_at.getTime());
      const h = await alice.gql(
        `query ($id: ID!) { node(id: $id) { ... on Project { history(first: 1) { nodes { operation userId properties { propertyId stored } } } } } }`,
        { id: p.id },
      );
      expect(h.body.data.node.history.nodes[0]).toEqual({
        operation: 'UPDATE',
        userId: demo.users.alice.uid,
        properties: [
          {
            propertyId: 'stage',
            stored: { before: { select: ['origination'] }, after: { select: ['site-control'] } },
          },
        ],
      });
    }
  });

  test('a multi_select merge keeps the kept option once, where it first was', async () => {
    const both = await projects(sql`properties @> '{"offtake":{"select":["ppa","merchant"]}}'`);
    await sql`update projects set properties = jsonb_set(properties, '{offtake}', '{"select":["ppa","community","merchant"]}')
      where org_id = ${org} and id = ${both[0]?.id ?? (await projects())[0].id}`.execute(database.db);
    const r = await run(
      alice,
      'mergePropertyOptions',
      { ...ref('offtake'), optionId: 'merchant', intoOptionId: 'ppa' },
      'recordsChanged',
    );
    expect(r.data.recordsChanged).toBeGreaterThan(0);
    const rows = await projects(sql`properties ? 'offtake'`);
    for (const p of rows) {
      const ids = p.properties.offtake.select as string[];
      expect(ids).not.toContain('merchant');
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(rows.some((p) => JSON.stringify(p.properties.offtake.select) === '["ppa","community"]')).toBe(
      true,
    );
  });
});

describe('the same rules for the command line, and under concurrency', () => {
  const sdg = async (...argv: string[]) => {
    const err: string[] = [];
    const code = await runCli(argv, { out: () => {}, err: (e) => err.push(e) }, database);
    return { code, err: err.join('\n') };
  };
  const add = (...extra: string[]) =>
    sdg(
      'schema',
      'property',
      'add',
      '--org',
      org,
      '--kind',
      'project',
      '--id',
      'stage',
      '--name',
      'Stage',
      '--type',
      'select',
      ...extra,
    );

  test('sdg schema property add refuses dropping an option in use, and a required property records lack', async () => {
    const options = ['site-control', 'permitting', 'construction'].map((o) => `--option=${o}:${o}:#000000`);
    const dropped = await add(...options);
    expect(dropped.code).toBe(2);
    expect(dropped.err).toMatch(/Option operating of stage is in use on \d+ project record\(s\)/);
    const offtake = await sdg(
      'schema',
      'property',
      'add',
      '--org',
      org,
      '--kind',
      'project',
      '--id',
      'offtake',
      '--name',
      'Offtake',
      '--type',
      'multi_select',
      '--option=ppa:PPA:#000000',
      '--required',
    );
    expect(offtake.code).toBe(2);
    expect(offtake.err).toMatch(/have no value for offtake, so it cannot be required yet/);
    expect(
      (await schemaVia(alice)).find((p) => p.id === 'stage')!.select!.options.map((o) => o.id),
    ).toContain('operating');
  });

  test('two options added at once both stay', async () => {
    const [x, y] = await Promise.all(
      ['c1', 'c2'].map((id) =>
        run(alice, 'addPropertyOption', { ...ref('stage'), option: { id, name: id, color: '#000000' } }),
      ),
    );
    expect(x.data && y.data).toBeTruthy();
    const ids = (await schemaVia(alice)).find((p) => p.id === 'stage')!.select!.options.map((o) => o.id);
    expect(ids).toEqual(expect.arrayContaining(['c1', 'c2']));
    for (const id of ['c1', 'c2'])
      await run(alice, 'removePropertyOption', { ...ref('stage'), optionId: id });
  });
});

describe('the other refusals, each with the way on', () => {
  test('an unknown property, a last option, a merge into itself, the same type, a required property to clear', async () => {
    const unknown = await run(alice, 'renameProperty', { ...ref('no_such'), name: 'X' });
    expect(unknown).toMatchObject({
      code: 'NOT_FOUND',
      message:
        'No project property "no_such" in this organization. organization { propertySchema(kind: PROJECT) } lists them.',
    });
    const created = await run(alice, 'createProperty', {
      organizationId: org,
      kind: 'CONTACT',
      id: 'lone',
      name: 'Lone',
      type: 'SELECT',
      options: [{ id: 'only', name: 'Only', color: '#000000' }],
    });
    expect(created.data).toBeTruthy();
    const last = await run(alice, 'removePropertyOption', { ...ref('lone', 'CONTACT'), optionId: 'only' });
    expect(last).toMatchObject({ code: 'VALIDATION_FAILED', message: 'only is the last option of lone.' });
    expect(last.details[0].reason).toMatch(/add another first, or delete the property/);
    const self = await run(
      alice,
      'mergePropertyOptions',
      { ...ref('lone', 'CONTACT'), optionId: 'only', intoOptionId: 'only' },
      'recordsChanged',
    );
    expect(self).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'An option cannot be merged into itself.',
    });
    const same = await run(
      alice,
      'changePropertyType',
      { ...ref('lone', 'CONTACT'), type: 'SELECT' },
      'dryRun',
    );
    expect(same).toMatchObject({ code: 'VALIDATION_FAILED', message: 'lone is a select already.' });
    // A required property whose values do not all convert cannot have them cleared.
    await run(alice, 'createProperty', {
      organizationId: org,
      kind: 'CONTACT',
      id: 'code',
      name: 'Code',
      type: 'TEXT',
    });
    const contacts = await sql<{
      id: string;
    }>`select id from contacts where org_id = ${org} order by id`.execute(database.db);
    await sql`update contacts set properties = properties || jsonb_build_object('code', jsonb_build_object('text', case when id = ${contacts.rows[0].id} then 'x7' else '7' end))
      where org_id = ${org}`.execute(database.db);
    expect(
      (await run(alice, 'setPropertyRequired', { ...ref('code', 'CONTACT'), required: true })).data,
    ).toBeTruthy();
    const clear = await run(
      alice,
      'changePropertyType',
      { ...ref('code', 'CONTACT'), type: 'NUMBER', clearUnconvertible: true },
      'dryRun',
    );
    expect(clear).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'code is required, so its 1 unconvertible value(s) cannot be cleared.',
    });
    expect(clear.details[0].reason).toMatch(/make the property optional \(setPropertyRequired\)/);
  });
});

describe('type changes and deletes', () => {
  const TYPE =
    'dryRun convertible unconvertibleCount unconvertible { recordId portfolioId value reason } recordsChanged property { id type options { id } }';

  test('a dry run lists the values that would not convert, and changes nothing', async () => {
    const withStage = await projects(sql`properties ? 'stage'`);
    const r = await run(alice, 'changePropertyType', { ...ref('stage'), type: 'NUMBER', dryRun: true }, TYPE);
    expect(r.data).toMatchObject({
      dryRun: true,
      convertible: 0,
      unconvertibleCount: withStage.length,
      recordsChanged: 0,
    });
    expect(r.data.property.type).toBe('SELECT');
    expect(r.data.unconvertible[0]).toMatchObject({
      value: { select: [expect.any(String)] },
      reason: expect.stringMatching(/number/),
    });
    const real = await run(alice, 'changePropertyType', { ...ref('stage'), type: 'NUMBER' }, TYPE);
    expect(real.code).toBe('VALIDATION_FAILED');
    expect(real.message).toMatch(
      /would not convert to number. List them with dryRun: true, fix them, or pass clearUnconvertible: true/,
    );
    expect((await schemaVia(alice)).find((p) => p.id === 'stage')?.property_type).toBe('select');
    const people = await run(
      alice,
      'changePropertyType',
      { ...ref('stage'), type: 'PEOPLE', dryRun: true },
      TYPE,
    );
    expect(people.details[0].reason).toMatch(/add a new property instead/);
  });

  test('number → text → number converts every value and logs each record', async () => {
    const before = await projects(sql`properties ? 'capacity_mw'`);
    const toText = await run(alice, 'changePropertyType', { ...ref('capacity_mw'), type: 'TEXT' }, TYPE);
    expect(toText.data).toMatchObject({
      dryRun: false,
      convertible: before.length,
      unconvertibleCount: 0,
      recordsChanged: before.length,
    });
    const one = (await projects(sql`id = ${before[0].id}`))[0];
    expect(one.properties.capacity_mw).toEqual({ text: String(before[0].properties.capacity_mw.number) });
    expect((await schemaVia(alice)).find((p) => p.id === 'capacity_mw')?.property_type).toBe('text');
    // A REST write now checks the new type.
    const w = await alice.put(
      `/projects/v1/${before[0].id}`,
      { properties: { capacity_mw: { number: 5 } } },
      { orgId: org, portfolioId: before[0].portfolio_id },
    );
    expect(w.status).toBe(400);
    const back = await run(alice, 'changePropertyType', { ...ref('capacity_mw'), type: 'NUMBER' }, TYPE);
    expect(back.data.recordsChanged).toBe(before.length);
    expect((await projects(sql`id = ${before[0].id}`))[0].properties.capacity_mw).toEqual(
      before[0].properties.capacity_mw,
    );
  });

  test('select → multi_select keeps the options; clearUnconvertible clears only what does not convert', async () => {
    const r = await run(alice, 'changePropertyType', { ...ref('stage'), type: 'MULTI_SELECT' }, TYPE);
    expect(r.data.unconvertibleCount).toBe(0);
    expect(r.data.property.type).toBe('MULTI_SELECT');
    const one = (await projects(sql`properties ? 'stage'`))[0];
    await sql`update projects set properties = jsonb_set(properties, '{stage}', '{"select":["permitting","construction"]}')
      where org_id = ${org} and id = ${one.id}`.execute(database.db);
    const dry = await run(
      alice,
      'changePropertyType',
      { ...ref('stage'), type: 'SELECT', dryRun: true },
      TYPE,
    );
    expect(dry.data.unconvertible).toEqual([
      {
        recordId: one.id,
        portfolioId: expect.any(String),
        value: { select: ['permitting', 'construction'] },
        reason: expect.stringMatching(/exactly one option/),
      },
    ]);
    const cleared = await run(
      alice,
      'changePropertyType',
      { ...ref('stage'), type: 'SELECT', clearUnconvertible: true },
      TYPE,
    );
    expect(cleared.data.unconvertibleCount).toBe(1);
    expect((await projects(sql`id = ${one.id}`))[0].properties.stage).toBeUndefined();
  });

  test('a delete dry run counts the records holding values; the delete removes them, logged', async () => {
    const holding = await projects(sql`properties ? 'offtake'`);
    const dry = await run(
      alice,
      'deleteProperty',
      { ...ref('offtake'), dryRun: true },
      'propertyId dryRun recordsWithValues',
    );
    expect(dry.data).toEqual({ propertyId: 'offtake', dryRun: true, recordsWithValues: holding.length });
    expect((await schemaVia(alice)).map((p) => p.id)).toContain('offtake');
    const del = await run(alice, 'deleteProperty', ref('offtake'), 'propertyId dryRun recordsWithValues');
    expect(del.data).toEqual({ propertyId: 'offtake', dryRun: false, recordsWithValues: holding.length });
    expect((await schemaVia(alice)).map((p) => p.id)).not.toContain('offtake');
    expect(await projects(sql`properties ? 'offtake'`)).toEqual([]);
    const spec = await run(alice, 'deleteProperty', ref('name'), 'propertyId');
    expect(spec.message).toMatch(
      /required on projects by the REST v1 specification, so it cannot be deleted/,
    );
    // The webhook dispatcher reads the schema change; administration entries stay out of it.
    // (It holds back entries while any older transaction runs, so other tests' work can delay them.)
    await vi.waitFor(
      async () => {
        const log = await orgFeedPage(database.db, org, 100_000, { tx: '0', seq: '0' });
        const last = log.filter((c) => c.op === 'schema' && c.recordId === 'offtake').at(-1);
        expect(last?.changes).toMatchObject({ after: null, before: { type: 'multi_select' } });
      },
      { timeout: 15_000, interval: 200 },
    );
  });
});

test('a schema change over GraphQL is delivered to a webhook that asked for schema.changed', async () => {
  const rx = await startReceiver(() => 200);
  try {
    const made = await alice.gql(
      'mutation ($i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $i) { endpoint { id } } }',
      { i: { organizationId: org, url: rx.url, events: ['schema.changed'] } },
    );
    expect(made.body.errors).toBeUndefined();
    expect(
      (await run(alice, 'renameProperty', { ...ref('capacity_mw'), name: 'Nameplate (MW)' })).data,
    ).toBeTruthy();
    const d = new WebhookDispatcher(
      database.db,
      { ...DEFAULT_WEBHOOKS, allowPrivateTargets: true, retryBaseMs: 0, retryMaxMs: 0, timeoutMs: 2_000 },
      { info: () => {}, warn: () => {} },
    );
    // The dispatcher reads only entries older than every running transaction: other work can delay it.
    await vi.waitFor(
      async () => {
        await d.drain();
        const bodies = rx.acked().map((r) => JSON.parse(r.body));
        expect(bodies).toContainEqual(
          expect.objectContaining({
            type: 'schema.changed',
            data: expect.objectContaining({
              recordId: 'capacity_mw',
              userId: demo.users.alice.uid,
              changes: expect.objectContaining({
                after: expect.objectContaining({ name: 'Nameplate (MW)' }),
              }),
            }),
          }),
        );
      },
      { timeout: 60_000, interval: 200 },
    );
    await d.stop();
  } finally {
    await rx.close();
  }
});
