import { MAX_TEXT_LENGTH } from '../src/modules/properties/text.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import type { Res } from './helpers/http.js';
import {
  a1,
  countIn,
  details,
  fields,
  freshOrg,
  freshPortfolio,
  insertRecords,
  stored,
} from './records-helpers.js';

/**
 * Property values over REST: every type valid and invalid, clearing, required, read-only and unknown
 * keys, and that a refused write changes nothing. The project schema of the demo org has one property
 * of every type: name (text, required), website (url), developer_email (email), capacity_mw (number),
 * cod (date), stage (select), offtake (multi_select), owner (people).
 */

type Env = TestEnv;

const createProject = (env: Env, properties: unknown, who: 'alice' | 'bob' = 'alice') =>
  env.as[who].post('/projects/v1', { properties }, a1(env));

const updateProject = (env: Env, id: string, properties: unknown) =>
  env.as.alice.put(`/projects/v1/${id}`, { properties }, a1(env));

/** Sets one property on a new project; returns the response. */
const setOne = (env: Env, id: string, value: unknown) =>
  createProject(env, { name: { text: 'Probe' }, [id]: value });

/** The single detail of a 400 about `field`. */
function oneProblem(r: Res, field: string): string {
  const d = details(r);
  expect(d.map((x) => x.field)).toEqual([field]);
  return d[0].reason;
}

describe('each property type: valid values are stored as sent', () => {
  test('text, url, email, number, date, select, multi_select and people', async ({ env }) => {
    const { bob } = env.demo.users;
    const sent = {
      name: { text: 'Zürich Süd ☀️ "quoted"\nline two' },
      website: { text: 'https://projects.example.com/a-b?x=1#top' },
      developer_email: { text: 'dev.team+solar@example.co.uk' },
      capacity_mw: { number: 12.75 },
      cod: { date: { start: '2024-02-29' } },
      stage: { select: ['permitting'] },
      offtake: { select: ['rec', 'ppa'] },
      owner: { people: [bob.uid] },
    };
    const r = await createProject(env, sent);
    expect(r.status).toBe(200);
    expect(r.body.properties).toEqual({
      ...sent,
      stage: { select: ['permitting'], labels: ['Permitting'] },
      offtake: { select: ['rec', 'ppa'], labels: ['REC sale', 'PPA'] },
      owner: { people: [bob.uid], labels: ['Bob Barrera'] },
    });
    // Labels are computed on read, not stored.
    expect((await stored(env, 'project', r.body.id)).properties).toEqual(sent);
  });

  test('numbers: integers, negatives, zero, decimals and exponents are finite numbers', async ({ env }) => {
    for (const n of [0, -3, 42, 0.001, 1e21, -273.15]) {
      const r = await setOne(env, 'capacity_mw', { number: n });
      expect(r.status, String(n)).toBe(200);
      expect(r.body.properties.capacity_mw).toEqual({ number: n });
    }
  });

  test('http and https URLs of any shape are accepted', async ({ env }) => {
    for (const u of ['http://localhost:8080/x', 'https://例え.jp/パス', 'HTTPS://EXAMPLE.COM']) {
      const r = await setOne(env, 'website', { text: u });
      expect(r.status, u).toBe(200);
      expect(r.body.properties.website).toEqual({ text: u });
    }
  });

  test(`text is capped at ${MAX_TEXT_LENGTH} characters, counted as characters`, async ({ env }) => {
    expect((await setOne(env, 'name', { text: 'x'.repeat(MAX_TEXT_LENGTH) })).status).toBe(200);
    // Astral characters (emoji) are one character each, though JavaScript counts two code units.
    expect((await setOne(env, 'name', { text: '☀'.repeat(MAX_TEXT_LENGTH) })).status).toBe(200);
    expect((await setOne(env, 'name', { text: '🌞'.repeat(MAX_TEXT_LENGTH) })).status).toBe(200);
    const long = await setOne(env, 'name', { text: 'x'.repeat(MAX_TEXT_LENGTH + 1) });
    expect(oneProblem(long, 'name')).toMatch(String(MAX_TEXT_LENGTH));
    expect(oneProblem(await setOne(env, 'name', { text: '🌞'.repeat(MAX_TEXT_LENGTH + 1) }), 'name')).toMatch(
      String(MAX_TEXT_LENGTH),
    );
  });

  test('dates: leap days and years before 100 are real calendar dates', async ({ env }) => {
    for (const d of ['2024-02-29', '2000-02-29', '0099-12-31', '0001-01-01', '9999-12-31']) {
      const r = await setOne(env, 'cod', { date: { start: d } });
      expect(r.status, d).toBe(200);
      expect(r.body.properties.cod).toEqual({ date: { start: d } });
    }
  });
});

