import { describe, expect, test } from './helpers/fixtures.js';
import { freshPortfolio } from './records-helpers.js';

/**
 * Typed writes (issue 14): `values`, a list of `{ propertyId, value: PropertyValueInput }` where
 * PropertyValueInput is a @oneOf input, next to the JSON `properties`; and `userErrors` on the
 * payload for every refused value.
 */
const CREATE = `mutation Create($input: CreateRecordInput!) {
  createProject(input: $input) { project { id properties } userErrors { code message propertyId path } }
}`;
const UPDATE = `mutation Update($input: UpdateRecordInput!) {
  updateProject(input: $input) { project { id properties } userErrors { code message propertyId path } }
}`;

describe('typed values (@oneOf PropertyValueInput)', () => {
  test('every value member writes the same value object as REST; clear: true clears', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const values = [
      { propertyId: 'name', value: { text: 'Typed Solar' } },
      { propertyId: 'capacity_mw', value: { number: 42.5 } },
      { propertyId: 'cod', value: { date: { start: '2027-06-30' } } },
      { propertyId: 'stage', value: { select: ['permitting'] } },
      { propertyId: 'offtake', value: { select: ['ppa', 'rec'] } },
      { propertyId: 'owner', value: { people: [env.demo.users.alice.uid] } },
    ];
    const r = await env.as.alice.gql(CREATE, { input: { ...scope, values } });
    expect(r.body.errors).toBeUndefined();
    const { project, userErrors } = r.body.data.createProject;
    expect(userErrors).toEqual([]);
    expect(project.properties).toMatchObject({
      name: { text: 'Typed Solar' },
      capacity_mw: { number: 42.5 },
      cod: { date: { start: '2027-06-30' } },
      stage: { select: ['permitting'] },
      offtake: { select: ['ppa', 'rec'] },
      owner: { people: [env.demo.users.alice.uid] },
    });
    const rest = await env.as.alice.get('/projects/v1', scope);
    expect(rest.body.items[0].properties).toEqual(project.properties);

    const cleared = await env.as.alice.gql(UPDATE, {
      input: { id: project.id, values: [{ propertyId: 'capacity_mw', value: { clear: true } }] },
    });
    expect(cleared.body.data.updateProject.userErrors).toEqual([]);
    expect(cleared.body.data.updateProject.project.properties).not.toHaveProperty('capacity_mw');
  });

  test('a value with two members (or none) is refused by GraphQL itself, before any write', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    for (const value of [{ text: 'a', number: 1 }, {}]) {
      const r = await env.as.alice.gql(CREATE, {
        input: { ...scope, values: [{ propertyId: 'name', value }] },
      });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].message).toMatch(/exactly one key/i);
    }
    // Written in the document rather than a variable: the same rule.
    const literal = await env.as.alice.gql(
      `mutation { createProject(input: { orgId: "${scope.orgId}", portfolioId: "${scope.portfolioId}", values: [{ propertyId: "name", value: { text: "a", number: 1 } }] }) { project { id } } }`,
    );
    expect(literal.body.errors[0].message).toMatch(/exactly one/i);
    expect((await env.as.alice.get('/projects/v1', scope)).body.items).toEqual([]);
  });

  test('a literal typed write runs the same when compiled (second run goes through graphql-jit)', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    const doc = `mutation { createProject(input: { orgId: "${scope.orgId}", portfolioId: "${scope.portfolioId}", values: [{ propertyId: "name", value: { text: "Lit" } }, { propertyId: "capacity_mw", value: { number: 3 } }] }) { project { properties } userErrors { code } } }`;
    for (let i = 0; i < 2; i++) {
      const r = await env.as.alice.gql(doc);
      expect(r.body.data.createProject, JSON.stringify(r.body)).toEqual({
        project: { properties: { name: { text: 'Lit' }, capacity_mw: { number: 3 } } },
        userErrors: [],
      });
    }
  });
});

