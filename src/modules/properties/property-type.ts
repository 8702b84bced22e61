import { type RawBuilder, sql } from 'kysely';

/** One option of a select or multi-select property. */
export interface SelectOptionModel {
  id: string;
  name: string;
  color: string;
}

/**
 * A property as its type sees it. The schema module's PropertyDef narrows `type` to the
 * registry's names; the types here take this wider shape so that they need nothing from it.
 */
export interface PropertyDef {
  id: string;
  name: string;
  type: string;
  options: SelectOptionModel[];
  required: boolean;
  position: number;
}

/**
 * What one property type is, everywhere it matters: how its values are written and checked, read,
 * filtered, sorted, imported, and described in GraphQL and OpenAPI. Every type is one object that
 * implements this (src/modules/properties/*.ts), listed once in registry.ts; nothing else in the
 * code base switches on a type name.
 */
export interface PropertyType<Name extends string = string, Stored extends object = object> {
  /** The schema's `property_type`, as REST and the database spell it. */
  name: Name;
  /** The shape of its value objects; several types may share one (text, url and email). */
  shape: ValueShape<Stored>;
  /** A valid value object, for error messages and `sdg --help`. */
  example: string;
  /** Whether the property carries options (select, multi_select). */
  hasOptions?: boolean;
  /**
   * Checks the inner member of a written value object (never null: null clears). Returns the
   * value object to store, `null` when the value means "clear" (an empty multi_select), or the
   * reason it is wrong; `hint` says what a valid value looks like, for those reasons.
   */
  check(v: unknown, def: PropertyDef, hint: string): { value: Stored | null } | { reason: string };
  /** User ids a value names; each must be a member or guest of the organization. */
  users?(value: Stored): string[];
  /** The GraphQL filter operator group that fits the type, and how each operator compiles. */
  filter: FilterGroup;
  /** Absent: the type cannot be sorted by. */
  sort?: {
    /**
     * The jsonb value to sort by (`p` is the property's stored value object, jsonb): a string or a
     * number, so that the nulls sentinels 'null' and 'true' sort before and after every value.
     */
    value(p: RawBuilder<unknown>, def: PropertyDef): RawBuilder<unknown>;
    /** Why no expression index can serve the sort (a value that depends on the schema); absent: one can. */
    noIndex?: string;
  };
  /**
   * Facets count the values of this member: the ids in its array (select, people), or its boolean
   * (checkbox); absent: the type has no facets.
   */
  facet?: 'select' | 'people' | 'checkbox';
  /** How the type aggregates (src/modules/records/aggregate.ts); absent: only counts with and without a value. */
  aggregate?: AggregateHooks;
  /**
   * A value from an imported file (GeoJSON feature properties) as a value object to validate,
   * or undefined to leave the property unset. What it cannot read passes through, so that
   * validation names the problem.
   */
  fromImport(raw: unknown, def: PropertyDef): unknown;
}

/** How values are written and read: the value object's one member, and its GraphQL and OpenAPI types. */
export interface ValueShape<Stored extends object = object> {
  /** `{ text }`, `{ number }`, … */
  member: string;
  /** The GraphQL type of the value (implements PropertyValue in schema.graphql). */
  graphqlType: ValueTypeName;
  /**
   * Fields of the GraphQL type computed from the stored value alone (the property, `property`, is
   * added to every value); set on the value when it is built (src/modules/records/values.ts).
   */
  graphqlFields: Record<string, (v: { value: object; def: PropertyDef }) => unknown>;
  /**
   * Fields that need the users of the value's organization the caller may see (people's `users`):
   * values of such a shape are built with that list (src/modules/records/values.ts).
   */
  graphqlUserFields?: Record<
    string,
    (v: { value: object }, users: ReadonlyMap<string, { id: string; email: string; name: string }>) => unknown
  >;
  /** OpenAPI component schemas: `name` for reads, `${name}Input` for writes (null clears). */
  openapi: { name: string; read: Record<string, unknown>; write: Record<string, unknown> };
  /**
   * A value of this shape as REST reads it: the stored value with `labels` (option or user names).
   * Written as a literal of the shape's own members, not a spread of the stored object: a REST page
   * builds one for each of thousands of values, and a spread is the slower copy.
   */
  withLabels?(
    value: Stored,
    def: PropertyDef | undefined,
    users?: ReadonlyMap<string, { name: string }>,
  ): Stored & { labels: string[] };
}

/**
 * The GraphQL types that implement PropertyValue in schema.graphql. The PropertyValue resolver
 * returns these, so the generated resolver types check this list against the SDL.
 */
export type ValueTypeName =
  | 'TextValue'
  | 'NumberValue'
  | 'DateValue'
  | 'SelectValue'
  | 'PeopleValue'
  | 'CheckboxValue';

