import { describe, expect, test } from 'vitest';
import {
  compileRecordQuery,
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_SEARCH_LENGTH,
  PLAIN_QUERY,
} from '../../src/modules/records/filter.js';
import { SCHEMA } from './schema.js';
import { compiled } from './sql.js';

const VIEWER = 'usr_me';
const prop = (id: string, ops: Record<string, unknown>) => ({ filter: { property: { id, ...ops } } });
const where = (args: Parameters<typeof compileRecordQuery>[2]) => {
  const r = compileRecordQuery(SCHEMA, VIEWER, args);
  expect(r.details).toEqual([]);
  return compiled(r.query.where!);
};
const problems = (args: Parameters<typeof compileRecordQuery>[2]) =>
  compileRecordQuery(SCHEMA, VIEWER, args).details.map((d) => d.reason);

describe('filter compilation (SQL text)', () => {
  test('no filter, order or search is the plain list', () => {
    expect(compileRecordQuery(SCHEMA, VIEWER, { search: '   ' }).query).toBe(PLAIN_QUERY);
  });

  test('equality compiles to jsonb containment, values as parameters', () => {
    expect(where(prop('t_text', { text: { eq: 'Hale' } }))).toEqual({
      sql: 'c.properties @> $1::jsonb',
      parameters: ['{"t_text":{"text":"Hale"}}'],
    });
    expect(where(prop('t_number', { number: { eq: 5 } })).parameters).toEqual(['{"t_number":{"number":5}}']);
    expect(where(prop('t_checkbox', { checkbox: { eq: false } })).parameters).toEqual([
      '{"t_checkbox":{"checkbox":false}}',
    ]);
  });

  test('text contains and startsWith escape the LIKE pattern characters', () => {
    expect(where(prop('t_text', { text: { contains: '50%_off\\' } }))).toEqual({
      sql: `(c.properties -> $1::text ->> 'text') ilike $2`,
      parameters: ['t_text', '%50\\%\\_off\\\\%'],
    });
    expect(where(prop('t_url', { text: { startsWith: 'http' } })).parameters).toEqual(['t_url', 'http%']);
  });

  test('ranges compare jsonb without casts, over the sort key; several operators of a group must all hold', () => {
    // The sort index's expression: a missing number is jsonb `true`, above every number, so a lower
    // bound also says `< true` and a record without a value never matches a range.
    expect(where(prop('t_number', { number: { gt: 1, lte: 9 } })).sql).toBe(
      `((coalesce(c.properties -> $1::text -> 'number', 'true'::jsonb) > $2::jsonb and ` +
        `coalesce(c.properties -> $3::text -> 'number', 'true'::jsonb) < 'true'::jsonb) and ` +
        `coalesce(c.properties -> $4::text -> 'number', 'true'::jsonb) <= $5::jsonb)`,
    );
    expect(where(prop('t_date', { date: { before: '2026-01-01' } })).sql).toBe(
      `(c.properties -> $1::text -> 'date' ->> 'start') collate "C" < $2`,
    );
  });

  test('isEmpty follows each type: blank text, an empty multi_select, a missing value', () => {
    expect(where(prop('t_text', { text: { isEmpty: true } })).sql).toBe(
      `coalesce(c.properties -> $1::text ->> 'text', '') = ''`,
    );
    expect(where(prop('t_multi', { multiSelect: { isEmpty: false } })).sql).toBe(
      `not coalesce(jsonb_array_length(c.properties -> $1::text -> 'select'), 0) = 0`,
    );
    expect(where(prop('t_people', { people: { isEmpty: true } })).sql).toBe(
      'c.properties -> $1::text is null',
    );
  });

  test('select in / notIn and multiSelect containsAny are ORs of containments', () => {
    expect(where(prop('t_select', { select: { notIn: ['a', 'b'] } })).sql).toBe(
      'not (c.properties @> $1::jsonb or c.properties @> $2::jsonb)',
    );
    expect(where(prop('t_multi', { multiSelect: { containsAll: ['a', 'c'] } })).parameters).toEqual([
      '{"t_multi":{"select":["a","c"]}}',
    ]);
  });

  test('people: `me` is the viewer; named users are returned for the organization to check', () => {
    expect(where(prop('t_people', { people: { me: true } })).parameters).toEqual([
      '{"t_people":{"people":["usr_me"]}}',
    ]);
    const r = compileRecordQuery(SCHEMA, VIEWER, prop('t_people', { people: { in: ['usr_a', 'usr_b'] } }));
    expect(r.people).toEqual([
      { field: 't_people', uid: 'usr_a' },
      { field: 't_people', uid: 'usr_b' },
    ]);
  });

  test('and, or, not, createdAt and search', () => {
    const r = where({
      filter: {
        or: [{ not: { property: { id: 't_checkbox', checkbox: { isEmpty: true } } } }],
        createdAt: { from: new Date('2026-01-01T00:00:00.000Z') },
      },
      search: 'hal',
    });
    expect(r.sql).toBe(
      `((not coalesce(c.properties -> $1::text is null, false) and c.created_at >= $2::timestamptz) and ` +
        `record_search_text(c.properties) ilike $3)`,
    );
    expect(r.parameters).toEqual(['t_checkbox', '2026-01-01T00:00:00.000Z', '%hal%']);
    // One condition, whatever the text: the planner reads the trigram index's statistics for it.
    expect(where({ search: 'a"b\\c' }).sql).toBe('record_search_text(c.properties) ilike $1');
  });

  test('every problem is named, with the path into the filter', () => {
    expect(problems(prop('nope', { text: { eq: 'x' } }))).toEqual([
      'unknown property "nope"; the project property schema lists the ids',
    ]);
    expect(problems(prop('t_number', { text: { eq: 'x' } }))).toEqual([
      'operator group "text" does not fit a number property; use "number"',
    ]);
    expect(problems(prop('t_number', {}))).toEqual([
      'give one operator group: "number" for a number property',
    ]);
    expect(problems(prop('t_select', { select: { in: ['a', 'zz'] } }))).toEqual([
      '"zz" is not an option of t_select; the property schema lists them',
    ]);
    expect(problems(prop('t_people', { people: { in: Array(201).fill('u') } }))).toEqual(['at most 200 ids']);
    expect(problems(prop('t_text', { text: { eq: 'x'.repeat(10_001) } }))).toEqual([
      'at most 10000 characters, like stored text',
    ]);
    expect(problems({ search: 'x'.repeat(MAX_SEARCH_LENGTH + 1) })).toEqual([
      `at most ${MAX_SEARCH_LENGTH} characters`,
    ]);
    const detail = compileRecordQuery(SCHEMA, VIEWER, prop('t_number', { date: { eq: '2026-01-01' } }))
      .details[0];
    expect(detail).toMatchObject({
      field: 't_number',
      path: 'filter.property',
      operatorGroup: 'number',
      allowedOperators: ['eq', 'lt', 'lte', 'gt', 'gte', 'between', 'isEmpty'],
    });
  });

  test('nesting and size are bounded', () => {
    let deep: Record<string, unknown> = { property: { id: 't_text', text: { eq: 'x' } } };
    for (let i = 0; i <= MAX_FILTER_DEPTH; i++) deep = { not: deep };
    expect(problems({ filter: deep })).toEqual([`filters nest at most ${MAX_FILTER_DEPTH} deep`]);
    const wide = { and: Array.from({ length: MAX_FILTER_CONDITIONS }, () => ({})) };
    expect(problems({ filter: wide })).toEqual([`at most ${MAX_FILTER_CONDITIONS} conditions`]);
  });

  test('the signature depends on the filter and the viewer, not on the order of evaluation', () => {
    const args = prop('t_people', { people: { me: true } });
    const a = compileRecordQuery(SCHEMA, 'usr_a', args).query.sig;
    expect(compileRecordQuery(SCHEMA, 'usr_a', args).query.sig).toBe(a);
    expect(compileRecordQuery(SCHEMA, 'usr_b', args).query.sig).not.toBe(a);
    expect(a).toMatch(/^[\w-]{12}$/);
  });
});