describe('userErrors', () => {
  test('every refused value is listed with its code, property and path in the typed input; nothing is written', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    const r = await env.as.alice.gql(CREATE, {
      input: {
        ...scope,
        values: [
          { propertyId: 'capacity_mw', value: { text: 'big' } },
          { propertyId: 'nope', value: { number: 1 } },
          { propertyId: 'stage', value: { select: ['no-such-option'] } },
          { propertyId: 'owner', value: { people: [env.demo.users.nora.uid] } },
          { propertyId: 'website', value: { clear: false } },
          { propertyId: 'location', value: { text: 'x' } },
        ],
      },
    });
    expect(r.body.errors).toBeUndefined();
    const { project, userErrors } = r.body.data.createProject;
    expect(project).toBeNull();
    expect(
      userErrors.map((e: { code: string; propertyId: string; path: string[] }) => [
        e.code,
        e.propertyId,
        e.path,
      ]),
    ).toEqual([
      ['INVALID_VALUE', 'capacity_mw', ['input', 'values', '0']],
      ['UNKNOWN_PROPERTY', 'nope', ['input', 'values', '1']],
      ['INVALID_VALUE', 'stage', ['input', 'values', '2']],
      ['INVALID_VALUE', 'owner', ['input', 'values', '3']],
      ['INVALID_VALUE', 'website', ['input', 'values', '4']],
      ['READ_ONLY', 'location', ['input', 'values', '5']],
      ['REQUIRED', 'name', ['input', 'values']],
    ]);
    for (const e of userErrors) expect(e.message.length).toBeGreaterThan(5);
    expect((await env.as.alice.get('/projects/v1', scope)).body.items).toEqual([]);
  });

  test('properties and values together, or one property twice, are userErrors too', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const both = await env.as.alice.gql(CREATE, {
      input: {
        ...scope,
        properties: { name: { text: 'x' } },
        values: [{ propertyId: 'name', value: { text: 'y' } }],
      },
    });
    expect(both.body.data.createProject.userErrors).toContainEqual({
      code: 'INVALID_INPUT',
      message: 'give properties or values, not both',
      propertyId: null,
      path: ['input', 'values'],
    });
    const twice = await env.as.alice.gql(CREATE, {
      input: {
        ...scope,
        values: [
          { propertyId: 'name', value: { text: 'a' } },
          { propertyId: 'name', value: { text: 'b' } },
        ],
      },
    });
    expect(twice.body.data.createProject.userErrors).toEqual([
      {
        code: 'INVALID_VALUE',
        message: 'is given more than once',
        propertyId: 'name',
        path: ['input', 'values', '0'],
      },
    ]);
  });

  test('authentication, access and not-found stay GraphQL errors with extensions.code', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const values = [{ propertyId: 'name', value: { text: 'x' } }];
    const cases = [
      [env.as.anon, 'UNAUTHENTICATED'],
      [env.as.vera, 'FORBIDDEN'],
      [env.as.nora, 'NOT_FOUND'],
    ] as const;
    for (const [who, code] of cases) {
      const r = await who.gql(CREATE, { input: { ...scope, values } });
      expect(r.body.errors?.[0]?.extensions?.code, code).toBe(code);
    }
  });
});

describe('link payloads', () => {
  test('link and unlink payloads carry userErrors (empty); a contact of another portfolio stays a NOT_FOUND error', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    const other = await freshPortfolio(env);
    const make = async (
      s: typeof scope,
      kind: 'Project' | 'Contact',
      properties: Record<string, unknown>,
    ): Promise<string> => {
      const r = await env.as.alice.gql(
        `mutation($input: CreateRecordInput!) { create${kind}(input: $input) { ${kind.toLowerCase()} { id } userErrors { code } } }`,
        { input: { ...s, properties } },
      );
      expect(r.body.errors).toBeUndefined();
      return r.body.data[`create${kind}`][kind.toLowerCase()].id;
    };
    const projectId = await make(scope, 'Project', { name: { text: 'Linked Solar' } });
    const contactId = await make(scope, 'Contact', { first_name: { text: 'Lena' } });
    const elsewhere = await make(other, 'Contact', { first_name: { text: 'Otto' } });
    const LINK = `mutation($input: ProjectContactInput!, $linked: Boolean!) {
      link: linkProjectContact(input: $input) @include(if: $linked) { linked userErrors { code message propertyId path } }
      unlink: unlinkProjectContact(input: $input) @skip(if: $linked) { linked userErrors { code message propertyId path } }
    }`;
    const linked = await env.as.alice.gql(LINK, { input: { projectId, contactId }, linked: true });
    expect(linked.body).toEqual({ data: { link: { linked: true, userErrors: [] } } });
    const unlinked = await env.as.alice.gql(LINK, { input: { projectId, contactId }, linked: false });
    expect(unlinked.body).toEqual({ data: { unlink: { linked: false, userErrors: [] } } });
    const refused = await env.as.alice.gql(LINK, {
      input: { projectId, contactId: elsewhere },
      linked: true,
    });
    expect(refused.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const parcel = await env.as.alice.gql(
      'mutation($input: ParcelContactInput!) { unlinkParcelContact(input: $input) { linked userErrors { code } } }',
      { input: { parcelId: 'pcl_0000000000000000000000', contactId } },
    );
    expect(parcel.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
