// Their write audit is row triggers into one table, which Citus cannot run on distributed tables (docs/scaling.md).

import { REST_ROUTES, type RestRoute } from '../../src/rest/routes.js';
import { onCitus } from '../helpers/citus.js';
import { describe, expect, test } from '../helpers/fixtures.js';
import {
  allRefused,
  type Ctx,
  kindOf,
  LIST_ROUTES,
  NAME_PROP,
  type Req,
  refused,
  send,
  setup,
  valid,
  withBody,
} from './hostile.js';

/**
 * Hostile input through everything that is not a body: SQL and JSON-path injection strings (stored
 * verbatim when they are values, refused when they are ids, keys, options or parameters), orgId and
 * portfolioId missing/empty/repeated, other tenants' ids, NUL and malformed percent-encoding in ids and
 * parameters (REST and GraphQL), invalid limits and startKeys, and duplicate parameters.
 */

/** Percent-encodes for a path; a lone surrogate (which has no UTF-8) becomes its CESU bytes, invalid UTF-8. */
const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};

interface Slot {
  name: string;
  /** Which routes have this slot. */
  on: (r: RestRoute) => boolean;
  /** The valid request with `s` in this slot. */
  put: (v: Req, r: RestRoute, s: string) => Req;
  /** What an injection string in this slot must get. */
  want: { status?: number; code?: string };
  /** An id or scope slot (NUL and the like are tried there too). */
  raw?: boolean;
}

/** Every place a string can enter a REST request other than a property value. */
function slots(c: Ctx): Slot[] {
  const tag = (s: string) => JSON.stringify(s.slice(0, 24));
  const notFound = { status: 404, code: 'NOT_FOUND' };
  const invalid = { status: 400, code: 'VALIDATION_FAILED' };
  return [
    {
      name: 'id',
      raw: true,
      on: (r) => r.path.includes(':id'),
      put: (v, r, s) => ({
        ...v,
        name: `${v.name} id=${tag(s)}`,
        url: r.path.replace(':id', enc(s)).replace(':contactId', c.ids.contact),
      }),
      want: notFound,
    },
    {
      name: 'contactId in the path',
      raw: true,
      on: (r) => r.path.includes(':contactId'),
      put: (v, r, s) => ({
        ...v,
        name: `${v.name} contactId=${tag(s)}`,
        url: r.path.replace(':id', c.ids[kindOf(r)]).replace(':contactId', enc(s)),
      }),
      want: notFound,
    },
    {
      name: 'orgId',
      raw: true,
      on: (r) => !!r.query.orgId,
      put: (v, _r, s) => ({ ...v, name: `${v.name} orgId=${tag(s)}`, query: { ...v.query, orgId: s } }),
      want: notFound,
    },
    {
      name: 'portfolioId',
      raw: true,
      on: (r) => !!r.query.portfolioId,
      put: (v, _r, s) => ({
        ...v,
        name: `${v.name} portfolioId=${tag(s)}`,
        query: { ...v.query, portfolioId: s },
      }),
      want: notFound,
    },
    {
      name: 'startKey',
      on: (r) => !!r.query.paging,
      put: (v, _r, s) => ({ ...v, name: `${v.name} startKey=${tag(s)}`, query: { ...v.query, startKey: s } }),
      want: { status: 400, code: 'INVALID_CURSOR' },
    },
    {
      name: 'limit',
      on: (r) => !!r.query.paging,
      put: (v, _r, s) => ({ ...v, name: `${v.name} limit=${tag(s)}`, query: { ...v.query, limit: s } }),
      want: invalid,
    },
    {
      name: 'contactId in the body',
      raw: true,
      on: (r) => !!r.body?.contactId,
      put: (v, _r, s) => withBody(v, { contactId: s }, undefined, `contactId=${tag(s)}`),
      want: notFound,
    },
    {
      name: 'property id',
      on: (r) => !!r.body?.properties,
      put: (v, r, s) =>
        withBody(
          v,
          { properties: { [NAME_PROP[kindOf(r)]]: { text: 'x' }, [s]: { text: 'x' } } },
          undefined,
          `key=${tag(s)}`,
        ),
      want: invalid,
    },
    {
      name: 'option id',
      on: (r) => !!r.body?.properties,
      put: (v, r, s) => {
        const kind = kindOf(r);
        const sel = c.schema[kind].find((d) => d.select)!.id;
        return withBody(
          v,
          { properties: { [NAME_PROP[kind]]: { text: 'x' }, [sel]: { select: [s] } } },
          undefined,
          `option=${tag(s)}`,
        );
      },
      want: invalid,
    },
    {
      name: 'people id',
      on: (r) => !!r.body?.properties,
      put: (v, r, s) => {
        const kind = kindOf(r);
        const people = c.schema[kind].find((d) => d.property_type === 'people')!.id;
        return withBody(
          v,
          { properties: { [NAME_PROP[kind]]: { text: 'x' }, [people]: { people: [s] } } },
          undefined,
          `people=${tag(s)}`,
        );
      },
      want: invalid,
    },
  ];
}