describe('each property type: invalid values get 400 naming the property', () => {
  const cases: [property: string, value: unknown, reason: RegExp][] = [
    // text, url and email take { text: string }
    ['name', { text: 42 }, /string/],
    ['name', { text: ['a'] }, /string/],
    ['name', { text: 'bell\u0007' }, /control/],
    ['website', { text: 'example.com' }, /http/],
    ['website', { text: 'ftp://example.com/file' }, /http/],
    ['website', { text: 'javascript:alert(1)' }, /http/],
    ['website', { text: 'mailto:a@example.com' }, /http/],
    ['website', { text: 'https://' }, /http/],
    ['website', { text: 'http:example.com' }, /http/],
    ['website', { text: 'https://exa mple.com' }, /http/],
    ['website', { text: 'https://example.com/a b' }, /http/],
    ['developer_email', { text: 'no-at-sign' }, /e-mail/],
    ['developer_email', { text: 'a@b' }, /e-mail/],
    ['developer_email', { text: 'a b@example.com' }, /e-mail/],
    ['developer_email', { text: '@example.com' }, /e-mail/],
    ['developer_email', { text: 'a@@example.com' }, /e-mail/],
    ['developer_email', { text: 'a@example..com' }, /e-mail/],
    ['developer_email', { text: 'a@example.com.' }, /e-mail/],
    ['developer_email', { text: 'a@.example.com' }, /e-mail/],
    ['developer_email', { text: `${'a'.repeat(250)}@example.com` }, /e-mail/],
    // number takes a finite JSON number, never a string
    ['capacity_mw', { number: '42' }, /number/],
    ['capacity_mw', { number: true }, /number/],
    ['capacity_mw', { number: [1] }, /number/],
    ['capacity_mw', { number: {} }, /number/],
    // date takes { start: "YYYY-MM-DD" }, a real date, nothing else
    ['cod', { date: { start: '2023-02-29' } }, /calendar date/],
    ['cod', { date: { start: '2023-02-30' } }, /calendar date/],
    ['cod', { date: { start: '2023-13-01' } }, /calendar date/],
    ['cod', { date: { start: '2023-04-31' } }, /calendar date/],
    ['cod', { date: { start: '0000-01-01' } }, /calendar date/],
    ['cod', { date: { start: '2023-1-5' } }, /calendar date/],
    ['cod', { date: { start: '2023-01-05T00:00:00Z' } }, /calendar date/],
    ['cod', { date: { start: 20230105 } }, /calendar date/],
    ['cod', { date: { start: null } }, /calendar date/],
    ['cod', { date: {} }, /calendar date/],
    ['cod', { date: '2023-01-05' }, /object/],
    ['cod', { date: { start: '2024-01-01', end: '2024-02-01' } }, /"end".*not supported/],
    ['cod', { date: { start: '2024-01-01', end: null } }, /"end".*not supported/],
    // select takes exactly one known option id
    ['stage', { select: ['nope'] }, /unknown option "nope"/],
    ['stage', { select: ['permitting', 'construction'] }, /exactly one/],
    ['stage', { select: [] }, /exactly one/],
    ['stage', { select: 'permitting' }, /array/],
    ['stage', { select: [1] }, /array/],
    ['stage', { select: ['Permitting'] }, /unknown option/],
    // multi_select takes known option ids
    ['offtake', { select: ['ppa', 'nope', 'zap'] }, /unknown option "nope", "zap"/],
    ['offtake', { select: 'ppa' }, /array/],
    ['offtake', { select: [null] }, /array/],
    // people takes exactly one user id of the organization
    ['owner', { people: [] }, /exactly one/],
    ['owner', { people: 'usr_x' }, /exactly one/],
    ['owner', { people: [''] }, /exactly one/],
    ['owner', { people: [42] }, /exactly one/],
    ['owner', { people: ['usr_doesnotexist000000000000'] }, /not a member/],
    // the value object has exactly one member, named after the type
    ['name', 'just a string', /object/],
    ['name', null, /object/],
    ['name', ['x'], /object/],
    ['name', {}, /exactly one member "text"/],
    ['name', { number: 5 }, /exactly one member "text"/],
    ['name', { text: 'a', number: 5 }, /exactly one member "text"/],
    ['capacity_mw', { text: '5' }, /exactly one member "number"/],
    ['cod', { start: '2024-01-01' }, /exactly one member "date"/],
    ['stage', { option: ['permitting'] }, /exactly one member "select"/],
    ['owner', { user: 'x' }, /exactly one member "people"/],
    ['name', { text: 'a', labels: 'nope' }, /labels/],
  ];

  test.for(cases)('%s = %j', async ([property, value, reason], { env }) => {
    const before = await countIn(env, 'projects', a1(env).portfolioId);
    const r = await setOne(env, property, value);
    expect(oneProblem(r, property)).toMatch(reason);
    expect(r.body.error.message).toMatch(/invalid/);
    expect(await countIn(env, 'projects', a1(env).portfolioId)).toBe(before);
  });

  test('a number too large for a double (1e400) arrives as Infinity and is refused', async ({ env }) => {
    const r = await env.as.alice.send('POST', '/projects/v1', {
      query: a1(env),
      body: '{"properties":{"name":{"text":"Big"},"capacity_mw":{"number":1e400}}}',
    });
    expect(oneProblem(r, 'capacity_mw')).toMatch(/finite/);
  });

  test('a lone surrogate in text is refused with 400, not a database error', async ({ env }) => {
    const r = await env.as.alice.send('POST', '/projects/v1', {
      query: a1(env),
      body: '{"properties":{"name":{"text":"broken \\ud800 pair"}}}',
    });
    expect(oneProblem(r, 'name')).toMatch(/Unicode/);
  });

  test('a people value naming a user of another organization is refused', async ({ env }) => {
    const r = await setOne(env, 'owner', { people: [env.demo.users.nora.uid] });
    expect(oneProblem(r, 'owner')).toMatch(/not a member or guest of this organization/);
  });

  test('the guest of one portfolio counts as a user of the organization', async ({ env }) => {
    const r = await setOne(env, 'owner', { people: [env.demo.users.gina.uid] });
    expect(r.status).toBe(200);
    expect(r.body.properties.owner).toEqual({ people: [env.demo.users.gina.uid], labels: ['Gina Guerrero'] });
  });
});

