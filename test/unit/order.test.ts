import { describe, expect, test } from 'vitest';
import type { ErrorDetail } from '../../src/errors.js';
import {
  compileOrder,
  MAX_ORDER_KEYS,
  type OrderInput,
  propertyIndexSql,
  propertyNamePart,
} from '../../src/modules/records/order.js';
import { SCHEMA } from './schema.js';
import { compiled } from './sql.js';

const order = (o: OrderInput[]) => {
  const details: ErrorDetail[] = [];
  const keys = compileOrder(SCHEMA, o, details);
  return { keys: keys.map((k) => ({ ...compiled(k.expr), type: k.type, dir: k.dir })), details };
};

describe('orderBy compilation', () => {
  test('a property sorts by its jsonb value, never null: the sentinel follows direction and nulls', () => {
    const { keys } = order([
      { property: 't_number' },
      { property: 't_text', direction: 'DESC', nulls: 'FIRST' },
    ]);
    expect(keys).toEqual([
      {
        sql: `coalesce(c.properties -> $1::text -> 'number', 'true'::jsonb)`,
        parameters: ['t_number'],
        type: 'json',
        dir: 'asc',
      },
      {
        sql: `coalesce(c.properties -> $1::text -> 'text', 'true'::jsonb)`,
        parameters: ['t_text'],
        type: 'json',
        dir: 'desc',
      },
    ]);
    expect(order([{ property: 't_date', nulls: 'FIRST' }]).keys[0].sql).toBe(
      `coalesce(c.properties -> $1::text -> 'date' -> 'start', 'null'::jsonb)`,
    );
  });

  test('select sorts by option position, checkbox as 0 and 1, record fields by their column', () => {
    const { keys } = order([{ property: 't_select' }, { property: 't_checkbox' }, { field: 'UPDATED_AT' }]);
    expect(keys[0]).toMatchObject({
      sql: `coalesce(to_jsonb(array_position($1::text[], c.properties -> $2::text -> 'select' ->> 0)), 'true'::jsonb)`,
      parameters: [['a', 'b', 'c'], 't_select'],
    });
    expect(keys[1].sql).toContain(`when 'false'::jsonb then '0'::jsonb`);
    expect(keys[2]).toEqual({ sql: 'c.updated_at', parameters: [], type: 'ts', dir: 'asc' });
  });

  test('what cannot be sorted is named, with the sortable types', () => {
    const reasons = (o: OrderInput[]) => order(o).details.map((d) => d.reason);
    expect(reasons([{ property: 't_multi' }])).toEqual([
      'a multi_select property cannot be sorted by; sortable types: text, url, email, number, date, select, checkbox',
    ]);
    expect(reasons([{ property: 'nope' }])).toEqual([
      'unknown property "nope"; the property schema lists the ids',
    ]);
    expect(reasons([{ property: 't_text', field: 'CREATED_AT' }])).toEqual([
      'give exactly one of property and field',
    ]);
    expect(reasons([{ field: 'CREATED_AT', nulls: 'LAST' }])).toEqual([
      'CREATED_AT is never null; drop nulls',
    ]);
    expect(reasons(Array(MAX_ORDER_KEYS + 1).fill({ field: 'CREATED_AT' }))).toEqual([
      `at most ${MAX_ORDER_KEYS} sort keys`,
    ]);
  });

  test('property indexes: two per sortable property, two more for a number, none where the order depends on the schema', () => {
    const indexes = propertyIndexSql('projects', SCHEMA, 't_number');
    const [hi, lo, page, ids] = indexes.map((s) => compiled(s.create).sql);
    const name = (tag: string) => `projects_sort_${propertyNamePart('t_number')}_${tag}_idx`;
    const key = `(coalesce(properties -> 't_number'::text -> 'number', 'true'::jsonb))`;
    expect(hi).toBe(
      `create index if not exists "${name('hi')}" on "projects" (org_id, portfolio_id, ${key}, created_at, id)`,
    );
    expect(lo).toContain(`'null'::jsonb`);
    expect(page).toBe(
      `create index if not exists "${name('page')}" on "projects" (org_id, portfolio_id, created_at, id, ${key})`,
    );
    expect(ids).toBe(
      `create index if not exists "${name('ids')}" on "projects" (org_id, portfolio_id, id, ${key})`,
    );
    expect(indexes.map((i) => i.legacyName)).toEqual(
      ['hi', 'lo', 'page', 'ids'].map((tag) => `projects_sort_t_number_${tag}_idx`),
    );
    expect(propertyIndexSql('projects', SCHEMA, 't_date')).toHaveLength(2);
    expect(propertyIndexSql('projects', SCHEMA, 't_select')).toEqual([]);
    expect(propertyIndexSql('projects', SCHEMA, 't_people')).toEqual([]);
    expect(propertyIndexSql('projects', SCHEMA, 't_checkbox')).toHaveLength(2);
  });

  test('ids that read alike as identifiers, or share a long beginning, name different objects', () => {
    const alike = ['a-b', 'a_b', `${'x'.repeat(40)}1`, `${'x'.repeat(40)}2`];
    const parts = alike.map(propertyNamePart);
    expect(new Set(parts).size).toBe(alike.length);
    // The longest name (contacts, 30 characters of id, hash, _page_idx) fits Postgres's 63 bytes.
    expect(`contacts_sort_${propertyNamePart('y'.repeat(64))}_page_idx`.length).toBeLessThanOrEqual(63);
  });
});