/** Strings an attacker would try on SQL, jsonb and JSON-path handling, and on templates. */
const INJECTIONS = [
  "'; drop table projects; --",
  "'); delete from contacts where ('1'='1",
  '" OR 1=1 --',
  "\\' OR 1=1",
  "' OR '1'='1",
  "' || pg_sleep(5) --",
  "' union select key_hash from api_keys --",
  '$.a[*] ? (@ > 1)',
  'lax $.** ? (@ like_regex ".*")',
  "properties->>'name'",
  "@> '{}'",
  '{"$ne":null}',
  '{"$gt":""}',
  '$1',
  '%s%s%s%n',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as plain text
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '\\',
  "'",
  '"',
  '\\u0000',
  'null',
  '[]',
  '{"text": "x"}',
];

describe.skipIf(onCitus)('hostile input: injection strings', () => {
  test('are stored and returned verbatim as plain text, over REST and GraphQL', async ({ env }) => {
    const c = await setup(env);
    const problems: string[] = [];
    const before = await env.database.db
      .selectFrom('projects')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('org_id', '=', c.scope.orgId)
      .executeTakeFirst();
    for (const s of INJECTIONS) {
      // REST create, REST update, GraphQL update: the value comes back as sent, and is stored as sent.
      const created = await env.as.alice.post('/projects/v1', { properties: { name: { text: s } } }, c.scope);
      if (created.status !== 200 || created.body.properties.name.text !== s)
        problems.push(`create ${s}: ${created.raw}`);
      const upd = await env.as.alice.put(
        `/contacts/v1/${c.ids.contact}`,
        { properties: { last_name: { text: s }, phone: { text: s } } },
        c.scope,
      );
      if (
        upd.status !== 200 ||
        upd.body.properties.last_name.text !== s ||
        upd.body.properties.phone.text !== s
      )
        problems.push(`update ${s}: ${upd.raw}`);
      const g = await env.as.alice.gql(
        'mutation ($i: UpdateRecordInput!) { updateParcel(input: $i) { parcel { properties value(propertyId: "apn") { ... on TextValue { text } } } } }',
        { i: { id: c.ids.parcel, properties: { apn: { text: s } } } },
      );
      if (g.body.data?.updateParcel?.parcel?.value?.text !== s) problems.push(`graphql ${s}: ${g.raw}`);
      const rows = await env.database.db
        .selectFrom('contacts')
        .select('properties')
        .where('org_id', '=', c.scope.orgId)
        .where('id', '=', c.ids.contact)
        .executeTakeFirst();
      if ((rows?.properties as any)?.last_name?.text !== s)
        problems.push(`stored ${s}: ${JSON.stringify(rows)}`);
      const list = await env.as.alice.get(`/projects/v1/${c.ids.project}/contacts`, c.scope);
      if (list.status !== 200) problems.push(`list after ${s}: ${list.status}`);
    }
    // Every table is still there, and the creates all landed.
    const after = await env.database.db
      .selectFrom('projects')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('org_id', '=', c.scope.orgId)
      .executeTakeFirst();
    expect(Number(after?.n) - Number(before?.n)).toBe(INJECTIONS.length);
    expect(problems).toEqual([]);
  });

  test('in ids, parameters, keys and options they are refused with 4xx and change nothing', async ({
    env,
  }) => {
    const c = await setup(env);
    // Each string goes through every slot (path id, contactId, orgId, …); the route of each slot rotates
    // with the string, so every route's slots see some of the strings and the run stays short.
    const reqs: [Req, object][] = [];
    INJECTIONS.forEach((s, i) => {
      for (const slot of slots(c)) {
        const routes = REST_ROUTES.filter(slot.on);
        const route = routes[i % routes.length];
        reqs.push([slot.put(valid(c, route), route, s), slot.want]);
      }
    });
    await allRefused(c, reqs);
  });
});