describe('multi_select duplicates and empty lists (documented decisions)', () => {
  test('duplicate option ids collapse to one, first occurrence first', async ({ env }) => {
    const r = await setOne(env, 'offtake', { select: ['ppa', 'rec', 'ppa', 'rec', 'merchant'] });
    expect(r.status).toBe(200);
    expect(r.body.properties.offtake).toEqual({
      select: ['ppa', 'rec', 'merchant'],
      labels: ['PPA', 'REC sale', 'Merchant'],
    });
  });

  test('an empty list clears the value, like { select: null }', async ({ env }) => {
    const made = await setOne(env, 'offtake', { select: ['ppa'] });
    const r = await updateProject(env, made.body.id, { offtake: { select: [] } });
    expect(r.status).toBe(200);
    expect(r.body.properties.offtake).toBeUndefined();
  });

  test('labels sent back with a value that was read are accepted and ignored', async ({ env }) => {
    const made = await setOne(env, 'stage', { select: ['permitting'] });
    const r = await updateProject(env, made.body.id, { stage: { select: ['operating'], labels: ['stale'] } });
    expect(r.status).toBe(200);
    expect(r.body.properties.stage).toEqual({ select: ['operating'], labels: ['Operating'] });
    expect((await stored(env, 'project', made.body.id)).properties.stage).toEqual({ select: ['operating'] });
  });
});

