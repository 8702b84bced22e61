import { gqlError, PROJECTS, projectIds, prop } from './filters-helpers.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { freshPortfolio, insertRecords } from './records-helpers.js';

/** search over text-like values, facets, and totalCount under filter and search. */

describe('search', () => {
  test('case-insensitive substring over text, url and email values only', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const [hal, site, mail, other] = await insertRecords(env, 'project', scope, [
      { name: { text: 'Halvorsen Solar' } },
      { name: { text: 'X' }, website: { text: 'https://halo.example' } },
      { name: { text: 'Y' }, developer_email: { text: 'ops@HALCYON.example' } },
      // numbers, dates and option ids are not searched
      { name: { text: 'Z' }, capacity_mw: { number: 1234 }, stage: { select: ['operating'] } },
    ]);
    const ids = async (search: string) => (await projectIds(env.as.alice, scope, { search })).ids.sort();
    expect(await ids('hal')).toEqual([hal, site, mail].sort());
    expect(await ids('HALV')).toEqual([hal]);
    expect(await ids('1234')).toEqual([]);
    expect(await ids('operating')).toEqual([]);
    expect(await ids('%')).toEqual([]);
    expect(await ids('   ')).toEqual([hal, site, mail, other].sort()); // blank = no search
    const r = await projectIds(env.as.alice, scope, {
      search: 'hal',
      filter: prop('name', { text: { neq: 'X' } }),
    });
    expect(r.ids.sort()).toEqual([hal, mail].sort());
    expect(r.total).toBe(2);
  });

  test('matches the values themselves, never the JSON that holds them', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const [plain, quoted, slashed] = await insertRecords(env, 'project', scope, [
      { name: { text: 'Alpha' }, website: { text: 'https://beta.example' } },
      { name: { text: 'Say "hi", [ok]' } },
      { name: { text: 'C:\\solar\\' }, developer_email: { text: 'ops@gamma.example' } },
    ]);
    const ids = async (search: string) => (await projectIds(env.as.alice, scope, { search })).ids.sort();
    // JSON punctuation matches only values that hold it.
    expect(await ids('"')).toEqual([quoted]);
    expect(await ids('[')).toEqual([quoted]);
    expect(await ids(',')).toEqual([quoted]);
    expect(await ids('\\')).toEqual([slashed]);
    expect(await ids('\\"')).toEqual([]);
    expect(await ids('"hi"')).toEqual([quoted]);
    // Never across two values of one record.
    expect(await ids('alpha", "https')).toEqual([]);
    expect(await ids('alphahttps')).toEqual([]);
    expect(await ids('solar\\ops')).toEqual([]);
    expect(await ids('alpha')).toEqual([plain]);
  });

  test('a search with control characters is refused, like stored text', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const r = await env.as.alice.gql(PROJECTS, { pf: scope.portfolioId, search: 'a\u0001b' });
    const e = gqlError(r);
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details).toEqual([expect.objectContaining({ field: 'search' })]);
  });
});

describe('facets', () => {
  const Q = `query($pf: ID!, $filter: RecordFilter, $search: String, $p: ID!) {
    node(id: $pf) { ... on Portfolio {
      projects(filter: $filter, search: $search, first: 0) { totalCount facets(propertyId: $p) { value label count } }
    } } }`;

  test('select, multi_select and people counts under the filter, with the records without a value', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    const { alice, bob } = env.demo.users;
    await insertRecords(env, 'project', scope, [
      {
        name: { text: 'a' },
        stage: { select: ['permitting'] },
        offtake: { select: ['ppa', 'rec'] },
        owner: { people: [alice.uid] },
      },
      {
        name: { text: 'b' },
        stage: { select: ['permitting'] },
        offtake: { select: ['ppa'] },
        owner: { people: [bob.uid] },
      },
      {
        name: { text: 'c' },
        stage: { select: ['operating'] },
        owner: { people: [alice.uid] },
        capacity_mw: { number: 9 },
      },
      { name: { text: 'd' }, offtake: { select: [] } },
    ]);
    const facets = async (p: string, args: Record<string, unknown> = {}) => {
      const r = await env.as.alice.gql(Q, { pf: scope.portfolioId, p, ...args });
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data.node.projects;
    };
    const stage = await facets('stage');
    expect(stage.totalCount).toBe(4);
    expect(stage.facets).toEqual([
      { value: 'origination', label: 'Origination', count: 0 },
      { value: 'site-control', label: 'Site control', count: 0 },
      { value: 'permitting', label: 'Permitting', count: 2 },
      { value: 'construction', label: 'Construction', count: 0 },
      { value: 'operating', label: 'Operating', count: 1 },
      { value: null, label: null, count: 1 },
    ]);
    const offtake = await facets('offtake');
    expect(offtake.facets.filter((f: { count: number }) => f.count)).toEqual([
      { value: 'ppa', label: 'PPA', count: 2 },
      { value: 'rec', label: 'REC sale', count: 1 },
      { value: null, label: null, count: 2 },
    ]);
    const owner = await facets('owner', { filter: prop('capacity_mw', { number: { isEmpty: true } }) });
    expect(owner.totalCount).toBe(3);
    // Users by count (ties by id), then the records without a value.
    const [u1, u2] = [alice, bob].sort((x, y) => x.uid.localeCompare(y.uid));
    const name = (u: { uid: string }) => (u === alice ? 'Alice Ambrose' : 'Bob Barrera');
    expect(owner.facets).toEqual([
      { value: u1.uid, label: name(u1), count: 1 },
      { value: u2.uid, label: name(u2), count: 1 },
      { value: null, label: null, count: 1 },
    ]);
    const searched = await facets('stage', { search: 'c' });
    expect(searched.totalCount).toBe(1);
    expect(searched.facets.find((f: { value: string }) => f.value === 'operating').count).toBe(1);
  });

  test('facets and filtered counts for many parents cost one statement each, whatever the width', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    const projects = await insertRecords(
      env,
      'project',
      scope,
      Array.from({ length: 12 }, (_, i) => ({ name: { text: `p${i}` } })),
    );
    const contacts = await insertRecords(
      env,
      'contact',
      scope,
      Array.from({ length: 3 }, (_, i) => ({
        first_name: { text: `c${i}` },
        contact_type: { select: [i ? 'broker' : 'landowner'] },
      })),
    );
    for (const p of projects)
      for (const c of contacts)
        expect((await env.as.alice.post(`/projects/v1/${p}/contacts`, { contactId: c }, scope)).status).toBe(
          200,
        );
    const q = (n: number) => `query($pf: ID!) { node(id: $pf) { ... on Portfolio {
      projects(first: ${n}) { nodes {
        contacts(first: 1, filter: { property: { id: "contact_type", select: { in: ["broker"] } } }, orderBy: [{ property: "first_name", direction: DESC }]) {
          totalCount facets(propertyId: "contact_type") { value count } nodes { id }
        } } } } } }`;
    // Warm up first: caches that live across requests (schemas) must not skew the comparison.
    await env.as.alice.gql(q(3), { pf: scope.portfolioId });
    const small = await env.as.alice.gql(q(3), { pf: scope.portfolioId });
    const big = await env.as.alice.gql(q(12), { pf: scope.portfolioId });
    expect(big.body.errors).toBeUndefined();
    expect(big.sql).toBe(small.sql);
    for (const p of big.body.data.node.projects.nodes) {
      expect(p.contacts.totalCount).toBe(2);
      expect(p.contacts.nodes).toEqual([{ id: contacts[2] }]);
      expect(p.contacts.facets.find((f: { value: string }) => f.value === 'broker').count).toBe(2);
    }
  });
});
