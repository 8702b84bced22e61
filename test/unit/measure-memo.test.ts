import { buildSchema, getOperationAST, getVariableValues, parse } from 'graphql';
import { expect, test } from 'vitest';
import { measureOperation } from '../../src/graphql/limits.js';
import { measureRemembered } from '../../src/graphql/measure-memo.js';
import { typeDefs } from '../../src/graphql/schema.js';

/** The measure memo, on the real SDL and no database: a remembered measure is the one a walk gives. */
const schema = buildSchema(typeDefs);

const QUERY = `query($n: Int = 7, $m: Int, $after: String, $id: ID!) {
  project(id: $id) {
    contacts(first: $n, after: $after) { edges { node { ...P } } }
  }
}
fragment P on Contact { parcels(last: $m) { totalCount } }`;

const doc = parse(QUERY, { noLocation: true });
const op = getOperationAST(doc)!;
const coerced = (raw: Record<string, unknown>) =>
  getVariableValues(schema, op.variableDefinitions ?? [], raw).coerced!;
const remembered = (raw: Record<string, unknown>) => measureRemembered(schema, doc, op, coerced(raw));
const walked = (raw: Record<string, unknown>) => measureOperation(schema, doc, op, coerced(raw));

test.each<[string, Record<string, unknown>]>([
  ['sizes sent', { id: 'prj_a', n: 3, m: 4 }],
  ['the default of $n, and $m absent', { id: 'prj_a' }],
  ['$m sent as null', { id: 'prj_a', m: null }],
  ['$n sent as null', { id: 'prj_a', n: null, m: 2 }],
])('%s: the remembered measure equals a fresh walk, asked twice', (_, raw) => {
  expect(remembered(raw)).toEqual(walked(raw));
  expect(remembered(raw)).toEqual(walked(raw));
});

test('requests that differ only outside the page sizes share one measure', () => {
  const first = remembered({ id: 'prj_a', n: 5, after: 'cursor-1' });
  expect(remembered({ id: 'prj_b', n: 5, after: 'cursor-2' })).toBe(first);
  // A page size in a fragment counts too: $m changes the cost.
  expect(remembered({ id: 'prj_b', n: 5, m: 2 }).cost).toBe(5 + 5 * 2);
  expect(remembered({ id: 'prj_b', n: 5, m: 3 }).cost).toBe(5 + 5 * 3);
});

test('an absent size variable and one sent as null are told apart', () => {
  // The real SDL gives `first` no default, so there both mean the default page size. Here an absent
  // variable takes the argument's default (5) and null takes the default page size (100): a memo
  // that keyed both alike would answer the second with the first's measure.
  const small = buildSchema(`
    type Query { items(first: Int = 5): ItemConnection }
    type ItemConnection { total: Int }
  `);
  const q = parse('query($n: Int) { items(first: $n) { total } }');
  const o = getOperationAST(q)!;
  expect(measureRemembered(small, q, o, {}).cost).toBe(5);
  expect(measureRemembered(small, q, o, { n: null }).cost).toBe(100);
  expect(measureRemembered(small, q, o, {}).cost).toBe(5);
});