describe('clearing', () => {
  test('a null inner member clears each type; the other properties stay', async ({ env }) => {
    const full = {
      name: { text: 'To clear' },
      website: { text: 'https://example.com' },
      developer_email: { text: 'a@example.com' },
      capacity_mw: { number: 5 },
      cod: { date: { start: '2027-01-01' } },
      stage: { select: ['origination'] },
      offtake: { select: ['ppa'] },
      owner: { people: [env.demo.users.alice.uid] },
    };
    const made = await createProject(env, full);
    expect(made.status).toBe(200);
    const id = made.body.id;
    const clears: [string, unknown][] = [
      ['website', { text: null }],
      ['developer_email', { text: null }],
      ['capacity_mw', { number: null }],
      ['cod', { date: null }],
      ['stage', { select: null }],
      ['offtake', { select: null }],
      ['owner', { people: null }],
    ];
    const left = new Set(Object.keys(full));
    for (const [property, value] of clears) {
      const r = await updateProject(env, id, { [property]: value });
      expect(r.status, property).toBe(200);
      left.delete(property);
      expect(Object.keys(r.body.properties).sort()).toEqual([...left].sort());
    }
    expect((await stored(env, 'project', id)).properties).toEqual({ name: { text: 'To clear' } });
  });

  test('clearing a property that is not set succeeds and changes nothing else', async ({ env }) => {
    const made = await createProject(env, { name: { text: 'Bare' } });
    const r = await updateProject(env, made.body.id, { cod: { date: null }, owner: { people: null } });
    expect(r.status).toBe(200);
    expect(r.body.properties).toEqual({ name: { text: 'Bare' } });
  });

  test('contacts and parcels clear the same way', async ({ env }) => {
    const c = await env.as.alice.post(
      '/contacts/v1',
      { properties: { first_name: { text: 'Ann' }, last_name: { text: 'Lee' }, acres_owned: { number: 3 } } },
      a1(env),
    );
    const cr = await env.as.alice.put(
      `/contacts/v1/${c.body.id}`,
      { properties: { last_name: { text: null }, acres_owned: { number: null } } },
      a1(env),
    );
    expect(cr.body.properties).toEqual({ first_name: { text: 'Ann' } });
    const [parcel] = await insertRecords(env, 'parcel', a1(env), [
      { name: { text: 'Tract' }, 'parcel-status': { select: ['prospect'] } },
    ]);
    const pr = await env.as.alice.put(
      `/parcels/v1/${parcel}`,
      { properties: { 'parcel-status': { select: null } } },
      a1(env),
    );
    expect(pr.status).toBe(200);
    expect(pr.body.properties).toEqual({ name: { text: 'Tract' } });
  });
});

