import { PROJECTS, projectIds, prop } from './filters-helpers.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { freshPortfolio, insertRecords } from './records-helpers.js';

/** Every filter operator of every property type, with missing, empty and cleared values. */

const UPDATE = `mutation($input: UpdateRecordInput!) { updateProject(input: $input) { project { id } } }`;
const CREATE = `mutation($input: CreateRecordInput!) { createProject(input: $input) { project { id } } }`;

async function setup(env: TestEnv) {
  const scope = await freshPortfolio(env);
  const { alice, bob } = env.demo.users;
  const [hale, halcyon, desert, bare, neg] = await insertRecords(env, 'project', scope, [
    {
      name: { text: 'Hale Farm' },
      website: { text: 'https://hale.example/x' },
      developer_email: { text: 'dev@hale.example' },
      capacity_mw: { number: 100 },
      cod: { date: { start: '2026-03-01' } },
      stage: { select: ['site-control'] },
      offtake: { select: ['ppa', 'rec'] },
      owner: { people: [alice.uid] },
    },
    {
      name: { text: 'halcyon Ridge' },
      website: { text: '' },
      capacity_mw: { number: 55.5 },
      cod: { date: { start: '2025-12-31' } },
      stage: { select: ['permitting'] },
      offtake: { select: ['merchant'] },
      owner: { people: [bob.uid] },
    },
    {
      name: { text: 'Desert 100%_x' },
      capacity_mw: { number: 0 },
      cod: { date: { start: '2027-01-01' } },
      stage: { select: ['operating'] },
      offtake: { select: ['ppa'] },
      owner: { people: [alice.uid] },
    },
    { name: { text: 'Bare' } },
    { name: { text: 'Neg' }, capacity_mw: { number: -20.25 }, offtake: { select: [] } },
  ]);
  // A record whose values were set and then cleared through the API, like one that never had them.
  const c = await env.as.alice.gql(CREATE, {
    input: {
      ...scope,
      properties: {
        name: { text: 'Cleared' },
        website: { text: 'https://cleared.example' },
        capacity_mw: { number: 7 },
        cod: { date: { start: '2026-01-01' } },
        stage: { select: ['permitting'] },
        offtake: { select: ['ppa'] },
        owner: { people: [bob.uid] },
      },
    },
  });
  const cleared = c.body.data.createProject.project.id as string;
  const u = await env.as.alice.gql(UPDATE, {
    input: {
      id: cleared,
      properties: {
        website: { text: null },
        capacity_mw: { number: null },
        cod: { date: null },
        stage: { select: null },
        offtake: { select: null },
        owner: { people: null },
      },
    },
  });
  expect(u.body.errors).toBeUndefined();
  return { scope, ids: { hale, halcyon, desert, bare, neg, cleared } };
}

type Ids = Record<'hale' | 'halcyon' | 'desert' | 'bare' | 'neg' | 'cleared', string>;

/** The records of setup(), made once per file (every test below only reads them). */
let made: Promise<{ scope: Awaited<ReturnType<typeof setup>>['scope']; ids: Ids }> | undefined;
const data = (env: TestEnv) => {
  made ??= setup(env);
  return made;
};

/** One filter and the records it must match, by name; `all` and `not` are relative to the six. */
type Case = [
  name: string,
  filter: (uid: Record<'alice' | 'bob', string>) => unknown,
  expected: (keyof Ids)[] | { not: (keyof Ids)[] },
];
const ALL: (keyof Ids)[] = ['hale', 'halcyon', 'desert', 'bare', 'neg', 'cleared'];

