import { parse } from 'graphql';
import { describe, expect, test } from 'vitest';
import { fragmentsOf, planOperation } from '../../src/graphql/plan/plan.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { NESTED_QUERY } from '../helpers/queries.js';

/** Which documents the planned reads take (src/graphql/plan/plan.ts), without a database. */
const schema = buildSchema();
const plan = (source: string) => {
  const doc = parse(source);
  const op = doc.definitions.find((d) => d.kind === 'OperationDefinition');
  if (op?.kind !== 'OperationDefinition') throw new Error('no operation');
  return planOperation(schema, op, fragmentsOf(doc.definitions));
};
const under = (inner: string) => `{ organization(id: "o") { portfolio(id: "p") { ${inner} } } }`;

describe('planOperation', () => {
  test('plans the nested benchmark query: lists, keys and value fields per value type', () => {
    const p = plan(NESTED_QUERY)!;
    expect(p.conn.list).toBe('portfolio-projects');
    const nodes = p.conn.fields.find((f) => f.kind === 'nodes');
    if (nodes?.kind !== 'nodes') throw new Error('no nodes');
    const keys = nodes.node.fields.map((f) => f.key);
    expect(keys).toEqual(['id', 'values', 'contacts']);
    const contacts = nodes.node.fields[2];
    if (contacts.kind !== 'conn') throw new Error('contacts is not a connection');
    expect(contacts.conn.list).toBe('project-contacts');
    const values = nodes.node.fields[1];
    if (values.kind !== 'values') throw new Error('no values');
    expect(values.byType.get('SelectValue')!.map((f) => f.key)).toEqual([
      '__typename',
      'propertyId',
      'options',
    ]);
    expect(values.byType.get('CheckboxValue')!.map((f) => f.key)).toEqual(['__typename', 'propertyId']);
  });

  test('merges fields by response key in first-seen order, through fragments and aliases', () => {
    const p =
      plan(`query { organization(id: "o") { portfolio(id: "p") { list: contacts { nodes { a: id ...F id } } } } }
      fragment F on PropertyRecord { createdAt a: id }`)!;
    expect(p.conn.key).toBe('list');
    const nodes = p.conn.fields[0];
    if (nodes.kind !== 'nodes') throw new Error('no nodes');
    expect(nodes.node.fields.map((f) => f.key)).toEqual(['a', 'createdAt', 'id']);
  });

  test.each([
    ['a mutation', `mutation { deleteProject(input: { id: "x" }) { deletedId } }`],
    ['another root field', `{ viewer { user { id } } }`],
    ['two root fields', `{ organization(id: "o") { id } organizations { id } }`],
    [
      'a field beside the portfolio',
      `{ organization(id: "o") { name portfolio(id: "p") { projects { nodes { id } } } } }`,
    ],
    ['a portfolio field', under('name projects { nodes { id } }')],
    ['facets', under('projects { facets(propertyId: "stage") { count } }')],
    ['a record field with a resolver of its own', under('projects { nodes { portfolio { id } } }')],
    ['one value', under('projects { nodes { value(propertyId: "x") { propertyId } } }')],
    ["a value's property", under('projects { nodes { values { property { name } } } }')],
    ["a user's role", under('projects { nodes { values { ... on PeopleValue { users { role } } } } }')],
    ['a directive', under('projects { nodes { id @skip(if: false) } }')],
  ])('leaves %s to the executor', (_what, source) => {
    expect(plan(source)).toBeNull();
  });
});