describe('required properties', () => {
  test('a project needs name on create; a contact needs first_name', async ({ env }) => {
    const p = await createProject(env, { capacity_mw: { number: 5 } });
    expect(details(p)).toEqual([{ field: 'name', reason: expect.stringMatching(/required on create/) }]);
    const p2 = await createProject(env, {});
    expect(fields(p2)).toEqual(['name']);
    const c = await env.as.alice.post('/contacts/v1', { properties: { last_name: { text: 'X' } } }, a1(env));
    expect(fields(c)).toEqual(['first_name']);
  });

  test('a required property cannot be created empty, blank or null', async ({ env }) => {
    for (const v of [{ text: null }, { text: '' }, { text: '   ' }]) {
      const r = await createProject(env, { name: v });
      expect(fields(r), JSON.stringify(v)).toEqual(['name']);
    }
  });

  test('an update cannot clear a required property, nor blank it; an update without it is fine', async ({
    env,
  }) => {
    const made = await createProject(env, { name: { text: 'Keep me' } });
    for (const v of [{ text: null }, { text: '' }]) {
      const r = await updateProject(env, made.body.id, { name: v });
      expect(oneProblem(r, 'name')).toMatch(/required/);
    }
    const c = await env.as.alice.post(
      '/contacts/v1',
      { properties: { first_name: { text: 'Ann' } } },
      a1(env),
    );
    const cr = await env.as.alice.put(
      `/contacts/v1/${c.body.id}`,
      { properties: { first_name: { text: null } } },
      a1(env),
    );
    expect(oneProblem(cr, 'first_name')).toMatch(/required/);
    const ok = await updateProject(env, made.body.id, { capacity_mw: { number: 1 } });
    expect(ok.body.properties.name).toEqual({ text: 'Keep me' });
  });

  test('"required" is the schema flag, not a hard-coded id', async ({ env }) => {
    // An org that renamed the default: `title` is required, `name` is an ordinary optional text.
    const org = await freshOrg(
      env,
      {
        project: [
          { id: 'name', name: 'Old name', type: 'text', required: false },
          { id: 'title', name: 'Title', type: 'text', required: true },
        ],
        contact: [{ id: 'first_name', name: 'First name', type: 'text', required: false }],
      },
      { defaults: true },
    );
    const scope = { orgId: org.orgId, portfolioId: org.portfolioId };
    const missing = await org.owner.post('/projects/v1', { properties: { name: { text: 'n' } } }, scope);
    expect(fields(missing)).toEqual(['title']);
    const ok = await org.owner.post('/projects/v1', { properties: { title: { text: 't' } } }, scope);
    expect(ok.status).toBe(200);
    const cleared = await org.owner.put(
      `/projects/v1/${ok.body.id}`,
      { properties: { title: { text: null } } },
      scope,
    );
    expect(fields(cleared)).toEqual(['title']);
    const contact = await org.owner.post('/contacts/v1', { properties: { last_name: { text: 'L' } } }, scope);
    expect(contact.status).toBe(200);
  });
});

