import { buildSchema, getOperationAST, parse } from 'graphql';
import { PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import type { ErrorDetail } from '../../src/errors.js';
import { measureRequest } from '../../src/graphql/limits.js';
import { typeDefs } from '../../src/graphql/schema.js';
import {
  AGGREGATES_FIT,
  type AggregateFunction,
  bucketLabel,
  compileGroupKey,
  compileMeasure,
  GROUP_KEYS_FIT,
  groupStatisticsSql,
  measureSig,
} from '../../src/modules/records/aggregate.js';
import { makeSchema } from '../../src/modules/schema/types.js';
import { def, SCHEMA } from './schema.js';

/** Which aggregate and which group key fits which property type, and what a misfit is told. */

const TYPES = [
  't_text',
  't_url',
  't_email',
  't_number',
  't_date',
  't_select',
  't_multi',
  't_people',
  't_checkbox',
];
const text = (raw: ReturnType<typeof sql>) =>
  new PostgresQueryCompiler().compileQuery(sql`select ${raw}`.toOperationNode(), { queryId: 'q' } as never)
    .sql;

function measure(fn: AggregateFunction, args: { propertyId?: string; field?: string }, schema = SCHEMA) {
  const details: ErrorDetail[] = [];
  const m = compileMeasure(schema, fn, args, details, `aggregates.${fn}`);
  return { m, details };
}

describe('aggregates per type', () => {
  test('sum, avg, min and max take number properties only; minDate and maxDate dates only', () => {
    for (const id of TYPES)
      for (const fn of ['sum', 'avg', 'min', 'max', 'minDate', 'maxDate'] as const) {
        const { m, details } = measure(fn, { propertyId: id });
        const fits = fn.endsWith('Date') ? id === 't_date' : id === 't_number';
        expect(!!m, `${fn} ${id}`).toBe(fits);
        if (!fits) {
          expect(details).toHaveLength(1);
          expect(details[0].field).toBe(id);
          expect(details[0].reason).toContain(`${fn} does not take a ${SCHEMA.byId.get(id)!.type} property`);
          expect(details[0].reason).toContain(AGGREGATES_FIT);
        }
      }
    expect(AGGREGATES_FIT).toBe(
      'sum, avg, min and max take a number property or field ACRES (parcels); minDate and maxDate a date property; minTime and maxTime field CREATED_AT or UPDATED_AT; withValue and withoutValue any property',
    );
  });

  test('withValue and withoutValue take any property, by the type’s meaning of empty', () => {
    for (const id of TYPES) {
      expect(measure('withValue', { propertyId: id }).m).toBeDefined();
      expect(measure('withoutValue', { propertyId: id }).m).toBeDefined();
    }
    expect(text(measure('withoutValue', { propertyId: 't_multi' }).m!.sql)).toMatch(/jsonb_array_length/);
  });

  test('fields: ACRES on parcels only, times for minTime and maxTime, exactly one target', () => {
    const parcels = makeSchema('org_1', 'parcel', [def('n', 'number')]);
    expect(measure('sum', { field: 'ACRES' }, parcels).m).toBeDefined();
    expect(measure('sum', { field: 'ACRES' }).details[0].reason).toMatch(
      /^field ACRES is a parcel's; a project has no acres/,
    );
    expect(measure('minTime', { field: 'CREATED_AT' }).m?.time).toBe(true);
    expect(measure('maxTime', { field: 'UPDATED_AT' }).m).toBeDefined();
    expect(measure('minTime', { field: 'ACRES' }, parcels).details[0].reason).toMatch(
      /^minTime does not take field ACRES/,
    );
    expect(measure('sum', { field: 'CREATED_AT' }).details[0].reason).toMatch(
      /^sum does not take field CREATED_AT/,
    );
    expect(measure('minTime', { propertyId: 't_date' }).details[0].reason).toMatch(
      /^minTime takes a field, not a property/,
    );
    expect(measure('sum', {}).details[0].reason).toMatch(/^sum takes exactly one of propertyId and field/);
    expect(measure('sum', { propertyId: 't_number', field: 'ACRES' }).details).toHaveLength(1);
    expect(measure('sum', { propertyId: 'nope' }).details[0]).toMatchObject({
      field: 'nope',
      path: 'aggregates.sum',
      reason: expect.stringMatching(/^unknown property "nope"; the project property schema lists the ids/),
    });
  });

  test('a sig names the function and its target, so aliases of one aggregate share it', () => {
    expect(measureSig('count', {})).toBe('count');
    expect(measureSig('sum', { propertyId: 'x' })).toBe('sum:p:x');
    expect(measureSig('sum', { field: 'ACRES' })).toBe('sum:f:ACRES');
    expect(measureSig('sum', { propertyId: 'x' })).not.toBe(measureSig('avg', { propertyId: 'x' }));
  });
});

describe('group keys per type', () => {
  const key = (g: { propertyId?: string; field?: string; bucket?: string }) => {
    const details: ErrorDetail[] = [];
    return { k: compileGroupKey(SCHEMA, g, details, 'groupBy[0]'), details };
  };

  test('select, multi_select, people and checkbox group by value; dates and times by a bucket', () => {
    for (const id of TYPES) {
      const plain = key({ propertyId: id });
      const bucketed = key({ propertyId: id, bucket: 'MONTH' });
      const groups = ['t_select', 't_multi', 't_people', 't_checkbox'].includes(id);
      expect(!!plain.k, id).toBe(groups);
      expect(!!bucketed.k, id).toBe(id === 't_date');
      if (!groups) expect(plain.details[0].reason).toContain(GROUP_KEYS_FIT);
    }
    expect(key({ propertyId: 't_text' }).details[0].reason).toMatch(/^a text property cannot group/);
    expect(key({ propertyId: 't_date' }).details[0].reason).toMatch(
      /^a date property groups by a bucket: give bucket/,
    );
    expect(key({ propertyId: 't_select', bucket: 'DAY' }).details[0].reason).toMatch(/^bucket is for dates/);
    expect(key({ field: 'CREATED_AT', bucket: 'WEEK' }).k?.by).toBe('day');
    expect(key({ field: 'UPDATED_AT' }).details[0].reason).toMatch(/give bucket/);
    expect(key({ propertyId: 't_select', field: 'CREATED_AT' }).details[0].reason).toMatch(/exactly one of/);
    expect(GROUP_KEYS_FIT).toBe(
      'group by a select, multi_select, people, checkbox property, or with a bucket (DAY, WEEK, MONTH, QUARTER, YEAR) a date property or field CREATED_AT or UPDATED_AT',
    );
  });

  test('a multi_select yields one key per option, once each; a select its one option', () => {
    const many = key({ propertyId: 't_multi' }).k!.value;
    const one = key({ propertyId: 't_select' }).k!.value;
    expect('many' in many && text(many.many)).toMatch(
      /select distinct e as v from jsonb_array_elements_text/,
    );
    expect('one' in one && text(one.one)).toMatch(/-> 'select' ->> 0\)$/);
  });
});

