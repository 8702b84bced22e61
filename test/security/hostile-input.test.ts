// Their write audit is row triggers into one table, which Citus cannot run on distributed tables (docs/scaling.md).

import { MAX_TEXT_LENGTH } from '../../src/modules/properties/text.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { onCitus } from '../helpers/citus.js';
import { describe, expect, test } from '../helpers/fixtures.js';
import {
  allRefused,
  BODY_ROUTES,
  bodyTargets,
  kindOf,
  NAME_PROP,
  RECORD_WRITES,
  type Req,
  refused,
  send,
  setup,
  valid,
  withBody,
} from './hostile.js';

/**
 * Hostile and malformed bodies and values against every REST write endpoint (from REST_ROUTES) and
 * /graphql, one test per class of input: malformed JSON, wrong Content-Type, empty and non-object
 * bodies, bodies over the limit, deep nesting, prototype keys, wrong types for every field of every
 * schema property, unknown members, arrays where scalars belong, non-finite and huge numbers, and text
 * that is too long or holds control characters. Every refusal is a 4xx with the JSON error body and a
 * code, leaks nothing and writes no row (see hostile.ts).
 */

describe.skipIf(onCitus)('hostile input: transport', () => {
  test('control: each body endpoint accepts its valid request, so the refusals below are about the bad part', async ({
    env,
  }) => {
    const c = await setup(env);
    for (const r of bodyTargets(c)) {
      const res = await send(c, r);
      expect(res.status, `${r.name}: ${res.raw}`).toBe(200);
      expect(res.body?.errors, r.name).toBeUndefined();
    }
  });

  test('malformed JSON gets 400 BAD_REQUEST', async ({ env }) => {
    const c = await setup(env);
    const bad = [
      '{',
      '{"properties":',
      '{"properties": {"name": {"text": "x"}}',
      "{'properties': {}}",
      '{"properties": {},}',
      '{"properties": {}}}',
      '{"a" 1}',
      'nul',
      'undefined',
      '{"properties": {"name": {"text": "\\x41"}}}',
      '{"properties": {"name": {"text": "unterminated}}}',
      '\u0000',
      '{"properties": {"name": {"text": "a"}}} trailing',
    ];
    await allRefused(
      c,
      bodyTargets(c).flatMap((t) =>
        bad.map((b): [Req, object] => [
          withBody(t, b, undefined, JSON.stringify(b)),
          { status: 400, code: 'BAD_REQUEST' },
        ]),
      ),
    );
  });

  test('a wrong Content-Type gets 415 UNSUPPORTED_MEDIA_TYPE', async ({ env }) => {
    const c = await setup(env);
    const types = [
      'text/plain',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'text/html',
      'application/octet-stream',
      'application/jsonx',
      'json',
    ];
    await allRefused(
      c,
      bodyTargets(c).flatMap((t) =>
        types.map((ct): [Req, object] => [
          withBody(t, JSON.stringify(t.body), { 'content-type': ct }, ct),
          { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
        ]),
      ),
    );
    // No Content-Type at all, with a JSON body.
    const problems: string[] = [];
    for (const t of bodyTargets(c)) {
      await c.audit();
      const r = await env.app.inject({
        method: t.method as 'POST',
        url: t.url + (t.query ? `?${new URLSearchParams(t.query as Record<string, string>)}` : ''),
        headers: { 'x-api-key': env.demo.users.alice.apiKey },
        payload: Buffer.from(JSON.stringify(t.body)),
      });
      if (r.statusCode !== 415) problems.push(`${t.name} without Content-Type: ${r.statusCode} ${r.body}`);
      if ((await c.audit()).length) problems.push(`${t.name} without Content-Type wrote rows`);
    }
    expect(problems).toEqual([]);
  });

  test('an empty body, or JSON that is not an object, gets 400', async ({ env }) => {
    const c = await setup(env);
    const bodies = ['', ' ', 'null', '[]', '"x"', '42', 'true', '{}', '[{"properties": {}}]'];
    await allRefused(
      c,
      bodyTargets(c).flatMap((t) =>
        bodies.map((b): [Req, object] => [
          withBody(t, b, { 'content-type': 'application/json' }, JSON.stringify(b)),
          { status: 400, code: ['BAD_REQUEST', 'VALIDATION_FAILED'] },
        ]),
      ),
    );
  });

  test('a body over the 1 MiB limit gets 413 PAYLOAD_TOO_LARGE', async ({ env }) => {
    const c = await setup(env);
    const big = 'x'.repeat(1_048_576);
    await allRefused(
      c,
      bodyTargets(c).map((t): [Req, object] => [
        withBody(t, JSON.stringify({ ...(t.body as object), pad: big }), undefined, 'over limit'),
        { status: 413, code: 'PAYLOAD_TOO_LARGE' },
      ]),
    );
  });

  test('deeply nested JSON gets 400, wherever it sits', async ({ env }) => {
    const c = await setup(env);
    const depth = 100_000;
    const arrays = '['.repeat(depth) + ']'.repeat(depth);
    const objects = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const reqs: [Req, object][] = [];
    for (const t of bodyTargets(c)) {
      const graphql = t.url === '/graphql';
      for (const [tag, deep] of [
        ['arrays', arrays],
        ['objects', objects],
      ]) {
        const bodies = graphql
          ? [
              `{"query": ${JSON.stringify((t.body as { query: string }).query)}, "variables": {"i": {"orgId": "${c.scope.orgId}", "portfolioId": "${c.scope.portfolioId}", "properties": {"name": {"text": ${deep}}}}}}`,
              `{"query": ${JSON.stringify((t.body as { query: string }).query)}, "variables": {"i": {"orgId": "${c.scope.orgId}", "portfolioId": "${c.scope.portfolioId}", "properties": {"name": {"text": "x"}, "extra": ${deep}}}}}`,
            ]
          : t.body && (t.body as { contactId?: string }).contactId
            ? [`{"contactId": ${deep}}`, `{"contactId": "${c.ids.contact2}", "extra": ${deep}}`]
            : [
                `{"properties": {"${NAME_PROP[kindOf(BODY_ROUTES.find((r) => t.name.endsWith(r.path) && t.method === r.method)!)]}": {"text": ${deep}}}}`,
                `{"properties": ${deep}}`,
                `{"properties": {"unknown": ${deep}}}`,
                `{"properties": {}, "extra": ${deep}}`,
              ];
        bodies.forEach((b, i) => {
          reqs.push([
            withBody(t, b, undefined, `${tag} #${i}`),
            { code: ['BAD_REQUEST', 'VALIDATION_FAILED'] },
          ]);
        });
      }
    }
    await allRefused(c, reqs);
  });

  test('__proto__ and constructor members are refused and pollute nothing', async ({ env }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    for (const t of bodyTargets(c).filter((x) => x.url !== '/graphql')) {
      const inner = JSON.stringify(t.body).slice(1, -1);
      for (const b of [
        `{${inner}, "__proto__": {"polluted": 1}}`,
        `{${inner}, "constructor": {"prototype": {"polluted": 1}}}`,
        t.body && (t.body as { properties?: object }).properties
          ? `{"properties": {"__proto__": {"text": "x"}}}`
          : `{"contactId": "x", "__proto__": {"polluted": 1}}`,
      ])
        reqs.push([withBody(t, b, undefined, b.slice(-40)), { status: 400 }]);
    }
    await allRefused(c, reqs);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** Wrong values for each property type, with what they are. */
function wrongValues(type: string): [string, unknown][] {
  const member =
    { text: 'text', url: 'text', email: 'text', number: 'number', date: 'date' }[type] ??
    (type === 'people' ? 'people' : 'select');
  const wrongInner: [string, unknown][] = [
    ['a number', 42],
    ['a string', 'x'],
    ['true', true],
    ['an object', { a: 1 }],
    ['an array', ['x']],
    ...(type === 'multi_select' ? [] : ([['an empty array', []]] as [string, unknown][])),
    ['a nested array', [['x']]],
  ];
  const keep = (v: unknown) => {
    if (member === 'text') return typeof v !== 'string';
    if (member === 'number') return typeof v !== 'number';
    if (member === 'date') return true;
    // select/people take arrays of ids: ['x'] is only wrong because x is no option or user.
    return true;
  };
  return [
    ['a bare string', 'x'],
    ['a bare number', 1],
    ['null', null],
    ['an array', [{ [member]: 'x' }]],
    ['an empty object', {}],
    ['the wrong member', { [member === 'text' ? 'number' : 'text']: 'x' }],
    ['two members', { [member]: null, other: 1 }],
    ['an unknown member beside', { [member]: null, extra: 'x' }],
    ['a capitalised member', { [member[0].toUpperCase() + member.slice(1)]: null }],
    ...wrongInner
      .filter(([, v]) => keep(v))
      .map(([n, v]): [string, unknown] => [`${member} as ${n}`, { [member]: v }]),
    ...(member === 'date'
      ? ([
          ['start as a number', { date: { start: 20240101 } }],
          ['start as an array', { date: { start: ['2024-01-01'] } }],
          ['an interval', { date: { start: '2024-01-01', end: '2024-02-01' } }],
          ['month 13', { date: { start: '2024-13-01' } }],
          ['a date-time', { date: { start: '2024-01-01T00:00:00Z' } }],
        ] as [string, unknown][])
      : []),
    ...(member === 'select'
      ? ([
          ['ids as numbers', { select: [1] }],
          ['a null id', { select: [null] }],
          ['an unknown option', { select: ['no-such-option'] }],
        ] as [string, unknown][])
      : []),
    ...(member === 'people'
      ? ([
          ['two users', { people: ['usr_a', 'usr_b'] }],
          ['a number', { people: [1] }],
          ['an empty id', { people: [''] }],
          ['a user of no org', { people: ['usr_0000000000000000000000'] }],
        ] as [string, unknown][])
      : []),
  ];
}

describe.skipIf(onCitus)('hostile input: values', () => {
  test('a wrong type for each field gets 400 VALIDATION_FAILED naming the field', async ({ env }) => {
    const c = await setup(env);
    const problems: string[] = [];
    for (const route of RECORD_WRITES) {
      const base = valid(c, route);
      const kind = kindOf(route);
      // The body member itself.
      for (const [n, v] of [
        ['a string', 'x'],
        ['a number', 1],
        ['true', true],
        ['null', null],
        ['an array', []],
        ['an array of objects', [{ name: { text: 'x' } }]],
      ] as [string, unknown][]) {
        problems.push(
          ...(await refused(c, withBody(base, { properties: v }, undefined, `properties as ${n}`), {
            status: 400,
            code: 'VALIDATION_FAILED',
          })),
        );
      }
      // Each property of the schema, each wrong shape; the details must name the property.
      for (const def of c.schema[kind]) {
        for (const [n, v] of wrongValues(def.property_type)) {
          const properties = {
            ...(route.method === 'POST' ? { [NAME_PROP[kind]]: { text: 'ok' } } : {}),
            [def.id]: v,
          };
          const r = withBody(base, { properties }, undefined, `${def.id} (${def.property_type}) as ${n}`);
          const found = await refused(c, r, { status: 400, code: 'VALIDATION_FAILED' });
          problems.push(...found);
          if (
            !found.length &&
            !found.res?.body.error.details?.some((d: { field: string }) => d.field === def.id)
          )
            problems.push(`${r.name}: details do not name ${def.id}: ${found.res?.raw}`);
        }
      }
    }
    // contactId of the link bodies.
    for (const route of BODY_ROUTES.filter((r) => r.body?.contactId)) {
      const base = valid(c, route);
      for (const v of [
        1,
        0,
        true,
        false,
        null,
        {},
        { id: c.ids.contact2 },
        [],
        [c.ids.contact2],
        '',
        '   ',
        '\t',
      ])
        problems.push(
          ...(await refused(
            c,
            withBody(base, { contactId: v }, undefined, `contactId ${JSON.stringify(v)}`),
            {
              status: 400,
              code: 'VALIDATION_FAILED',
            },
          )),
        );
    }
    expect(problems).toEqual([]);
  });

  test('unknown members get 400: in the body, in a value object, unknown property ids', async ({ env }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    for (const route of BODY_ROUTES) {
      const base = valid(c, route);
      const body = base.body as Record<string, unknown>;
      reqs.push([
        withBody(base, { ...body, extra: 1 }, undefined, 'extra member'),
        { status: 400, code: 'VALIDATION_FAILED' },
      ]);
      reqs.push([
        withBody(base, { ...body, Properties: {} }, undefined, 'cased member'),
        { status: 400, code: 'VALIDATION_FAILED' },
      ]);
      reqs.push([
        withBody(base, { ...body, id: 'prj_x' }, undefined, 'id member'),
        { status: 400, code: 'VALIDATION_FAILED' },
      ]);
      if (!route.body?.properties) continue;
      const kind = kindOf(route);
      const name = NAME_PROP[kind];
      for (const [tag, properties] of [
        ['value with an extra member', { [name]: { text: 'x', extra: 1 } }],
        ['unknown property id', { [name]: { text: 'x' }, no_such_property: { text: 'x' } }],
        ['property id in another case', { [name]: { text: 'x' }, [name.toUpperCase()]: { text: 'x' } }],
        ['property id with spaces', { [name]: { text: 'x' }, [` ${name} `]: { text: 'x' } }],
        [
          'read-only location',
          { [name]: { text: 'x' }, location: { location: { type: 'Point', coordinates: [0, 0] } } },
        ],
        ['empty property id', { [name]: { text: 'x' }, '': { text: 'x' } }],
        [
          '201 properties',
          {
            [name]: { text: 'x' },
            ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { text: 'x' }])),
          },
        ],
      ] as [string, object][]) {
        if (tag === 'read-only location' && kind !== 'project') continue;
        reqs.push([
          withBody(base, { properties }, undefined, tag),
          { status: 400, code: 'VALIDATION_FAILED' },
        ]);
      }
    }
    await allRefused(c, reqs);
  });

  test('arrays where scalars belong get 400', async ({ env }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    for (const route of BODY_ROUTES) {
      const base = valid(c, route);
      if (route.body?.contactId) {
        reqs.push([
          withBody(base, { contactId: [c.ids.contact2] }, undefined, 'contactId array'),
          { status: 400 },
        ]);
        reqs.push([
          withBody(base, { contactId: [[c.ids.contact2]] }, undefined, 'contactId nested'),
          { status: 400 },
        ]);
        continue;
      }
      const kind = kindOf(route);
      const n = NAME_PROP[kind];
      for (const [tag, properties] of [
        ['text array', { [n]: { text: ['x'] } }],
        ['value array', { [n]: [{ text: 'x' }] }],
        [
          'number array',
          {
            [n]: { text: 'x' },
            [kind === 'contact' ? 'acres_owned' : kind === 'parcel' ? 'acreage' : 'capacity_mw']: {
              number: [1],
            },
          },
        ],
        [
          'date start array',
          {
            [n]: { text: 'x' },
            [kind === 'contact' ? 'last_contacted' : kind === 'parcel' ? 'option_expiry' : 'cod']: {
              date: { start: ['2024-01-01'] },
            },
          },
        ],
        [
          'people nested',
          {
            [n]: { text: 'x' },
            [kind === 'contact' ? 'relationship_owner' : kind === 'parcel' ? 'land_agent' : 'owner']: {
              people: [[c.env.demo.users.bob.uid]],
            },
          },
        ],
        ['properties array', [[n, { text: 'x' }]]],
      ] as [string, object][])
        reqs.push([
          withBody(base, { properties }, undefined, tag),
          { status: 400, code: 'VALIDATION_FAILED' },
        ]);
    }
    await allRefused(c, reqs);
  });

  test('NaN, Infinity and numbers out of range get 400; extreme finite numbers round-trip exactly', async ({
    env,
  }) => {
    const c = await setup(env);
    const route = REST_ROUTES.find((r) => r.method === 'PUT' && r.path === '/projects/v1/:id')!;
    const base = valid(c, route);
    const raw = (n: string) => `{"properties": {"capacity_mw": {"number": ${n}}}}`;
    const reqs: [Req, object][] = [
      ...['NaN', 'Infinity', '-Infinity', '+1', '.5', '1.', '0x10', '01', '1e', '--1', '1_000'].map(
        (n): [Req, object] => [withBody(base, raw(n), undefined, n), { status: 400, code: 'BAD_REQUEST' }],
      ),
      ...['1e400', '-1e400', '1e999999', '-1e99999999', `1${'0'.repeat(400)}`].map((n): [Req, object] => [
        withBody(base, raw(n), undefined, n.slice(0, 20)),
        { status: 400, code: 'VALIDATION_FAILED' },
      ]),
      ...['"1"', '"NaN"', '"Infinity"', 'null, "x": 1', '[1]', '{"$numberDecimal": "1"}'].map(
        (n): [Req, object] => [
          withBody(base, raw(n), undefined, n),
          { status: 400, code: 'VALIDATION_FAILED' },
        ],
      ),
    ];
    // The GraphQL twin: Float and Int arguments out of range are refused before anything runs.
    const gql = (query: string): Req => ({
      name: `graphql ${query.slice(0, 60)}`,
      method: 'POST',
      url: '/graphql',
      body: { query },
    });
    reqs.push(
      [gql(`{ organizations { portfolios { projects(first: 1e400) { totalCount } } } }`), { status: 400 }],
      [
        gql(`{ organizations { portfolios { projects(first: 99999999999) { totalCount } } } }`),
        { status: 400 },
      ],
      [
        gql(`{ organizations { portfolios { projects(first: -1) { totalCount } } } }`),
        { code: 'VALIDATION_FAILED' },
      ],
    );
    await allRefused(c, reqs);

    const problems: string[] = [];
    for (const n of [
      '1.7976931348623157e308',
      '-1.7976931348623157e308',
      '5e-324',
      '123456789012345678901234567890',
      '0.1',
      '1e-7',
      '-0',
      '0.30000000000000004',
      '1E+2',
    ]) {
      const r = await send(c, withBody(base, raw(n)));
      const want = JSON.parse(n) === 0 ? 0 : JSON.parse(n);
      const got = r.body?.properties?.capacity_mw?.number;
      if (r.status !== 200 || got !== want) problems.push(`${n}: ${r.status}, got ${got}, want ${want}`);
      const g = await c.env.as.alice.gql('query ($id: ID!) { project(id: $id) { properties } }', {
        id: c.ids.project,
      });
      if (g.body.data?.project?.properties?.capacity_mw?.number !== want)
        problems.push(`${n}: stored ${JSON.stringify(g.body)}`);
    }
    expect(problems).toEqual([]);
  });

  test('text far too long and control characters get 400; the limit itself and tab/CR/LF are fine', async ({
    env,
  }) => {
    const c = await setup(env);
    const reqs: [Req, object][] = [];
    const bad = [
      ['10 001 characters', 'x'.repeat(MAX_TEXT_LENGTH + 1)],
      ['900 000 characters', 'x'.repeat(900_000)],
      ['10 001 emoji', '☀'.repeat(MAX_TEXT_LENGTH + 1)],
      ['NUL', 'a\u0000b'],
      ['only NUL', '\u0000'],
      ['SOH', '\u0001'],
      ['US', '\u001f'],
      ['DEL', 'a\u007f'],
      ['backspace', 'a\bb'],
      ['form feed', 'a\fb'],
      ['vertical tab', 'a\u000bb'],
      ['ESC sequence', '\u001b[31mred'],
      ['lone high surrogate', 'a\ud800b'],
      ['lone low surrogate', '\udc00'],
    ];
    for (const route of RECORD_WRITES) {
      const base = valid(c, route);
      const kind = kindOf(route);
      const textProps = c.schema[kind].filter((d) => ['text', 'url', 'email'].includes(d.property_type));
      for (const def of textProps)
        for (const [tag, text] of bad)
          reqs.push([
            withBody(
              base,
              { properties: { [NAME_PROP[kind]]: { text: 'ok' }, [def.id]: { text } } },
              undefined,
              `${def.id} ${tag}`,
            ),
            { status: 400, code: 'VALIDATION_FAILED' },
          ]);
      // NUL elsewhere: in a property id, a select option, a people id.
      for (const [tag, properties] of [
        ['NUL in a property id', { [NAME_PROP[kind]]: { text: 'ok' }, 'na\u0000me': { text: 'x' } }],
        [
          'NUL in an option id',
          {
            [NAME_PROP[kind]]: { text: 'ok' },
            [c.schema[kind].find((d) => d.select)!.id]: { select: ['\u0000'] },
          },
        ],
        [
          'NUL in a user id',
          {
            [NAME_PROP[kind]]: { text: 'ok' },
            [c.schema[kind].find((d) => d.property_type === 'people')!.id]: { people: ['usr_\u0000'] },
          },
        ],
      ] as [string, object][])
        reqs.push([
          withBody(base, { properties }, undefined, tag),
          { status: 400, code: 'VALIDATION_FAILED' },
        ]);
    }
    for (const route of BODY_ROUTES.filter((r) => r.body?.contactId)) {
      const base = valid(c, route);
      for (const v of ['con_\u0000', '\u0000', `${c.ids.contact2}\u0000`, 'x'.repeat(100_000)])
        reqs.push([
          withBody(base, { contactId: v }, undefined, `contactId ${JSON.stringify(v).slice(0, 20)}`),
          { code: ['VALIDATION_FAILED', 'NOT_FOUND'] },
        ]);
    }
    await allRefused(c, reqs);

    // The limit itself (counted in code points), and the allowed whitespace, are stored as sent.
    const problems: string[] = [];
    const put = valid(c, REST_ROUTES.find((r) => r.method === 'PUT' && r.path === '/contacts/v1/:id')!);
    for (const text of [
      'x'.repeat(MAX_TEXT_LENGTH),
      '☀'.repeat(MAX_TEXT_LENGTH),
      'tab\there\r\nnew line\n',
      '\u202eevil',
      'ｆｕｌｌ',
      '𝔘𝔫𝔦',
    ]) {
      const r = await send(c, withBody(put, { properties: { phone: { text } } }));
      if (r.status !== 200 || r.body.properties.phone.text !== text)
        problems.push(`${JSON.stringify(text.slice(0, 20))}: ${r.status}`);
    }
    expect(problems).toEqual([]);
  });
});