describe('read-only location, unknown keys, several problems at once', () => {
  test('location on a project is read-only: 400 on create and on update', async ({ env }) => {
    const point = { location: { type: 'Point', coordinates: [-101, 33] } };
    const c = await createProject(env, { name: { text: 'Loc' }, location: point });
    expect(oneProblem(c, 'location')).toMatch(/read-only/);
    const made = await createProject(env, { name: { text: 'Loc 2' } });
    for (const v of [point, { location: null }, null, { text: 'x' }]) {
      const u = await updateProject(env, made.body.id, { location: v });
      expect(oneProblem(u, 'location'), JSON.stringify(v)).toMatch(/read-only/);
    }
  });

  test('an unknown key gets 400 and names the key', async ({ env }) => {
    const r = await createProject(env, { name: { text: 'U' }, colour: { text: 'red' } });
    expect(oneProblem(r, 'colour')).toMatch(/unknown property.*\/projects\/v1\/schema/);
    // A contact property is unknown on a project, and `location` is unknown on a contact.
    const c = await env.as.alice.post(
      '/contacts/v1',
      { properties: { first_name: { text: 'A' }, capacity_mw: { number: 1 }, location: {} } },
      a1(env),
    );
    expect(fields(c)).toEqual(['capacity_mw', 'location']);
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '']) {
      const x = await env.as.alice.send('POST', '/projects/v1', {
        query: a1(env),
        body: `{"properties":{"name":{"text":"p"},${JSON.stringify(key)}:{"text":"x"}}}`,
      });
      expect(fields(x), key).toEqual([key]);
    }
    // Fastify's JSON parser refuses a __proto__ member outright: still a 400 with a code.
    const proto = await env.as.alice.send('POST', '/projects/v1', {
      query: a1(env),
      body: '{"properties":{"name":{"text":"p"},"__proto__":{"text":"x"}}}',
    });
    expect(proto.status).toBe(400);
    expect(proto.body.error.code).toBe('BAD_REQUEST');
  });

  test('several problems give one 400 that lists every one', async ({ env }) => {
    const before = await countIn(env, 'projects', a1(env).portfolioId);
    const r = await createProject(env, {
      website: { text: 'not a url' },
      developer_email: { text: 'nope' },
      capacity_mw: { number: '5' },
      cod: { date: { start: '2023-02-30', end: '2023-03-01' } },
      stage: { select: ['a', 'b'] },
      offtake: { select: ['zzz'] },
      owner: { people: [env.demo.users.nora.uid] },
      location: {},
      mystery: { text: 'x' },
    });
    expect(fields(r)).toEqual([
      'capacity_mw',
      'cod',
      'developer_email',
      'location',
      'mystery',
      'name',
      'offtake',
      'owner',
      'stage',
      'website',
    ]);
    expect(r.body.error.message).toMatch(/^10 properties are invalid/);
    expect(await countIn(env, 'projects', a1(env).portfolioId)).toBe(before);
  });

  test('a foreign user in people is listed together with the other problems, on update too', async ({
    env,
  }) => {
    const made = await createProject(env, { name: { text: 'Mixed' } });
    const r = await updateProject(env, made.body.id, {
      owner: { people: [env.demo.users.nora.uid] },
      website: { text: 'nope' },
    });
    expect(fields(r)).toEqual(['owner', 'website']);
  });

  test('properties must be an object; the body takes only properties', async ({ env }) => {
    for (const body of [{ properties: [] }, { properties: 'x' }, { properties: null }, {}]) {
      const r = await env.as.alice.post('/projects/v1', body, a1(env));
      expect(fields(r), JSON.stringify(body)).toEqual(['properties']);
    }
    const extra = await env.as.alice.post(
      '/projects/v1',
      { properties: { name: { text: 'x' } }, id: 'prj_mine' },
      a1(env),
    );
    expect(fields(extra)).toEqual(['id']);
    const arr = await env.as.alice.post('/projects/v1', [], a1(env));
    expect(fields(arr)).toEqual(['body']);
  });
});

describe('a refused write writes nothing', () => {
  test('an update with one bad value among good ones leaves the record as it was', async ({ env }) => {
    const made = await createProject(env, { name: { text: 'Atomic' }, capacity_mw: { number: 1 } });
    const before = await stored(env, 'project', made.body.id);
    const r = await updateProject(env, made.body.id, {
      name: { text: 'Changed' },
      capacity_mw: { number: 2 },
      stage: { select: ['nope'] },
    });
    expect(fields(r)).toEqual(['stage']);
    expect(await stored(env, 'project', made.body.id)).toEqual(before);
  });

  test('an update naming a foreign user leaves the record as it was', async ({ env }) => {
    const made = await createProject(env, { name: { text: 'Atomic 2' } });
    const before = await stored(env, 'project', made.body.id);
    const r = await updateProject(env, made.body.id, {
      name: { text: 'Changed' },
      owner: { people: [env.demo.users.nora.uid] },
    });
    expect(fields(r)).toEqual(['owner']);
    expect(await stored(env, 'project', made.body.id)).toEqual(before);
  });

  test('a refused create in an empty portfolio leaves it empty', async ({ env }) => {
    const scope = await freshPortfolio(env);
    for (const properties of [{}, { name: { text: 'x' }, owner: { people: ['usr_nobody'] } }]) {
      const r = await env.as.alice.post('/projects/v1', { properties }, scope);
      expect(r.status).toBe(400);
    }
    const c = await env.as.alice.post('/contacts/v1', { properties: { first_name: { text: 1 } } }, scope);
    expect(c.status).toBe(400);
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(0);
    expect(await countIn(env, 'contacts', scope.portfolioId)).toBe(0);
  });
});