const CASES: Case[] = [
  // text
  ['text eq', () => prop('name', { text: { eq: 'Hale Farm' } }), ['hale']],
  ['text eq is case-sensitive', () => prop('name', { text: { eq: 'hale farm' } }), []],
  [
    'text neq matches records without a value',
    () => prop('name', { text: { neq: 'Hale Farm' } }),
    { not: ['hale'] },
  ],
  ['text contains, any case', () => prop('name', { text: { contains: 'AL' } }), ['hale', 'halcyon']],
  ['text contains % and _ literally', () => prop('name', { text: { contains: '100%_' } }), ['desert']],
  ['text contains %', () => prop('name', { text: { contains: '%' } }), ['desert']],
  ['text contains _', () => prop('name', { text: { contains: '_' } }), ['desert']],
  ['text startsWith, any case', () => prop('name', { text: { startsWith: 'hal' } }), ['hale', 'halcyon']],
  [
    'text operators combine',
    () => prop('name', { text: { startsWith: 'Hal', contains: 'ridge' } }),
    ['halcyon'],
  ],
  // url and email use the text group; '' and missing and cleared are empty
  [
    'url isEmpty: "", missing and cleared',
    () => prop('website', { text: { isEmpty: true } }),
    { not: ['hale'] },
  ],
  ['url isEmpty false', () => prop('website', { text: { isEmpty: false } }), ['hale']],
  ['url contains', () => prop('website', { text: { contains: 'HALE.example' } }), ['hale']],
  ['email eq', () => prop('developer_email', { text: { eq: 'dev@hale.example' } }), ['hale']],
  ['url neq', () => prop('website', { text: { neq: 'x' } }), ALL],
  // number
  ['number eq', () => prop('capacity_mw', { number: { eq: 100 } }), ['hale']],
  ['number eq, decimal', () => prop('capacity_mw', { number: { eq: 55.5 } }), ['halcyon']],
  ['number eq 0', () => prop('capacity_mw', { number: { eq: 0 } }), ['desert']],
  ['number lt', () => prop('capacity_mw', { number: { lt: 55.5 } }), ['desert', 'neg']],
  ['number lte', () => prop('capacity_mw', { number: { lte: 55.5 } }), ['desert', 'neg', 'halcyon']],
  ['number gt', () => prop('capacity_mw', { number: { gt: 0 } }), ['hale', 'halcyon']],
  ['number gte', () => prop('capacity_mw', { number: { gte: 0 } }), ['hale', 'halcyon', 'desert']],
  [
    'number between, both ends included',
    () => prop('capacity_mw', { number: { between: { min: -20.25, max: 55.5 } } }),
    ['neg', 'desert', 'halcyon'],
  ],
  ['number operators combine', () => prop('capacity_mw', { number: { gt: 1, lt: 100 } }), ['halcyon']],
  ['number isEmpty', () => prop('capacity_mw', { number: { isEmpty: true } }), ['bare', 'cleared']],
  // date (on start)
  ['date eq', () => prop('cod', { date: { eq: '2026-03-01' } }), ['hale']],
  ['date before', () => prop('cod', { date: { before: '2026-03-01' } }), ['halcyon']],
  ['date after', () => prop('cod', { date: { after: '2026-03-01' } }), ['desert']],
  [
    'date between, both days included',
    () => prop('cod', { date: { between: { from: '2025-12-31', to: '2026-03-01' } } }),
    ['halcyon', 'hale'],
  ],
  ['date isEmpty', () => prop('cod', { date: { isEmpty: true } }), ['bare', 'neg', 'cleared']],
  // select
  ['select in', () => prop('stage', { select: { in: ['permitting', 'operating'] } }), ['halcyon', 'desert']],
  [
    'select notIn matches records without a value',
    () => prop('stage', { select: { notIn: ['permitting'] } }),
    { not: ['halcyon'] },
  ],
  ['select isEmpty', () => prop('stage', { select: { isEmpty: true } }), ['bare', 'neg', 'cleared']],
  // multi_select
  [
    'multiSelect containsAny',
    () => prop('offtake', { multiSelect: { containsAny: ['rec', 'merchant'] } }),
    ['hale', 'halcyon'],
  ],
  [
    'multiSelect containsAll',
    () => prop('offtake', { multiSelect: { containsAll: ['ppa', 'rec'] } }),
    ['hale'],
  ],
  [
    'multiSelect containsAll of one',
    () => prop('offtake', { multiSelect: { containsAll: ['ppa'] } }),
    ['hale', 'desert'],
  ],
  [
    'multiSelect isEmpty: [] counts as empty',
    () => prop('offtake', { multiSelect: { isEmpty: true } }),
    ['bare', 'neg', 'cleared'],
  ],
  [
    'multiSelect isEmpty false',
    () => prop('offtake', { multiSelect: { isEmpty: false } }),
    ['hale', 'halcyon', 'desert'],
  ],
  // people
  ['people in', (uid) => prop('owner', { people: { in: [uid.bob] } }), ['halcyon']],
  ['people me (alice)', () => prop('owner', { people: { me: true } }), ['hale', 'desert']],
  // `me: true` adds the caller to `in` (the SDL's reading), rather than requiring both at once.
  [
    'people in + me adds the caller',
    (uid) => prop('owner', { people: { in: [uid.bob], me: true } }),
    ['hale', 'halcyon', 'desert'],
  ],
  [
    'people in [] + me is the caller',
    () => prop('owner', { people: { in: [], me: true } }),
    ['hale', 'desert'],
  ],
  [
    'people in + me false is in alone',
    (uid) => prop('owner', { people: { in: [uid.bob], me: false } }),
    ['halcyon'],
  ],
  ['people me false alone matches all', () => prop('owner', { people: { me: false } }), { not: [] }],
  ['people isEmpty', () => prop('owner', { people: { isEmpty: true } }), ['bare', 'neg', 'cleared']],
];