describe('group statistics', () => {
  test('ids that read alike as identifiers get statistics of their own', () => {
    const long = 'x'.repeat(200);
    const schema = makeSchema('org', 'parcel', [
      def('a-b', 'select'),
      def('a_b', 'select'),
      def(long, 'checkbox'),
      def('tags', 'multi_select'),
    ]);
    const [dash, under] = ['a-b', 'a_b'].map((id) => groupStatisticsSql('parcels', schema, id)!);
    expect(dash.name).toMatch(/^parcels_group_a_b_[0-9a-f]{8}_stat$/);
    expect(under.name).toMatch(/^parcels_group_a_b_[0-9a-f]{8}_stat$/);
    expect(dash.name).not.toBe(under.name);
    // Postgres cuts identifiers at 63 bytes; the name must stay whole to stay apart.
    expect(groupStatisticsSql('contacts', schema, long)!.name.length).toBeLessThanOrEqual(63);
    expect(groupStatisticsSql('parcels', schema, 'tags')).toBeUndefined();
  });
});

describe('bucket labels', () => {
  test('from the first day of each bucket', () => {
    expect(bucketLabel('day', '2026-05-04')).toBe('2026-05-04');
    expect(bucketLabel('month', '2026-05-01')).toBe('2026-05');
    expect(bucketLabel('quarter', '2026-04-01')).toBe('2026-Q2');
    expect(bucketLabel('quarter', '2026-10-01')).toBe('2026-Q4');
    expect(bucketLabel('year', '2026-01-01')).toBe('2026');
    // ISO weeks: the week of a Monday belongs to the year of its Thursday.
    expect(bucketLabel('week', '2025-12-29')).toBe('2026-W01');
    expect(bucketLabel('week', '2026-05-04')).toBe('2026-W19');
    expect(bucketLabel('week', '2020-12-28')).toBe('2020-W53');
    expect(bucketLabel('week', '2024-12-30')).toBe('2025-W01');
  });
});

describe('cost', () => {
  const schema = buildSchema(typeDefs);
  const cost = (q: string) => {
    const doc = parse(q);
    return measureRequest(schema, doc, getOperationAST(doc)!, {}).cost;
  };
  test('aggregates count one node, groups `first` nodes (100 by default), nested ones multiply', () => {
    const base = cost('{ node(id: "x") { ... on Portfolio { parcels(first: 10) { totalCount } } } }');
    expect(base).toBe(10);
    expect(
      cost('{ node(id: "x") { ... on Portfolio { parcels(first: 10) { aggregates { count } } } } }'),
    ).toBe(11);
    expect(
      cost(
        '{ node(id: "x") { ... on Portfolio { parcels(first: 10) { groupedAggregates(groupBy: []) { totalGroups } } } } }',
      ),
    ).toBe(110);
    expect(
      cost(
        '{ node(id: "x") { ... on Portfolio { parcels(first: 10) { groupedAggregates(groupBy: [], first: 7) { groups { aggregates { count } } } } } } }',
      ),
    ).toBe(10 + 7 + 7);
    expect(
      cost(
        '{ node(id: "x") { ... on Portfolio { projects(first: 10) { edges { node { contacts(first: 2) { aggregates { count } } } } } } } }',
      ),
      // 10 contacts lists of 2: one aggregates each.
    ).toBe(10 + 20 + 10);
  });
});
