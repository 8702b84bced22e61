import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type { ErrorDetail } from '../../errors.js';
import { PROPERTY_TYPES, propertyType } from '../properties/index.js';
import type { PropertySchemaModel } from '../schema/index.js';

/**
 * `orderBy` of record lists. Every property sort key is a NON-NULL jsonb expression:
 *
 *   coalesce(c.properties -> 'acreage' -> 'number', <sentinel>)
 *
 * where records without the value get a sentinel that sorts where `nulls` says, in jsonb's own
 * order (null < strings < numbers < booleans < objects): `'null'` sorts before every stored value,
 * `'true'` after every one. So there is never a SQL NULL in a sort key: keyset comparisons stay
 * plain comparisons (a row comparison when every key runs the same way, an expanded OR when
 * directions are mixed), the "is null" state travels in the cursor as the sentinel itself, and an
 * expression index on exactly that expression (see propertyIndexSql) serves the order and deep cursors.
 * Comparing jsonb needs no cast, so a stray value can never make a page fail.
 */

export interface OrderInput {
  property?: string | null;
  field?: 'CREATED_AT' | 'UPDATED_AT' | 'ACRES' | null;
  direction?: 'ASC' | 'DESC' | null;
  nulls?: 'FIRST' | 'LAST' | null;
}

export interface SortKey {
  /** SQL over the child alias `c`; never null. */
  expr: RawBuilder<unknown>;
  /** jsonb keys travel in cursors as their jsonb text; timestamps as epoch milliseconds. */
  type: 'json' | 'ts';
  dir: 'asc' | 'desc';
}

/** Most keys in one orderBy. */
export const MAX_ORDER_KEYS = 5;

/** The types a list can be sorted by, for messages. */
const SORTABLE = PROPERTY_TYPES.filter((t) => t.sort).map((t) => t.name);

/** The jsonb value a property sorts by, before the nulls sentinel; null for unsortable types. */
export function sortValue(
  schema: PropertySchemaModel,
  id: string,
  param: (v: string) => RawBuilder<unknown> = (v) => sql`${v}::text`,
  column: RawBuilder<unknown> = sql`c.properties`,
): RawBuilder<unknown> | null {
  const def = schema.byId.get(id);
  const sort = def && propertyType(def.type)?.sort;
  return sort ? sort.value(sql`${column} -> ${param(id)}`, def) : null;
}

const sentinel = (dir: 'asc' | 'desc', nulls: 'FIRST' | 'LAST') =>
  (dir === 'asc') === (nulls === 'LAST') ? sql`'true'::jsonb` : sql`'null'::jsonb`;

export function compileOrder(
  schema: PropertySchemaModel,
  order: readonly OrderInput[],
  details: ErrorDetail[],
): SortKey[] {
  if (order.length > MAX_ORDER_KEYS) {
    details.push({ field: 'orderBy', reason: `at most ${MAX_ORDER_KEYS} sort keys` });
    return [];
  }
  const keys: SortKey[] = [];
  order.forEach((o, i) => {
    const path = `orderBy[${i}]`;
    const dir = o.direction === 'DESC' ? 'desc' : 'asc';
    if ((o.property == null) === (o.field == null)) {
      details.push({ field: 'orderBy', path, reason: 'give exactly one of property and field' });
      return;
    }
    if (o.field === 'ACRES') {
      if (schema.kind !== 'parcel')
        details.push({ field: 'orderBy', path, reason: 'ACRES sorts parcels; other records have no area' });
      // A parcel without a boundary has no acres: it sorts where `nulls` says, like a missing value.
      const sentinelled = sql`coalesce(to_jsonb(c.acres), ${sentinel(dir, o.nulls ?? 'LAST')})`;
      keys.push({ expr: sentinelled, type: 'json', dir });
      return;
    }
    if (o.field) {
      if (o.nulls) details.push({ field: 'orderBy', path, reason: `${o.field} is never null; drop nulls` });
      keys.push({ expr: o.field === 'CREATED_AT' ? sql`c.created_at` : sql`c.updated_at`, type: 'ts', dir });
      return;
    }
    const id = o.property as string;
    const def = schema.byId.get(id);
    if (!def) {
      details.push({
        field: id,
        path,
        reason: `unknown property "${id}"; the property schema lists the ids`,
      });
      return;
    }
    const value = sortValue(schema, id);
    if (!value) {
      details.push({
        field: id,
        path,
        reason: `a ${def.type} property cannot be sorted by; sortable types: ${SORTABLE.join(', ')}`,
      });
      return;
    }
    keys.push({ expr: sql`coalesce(${value}, ${sentinel(dir, o.nulls ?? 'LAST')})`, type: 'json', dir });
  });
  return keys;
}