describe('operators', () => {
  test.for(CASES)('%s', async ([, filter, expected], { env }) => {
    const { scope, ids } = await data(env);
    const names = Array.isArray(expected) ? expected : ALL.filter((n) => !expected.not.includes(n));
    const want = names.map((n) => ids[n]).sort();
    const r = await projectIds(env.as.alice, scope, {
      filter: filter({ alice: env.demo.users.alice.uid, bob: env.demo.users.bob.uid }),
    });
    expect([...r.ids].sort()).toEqual(want);
    expect(r.total).toBe(want.length);
  });

  test('people me is the caller: bob sees his own', async ({ env }) => {
    const { scope, ids } = await data(env);
    const asBob = await projectIds(env.as.bob, scope, { filter: prop('owner', { people: { me: true } }) });
    expect(asBob.ids).toEqual([ids.halcyon]);
  });

  test('and, or, not, createdAt and updatedAt', async ({ env }) => {
    const { scope, ids } = await data(env);
    const { hale, halcyon, desert, bare, neg, cleared } = ids;
    const all = Object.values(ids);
    const check = async (filter: unknown, expected: string[]) => {
      const r = await projectIds(env.as.alice, scope, { filter });
      expect([...r.ids].sort(), JSON.stringify(filter)).toEqual([...expected].sort());
    };
    const big = prop('capacity_mw', { number: { gt: 50 } });
    const mine = prop('owner', { people: { me: true } });
    await check({ and: [big, mine] }, [hale]);
    await check({ or: [big, mine] }, [hale, halcyon, desert]);
    await check({ not: big }, [desert, bare, neg, cleared]);
    await check({ not: { or: [big, mine] } }, [bare, neg, cleared]);
    await check({ ...big, ...{ createdAt: { from: new Date(0).toISOString() } } }, [hale, halcyon]);
    await check({}, all);
    await check({ and: [] }, all);
    await check({ or: [] }, []);
    // `cleared` was updated after everything else was created.
    const r = await env.as.alice.gql(PROJECTS, {
      pf: scope.portfolioId,
      first: 10,
      filter: prop('name', { text: { eq: 'Cleared' } }),
    });
    const q = `query($id: ID!) { project(id: $id) { updatedAt createdAt } }`;
    const c = (await env.as.alice.gql(q, { id: r.body.data.node.projects.edges[0].node.id })).body.data
      .project;
    await check({ updatedAt: { from: c.updatedAt } }, [cleared]);
    await check({ updatedAt: { to: c.updatedAt } }, none(all, [cleared]));
    await check({ createdAt: { from: c.createdAt } }, [cleared]);
    await check({ createdAt: { to: c.createdAt } }, [hale, halcyon, desert, bare, neg]);
  });
});

const none = (all: string[], x: string[]) => all.filter((i) => !x.includes(i));