/**
 * What a type offers dashboards, each over `p`, the stored value object (jsonb). A record without a
 * value, or with a value of another shape, gives SQL null, which every aggregate skips.
 */
export interface AggregateHooks {
  /** A numeric value: sum, avg, min and max apply. */
  number?(p: RawBuilder<unknown>): RawBuilder<unknown>;
  /** A `YYYY-MM-DD` text that sorts as the days do: min and max apply, and date buckets. */
  day?(p: RawBuilder<unknown>): RawBuilder<unknown>;
  /**
   * The type groups records, by one key per record or by several. `by` says how keys are labelled
   * and ordered.
   */
  group?: GroupHook;
}

/** How a type's records fall into groups: exactly one of `value` and `values`. */
export type GroupHook = { by: 'option' | 'user' | 'checkbox' } & (
  | {
      /**
       * The record's one key, a text expression (null for none). Postgres can keep statistics of it
       * (`sdg schema index`), so that a grouped scan knows it makes few groups and runs in parallel.
       */
      value(p: RawBuilder<unknown>): RawBuilder<unknown>;
      values?: never;
    }
  | {
      /** A query of one text column `v`, one row per key of the record (one per option), none for none. */
      values(p: RawBuilder<unknown>): RawBuilder<unknown>;
      value?: never;
    }
);

/** One operator group of the GraphQL PropertyFilter input (`text: { contains: … }`). */
export interface FilterGroup {
  /** The member of PropertyFilter. */
  group: string;
  operators: readonly string[];
  /** SQL of one operator (isEmpty excluded, see `empty`). Problems go to `cx.problem`. */
  compile(op: string, v: unknown, cx: FilterContext): RawBuilder<unknown>;
  /** SQL that holds when the property has no value, by the type's meaning of "empty". */
  empty(p: RawBuilder<unknown>): RawBuilder<unknown>;
}

/** What an operator needs from the filter compiler (src/modules/records/filter.ts). */
export interface FilterContext {
  def: PropertyDef;
  /** `c.properties -> id`: the stored value object, jsonb. */
  p: RawBuilder<unknown>;
  /** Containment of `{ [id]: inner }` in the record's properties (served by the GIN index). */
  contains(inner: object): RawBuilder<unknown>;
  viewerId: string;
  /** Every operator given in this group, for operators that combine (people's `me` joins `in`). */
  group: Readonly<Record<string, unknown>>;
  /** Records a problem with this operand; the filter then fails as a whole. */
  problem(reason: string): RawBuilder<unknown>;
  /** A people operand, checked against the organization's users before the query runs. */
  person(uid: string): void;
}

/** Most ids in one in/notIn/containsAny/containsAll list. */
export const MAX_FILTER_LIST = 200;

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const anyOf = (parts: RawBuilder<unknown>[]): RawBuilder<unknown> =>
  parts.length === 0 ? sql`false` : parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` or `)})`;

/** `{ type: 'object', … , additionalProperties: false }`: value objects take exactly their members. */
export const strictObject = (
  properties: Record<string, unknown>,
  required: string[],
  description: string,
  extra: Record<string, unknown> = {},
) => ({ type: 'object', description, properties, required, additionalProperties: false, ...extra });

/** The `labels` member of read values, in OpenAPI. */
export const LABELS_SCHEMA = {
  type: 'array',
  items: { type: 'string' },
  description: 'Display names of the chosen options or users, in the same order. Ignored on writes.',
};

/**
 * The OpenAPI schemas of a value whose member is one JSON scalar (`{ text }`, `{ number }`): the
 * read form, and the write form where null clears and read labels may be sent back.
 */
export function scalarOpenApi(o: {
  name: string;
  member: string;
  type: string;
  read: string;
  write: string;
  example: unknown;
  writeExtra?: Record<string, unknown>;
}): ValueShape['openapi'] {
  return {
    name: o.name,
    read: strictObject({ [o.member]: { type: o.type } }, [o.member], o.read, {
      examples: [{ [o.member]: o.example }],
    }),
    write: strictObject(
      { [o.member]: { type: [o.type, 'null'], ...o.writeExtra }, labels: LABELS_SCHEMA },
      [o.member],
      o.write,
    ),
  };
}

/** A list operand of at most MAX_FILTER_LIST ids, or a problem. */
export function idList(v: unknown, cx: FilterContext): string[] | undefined {
  const list = v as string[];
  if (list.length > MAX_FILTER_LIST) {
    cx.problem(`at most ${MAX_FILTER_LIST} ids`);
    return undefined;
  }
  return list;
}

/** Typed value objects of one definition, for `define` below. */
export function define<Name extends string, Stored extends object>(
  t: PropertyType<Name, Stored>,
): PropertyType<Name, Stored> {
  return t;
}