/**
 * A property id as part of an object's name: the id as an identifier, cut to 30 characters, then a
 * hash of the whole id, so that ids that read alike as identifiers (`a-b` and `a_b`, or two long ids
 * with one beginning) name two objects. Without the hash, the second property's `create … if not
 * exists` found the first one's object and made nothing.
 */
export function propertyNamePart(id: string): string {
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  return `${id.replace(/[^a-z0-9_]/gi, '_').slice(0, 30)}_${hash}`;
}

/** One expression index of a property (propertyIndexSql). */
export interface PropertyIndex {
  name: string;
  /**
   * The name earlier builds gave it, without the hash: `sdg schema index` renames an index found
   * under it, when it is this property's, instead of building it again.
   */
  legacyName: string;
  create: RawBuilder<unknown>;
}

/**
 * DDL for the expression indexes an operator adds for one property (`sdg schema index`; docs/cli.md,
 * "Property schemas"), since sort keys cannot be indexed generically per property id:
 * - for every sortable type, two that serve `orderBy: [{ property: id }]` on a portfolio list in
 *   every direction and nulls placement, deep cursors included: `_hi` holds the sentinel `'true'`
 *   (ASC NULLS LAST, and DESC NULLS FIRST scanned backwards), `_lo` the sentinel `'null'` (ASC
 *   NULLS FIRST, DESC NULLS LAST); a narrow number range reads its matches from `_hi`;
 * - for numbers, two more that hold the same key after the list's own orders, so a broad range is
 *   tested in the index instead of in each row: `_page` after (created_at, id), where a filtered
 *   page in the list's order looks, and `_ids` after the id, where a filtered count samples
 *   (repository.ts filteredCounts).
 * Types whose sort value depends on the schema (select: the option position) get none: no index
 * can follow it.
 */
export function propertyIndexSql(
  table: 'projects' | 'parcels' | 'contacts',
  schema: PropertySchemaModel,
  id: string,
): PropertyIndex[] {
  const def = schema.byId.get(id);
  const sort = def && propertyType(def.type)?.sort;
  if (!sort || sort.noIndex) return [];
  const value = sortValue(schema, id, (v) => sql`${sql.lit(v)}::text`, sql`properties`);
  if (!value) return [];
  const base = `${table}_sort_${propertyNamePart(id)}`;
  const legacyBase = `${table}_sort_${id.replace(/[^a-z0-9_]/gi, '_').slice(0, 40)}`;
  const key = (sentinel: RawBuilder<unknown>) => sql`(coalesce(${value}, ${sentinel}))`;
  const hi = key(sql`'true'::jsonb`);
  const indexes: [string, RawBuilder<unknown>][] = [
    ['hi', sql`org_id, portfolio_id, ${hi}, created_at, id`],
    ['lo', sql`org_id, portfolio_id, ${key(sql`'null'::jsonb`)}, created_at, id`],
  ];
  if (def.type === 'number')
    indexes.push(
      ['page', sql`org_id, portfolio_id, created_at, id, ${hi}`],
      ['ids', sql`org_id, portfolio_id, id, ${hi}`],
    );
  return indexes.map(([tag, columns]) => {
    const name = `${base}_${tag}_idx`;
    return {
      name,
      legacyName: `${legacyBase}_${tag}_idx`,
      create: sql`create index if not exists ${sql.id(name)} on ${sql.table(table)} (${columns})`,
    };
  });
}