describe.skipIf(onCitus)('hostile input: query parameters', () => {
  test('orgId and portfolioId missing, empty, blank or repeated get 400 on every route that takes them', async ({
    env,
  }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    for (const route of REST_ROUTES) {
      const v = valid(c, route);
      for (const p of ['orgId', 'portfolioId'] as const) {
        if (!(route.query as Record<string, unknown>)[p]) continue;
        const q = v.query as Record<string, string>;
        const { [p]: _, ...without } = q;
        for (const [tag, query] of [
          ['missing', without],
          ['empty', { ...q, [p]: '' }],
          ['blank', { ...q, [p]: '   ' }],
          ['repeated', { ...q, [p]: [q[p], q[p]] }],
          [
            'repeated with another',
            { ...q, [p]: [q[p], p === 'orgId' ? c.env.demo.orgs.B.id : c.env.demo.orgs.B.portfolios.B1] },
          ],
          ['repeated, one empty', { ...q, [p]: [q[p], ''] }],
        ] as [string, Record<string, string | string[]>][])
          reqs.push([
            { ...v, name: `${v.name} ${p} ${tag}`, query },
            { status: 400, code: 'VALIDATION_FAILED' },
          ]);
      }
      // Unknown parameters are ignored, but bracket forms do not sneak a value in.
      if (route.query.orgId) {
        const { orgId: _, ...rest } = v.query as Record<string, string>;
        reqs.push([
          { ...v, name: `${v.name} orgId[]`, query: { ...rest, 'orgId[]': c.scope.orgId } },
          { status: 400, code: 'VALIDATION_FAILED' },
        ]);
      }
    }
    await allRefused(c, reqs);
  });

  test('ids of other tenants get 404 and change nothing', async ({ env }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    const B = c.env.demo.orgs.B;
    for (const route of REST_ROUTES) {
      const v = valid(c, route);
      if (route.query.orgId)
        reqs.push([
          { ...v, name: `${v.name} orgId of B`, query: { ...v.query, orgId: B.id } },
          { status: 404, code: 'NOT_FOUND' },
        ]);
      if (route.query.portfolioId)
        reqs.push([
          { ...v, name: `${v.name} portfolioId of B`, query: { ...v.query, portfolioId: B.portfolios.B1 } },
          { status: 404, code: 'NOT_FOUND' },
        ]);
      if (route.path.includes(':id'))
        reqs.push([
          {
            ...v,
            name: `${v.name} id of B`,
            url: route.path.replace(':id', c.foreign[kindOf(route)]).replace(':contactId', c.ids.contact),
          },
          { status: 404, code: 'NOT_FOUND' },
        ]);
      if (route.path.includes(':contactId'))
        reqs.push([
          {
            ...v,
            name: `${v.name} contactId of B`,
            url: route.path.replace(':id', c.ids[kindOf(route)]).replace(':contactId', c.foreign.contact),
          },
          { status: 404, code: 'NOT_FOUND' },
        ]);
      if (route.body?.contactId)
        reqs.push([
          withBody(v, { contactId: c.foreign.contact }, undefined, 'contactId of B'),
          { status: 404, code: 'NOT_FOUND' },
        ]);
      if (route.body?.properties) {
        const kind = kindOf(route);
        const people = c.schema[kind].find((d) => d.property_type === 'people')!.id;
        reqs.push([
          withBody(
            v,
            {
              properties: {
                [NAME_PROP[kind]]: { text: 'x' },
                [people]: { people: [c.env.demo.users.nora.uid] },
              },
            },
            undefined,
            'people of B',
          ),
          { status: 400, code: 'VALIDATION_FAILED' },
        ]);
      }
    }
    await allRefused(c, reqs);
  });

  test('NUL and other oddities in ids and parameters get 4xx, never 500', async ({ env }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    const odd = ['\u0000', 'x\u0000', '\u0001', '\ud800', '%00', ' ', '\n', 'x'.repeat(5000)];
    // Every route, every id or scope slot it has, two of the odd values each (rotating).
    REST_ROUTES.forEach((route, i) => {
      for (const slot of slots(c).filter((x) => x.raw && x.on(route)))
        for (const s of [odd[i % odd.length], odd[(i + 1) % odd.length]])
          reqs.push([slot.put(valid(c, route), route, s), {}]);
      if (route.path.includes(':id'))
        for (const bad of ['%E0%A4%A', '%ZZ', '%'])
          reqs.push([
            {
              ...valid(c, route),
              name: `${route.method} ${route.path} id ${bad}`,
              url: route.path.replace(':id', bad).replace(':contactId', c.ids.contact),
            },
            { status: 400, code: 'BAD_REQUEST' },
          ]);
    });
    // The same through GraphQL arguments.
    for (const s of [
      '\u0000',
      'prj_\u0000',
      'pf_\u0000',
      'con_\u0000',
      'usr_\u0000',
      'org_\u0000',
      'par_\u0000',
    ]) {
      for (const q of [
        'query ($id: ID!) { node(id: $id) { id } }',
        'query ($id: ID!) { project(id: $id) { id } }',
        'query ($id: ID!) { contact(id: $id) { id } }',
        'query ($id: ID!) { parcel(id: $id) { id } }',
        'query ($id: ID!) { organization(id: $id) { id } }',
        `query ($id: ID!) { organization(id: "${c.scope.orgId}") { portfolio(id: $id) { id } } }`,
        'mutation ($id: ID!) { deleteProject(input: { id: $id }) { deletedId } }',
        'mutation ($id: ID!) { createContact(input: { orgId: "' +
          c.scope.orgId +
          '", portfolioId: $id, properties: { first_name: { text: "x" } } }) { contact { id } } }',
        `mutation ($id: ID!) { linkProjectContact(input: { projectId: "${c.ids.project}", contactId: $id }) { linked } }`,
      ]) {
        const res = await c.env.as.alice.gql(q, { id: s });
        const code = res.body?.errors?.[0]?.extensions?.code;
        if (res.status >= 500 || code === 'INTERNAL' || (code === undefined && res.body?.errors))
          reqs.push([
            {
              name: `graphql ${q.slice(0, 50)} ${JSON.stringify(s)}: ${res.status} ${res.raw.slice(0, 200)}`,
              method: 'X',
              url: '',
            },
            {},
          ]);
      }
    }
    const problems: string[] = [];
    for (const [r, want] of reqs) {
      if (r.method === 'X') {
        problems.push(r.name);
        continue;
      }
      problems.push(...(await refused(c, r, want)));
    }
    expect(problems).toEqual([]);
  });
});

describe.skipIf(onCitus)('hostile input: paging', () => {
  test('an invalid or out-of-range limit gets 400 on every list', async ({ env }) => {
    const c = await setup(env);
    const limits = [
      '0',
      '-1',
      '5001',
      '99999',
      '99999999999999999999',
      '1.5',
      '1e3',
      '0x10',
      'abc',
      '',
      ' ',
      ' 1',
      '1 ',
      '+1',
      '١',
      'NaN',
      'Infinity',
      '1,2',
      '10%',
    ];
    await allRefused(
      c,
      LIST_ROUTES.flatMap((route) => {
        const v = valid(c, route);
        return [
          ...limits.map((l): [Req, object] => [
            { ...v, name: `${v.name} limit=${JSON.stringify(l)}`, query: { ...v.query, limit: l } },
            { status: 400, code: 'VALIDATION_FAILED' },
          ]),
          [
            { ...v, name: `${v.name} limit twice`, query: { ...v.query, limit: ['1', '2'] } },
            { status: 400, code: 'VALIDATION_FAILED' },
          ],
        ];
      }),
    );
  });

  test('a garbage, tampered, foreign or repeated startKey gets 400 on every list', async ({ env }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    // A real key from the portfolio's project list, to tamper with and to replay on the other lists.
    const real = (await env.as.alice.get('/projects/v1', { ...c.scope, limit: '1' })).body.nextKey as string;
    expect(real).toEqual(expect.any(String));
    const [payload, sig] = real.split('.');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const forged = `${Buffer.from(JSON.stringify([0, 'prj_0'])).toString('base64url')}.${sig}`;
    const keys = [
      'abc',
      '.',
      'a.',
      '.b',
      'a.b.c',
      flip(payload, 2) + '.' + sig,
      payload + '.' + flip(sig, 3),
      payload + '.',
      forged,
      Buffer.from('[1,"x"]').toString('base64url'),
      'x'.repeat(10_000),
      `${real}\u0000`,
      `${real} `,
      ' ',
    ];
    for (const route of LIST_ROUTES) {
      const v = valid(c, route);
      for (const k of keys)
        reqs.push([
          {
            ...v,
            name: `${v.name} startKey=${JSON.stringify(k.slice(0, 30))}`,
            query: { ...v.query, startKey: k },
          },
          { status: 400, code: ['INVALID_CURSOR', 'VALIDATION_FAILED'] },
        ]);
      reqs.push([
        { ...v, name: `${v.name} startKey twice`, query: { ...v.query, startKey: [real, real] } },
        { status: 400, code: 'VALIDATION_FAILED' },
      ]);
      if (route.path !== '/projects/v1')
        reqs.push([
          { ...v, name: `${v.name} startKey of another list`, query: { ...v.query, startKey: real } },
          { status: 400, code: 'INVALID_CURSOR' },
        ]);
    }
    // The same key on the same list but another portfolio (A2) is another list too.
    reqs.push([
      {
        name: 'GET /projects/v1 startKey of A1 on A2',
        method: 'GET',
        url: '/projects/v1',
        query: { orgId: c.scope.orgId, portfolioId: env.demo.orgs.A.portfolios.A2, startKey: real },
      },
      { status: 400, code: 'INVALID_CURSOR' },
    ]);
    await allRefused(c, reqs);
  });
});

describe.skipIf(onCitus)('hostile input: duplicates', () => {
  test('duplicate query parameters get 400 on every route; duplicate JSON members keep the last, as JSON.parse does', async ({
    env,
  }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    for (const route of REST_ROUTES) {
      const v = valid(c, route);
      const q = v.query as Record<string, string>;
      for (const p of Object.keys(q))
        reqs.push([
          { ...v, name: `${v.name} ${p} twice`, query: { ...q, [p]: [q[p], q[p]] } },
          { status: 400, code: 'VALIDATION_FAILED' },
        ]);
      if (route.query.paging)
        reqs.push([
          { ...v, name: `${v.name} limit thrice`, query: { ...q, limit: ['5', '5', '5'] } },
          { status: 400, code: 'VALIDATION_FAILED' },
        ]);
    }
    await allRefused(c, reqs);

    // A body with a member twice is one JSON object to the parser: the last wins, and what the answer
    // says was stored is what is stored.
    const put = valid(c, REST_ROUTES.find((r) => r.method === 'PUT' && r.path === '/projects/v1/:id')!);
    const r = await send(
      c,
      withBody(put, '{"properties": {"name": {"text": "first"}, "name": {"text": "second"}}}'),
    );
    expect(r.status).toBe(200);
    expect(r.body.properties.name.text).toBe('second');
    const g = await env.as.alice.gql('query ($id: ID!) { project(id: $id) { properties } }', {
      id: c.ids.project,
    });
    expect(g.body.data.project.properties.name.text).toBe('second');
  });
});
