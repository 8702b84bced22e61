import { sql } from 'kysely';
import {
  anyOf,
  define,
  type FilterContext,
  idList,
  LABELS_SCHEMA,
  type PropertyDef,
  type PropertyType,
  strictObject,
  type ValueShape,
} from './property-type.js';

/** Most options one multi_select value may hold. */
export const MAX_MULTI_SELECT = 100;

export type SelectStored = { select: string[] };

const option = (def: PropertyDef, id: string) => def.options.find((o) => o.id === id);

/** select and multi_select values are both `{ select: [option ids] }`. */
const SELECT_SHAPE: ValueShape<SelectStored> = {
  member: 'select',
  graphqlType: 'SelectValue',
  graphqlFields: {
    options: (v) =>
      (v.value as SelectStored).select.map((id) => option(v.def, id) ?? { id, name: id, color: '#9ca3af' }),
  },
  openapi: {
    name: 'SelectValue',
    read: strictObject(
      {
        select: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description: 'Option ids from the schema.',
          minItems: 1,
        },
        labels: LABELS_SCHEMA,
      },
      ['select'],
      'A select value (one option id) or multi_select value (option ids).',
      { examples: [{ select: ['permitting'], labels: ['Permitting'] }] },
    ),
    write: strictObject(
      {
        select: { type: ['array', 'null'], items: { type: 'string' }, maxItems: MAX_MULTI_SELECT },
        labels: LABELS_SCHEMA,
      },
      ['select'],
      'Sets a select property (exactly one option id) or a multi_select property (option ids; an empty array clears it); `{ "select": null }` clears it.',
    ),
  },
  withLabels: (v, def) => ({
    select: v.select,
    labels: v.select.map((id) => (def && option(def, id)?.name) ?? id),
  }),
};

type Checked = { value: SelectStored | null } | { reason: string };

/** A check that the value is option ids of the property; `then` says what those ids store. */
const optionIds =
  (then: (ids: string[]) => Checked) =>
  (v: unknown, def: PropertyDef, hint: string): Checked => {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
      return { reason: `select must be an array of option ids: ${hint}` };
    const unknown = v.filter((id) => !option(def, id));
    if (unknown.length)
      return {
        reason: `unknown option ${unknown.map((u) => `"${u}"`).join(', ')}; options are ${def.options.map((o) => o.id).join(', ')}`,
      };
    return then(v);
  };

/** A filter's option ids; unknown ones are problems. */
function filterIds(v: unknown, cx: FilterContext): string[] {
  const ids = idList(v, cx) ?? [];
  for (const id of ids)
    if (!option(cx.def, id))
      cx.problem(`"${id}" is not an option of ${cx.def.id}; the property schema lists them`);
  return ids;
}

const hasAny = (ids: string[], cx: FilterContext) => anyOf(ids.map((o) => cx.contains({ select: [o] })));

/** Option ids or option names (county exports use display names), one value or `a; b | c`. */
function optionsFromImport(v: unknown, def: PropertyDef) {
  const vals = Array.isArray(v) ? v : String(v).split(/\s*[;|]\s*/);
  return {
    select: vals.map(
      (x) => def.options.find((o) => o.id === x || o.name.toLowerCase() === String(x).toLowerCase())?.id ?? x,
    ),
  };
}

const common = {
  shape: SELECT_SHAPE,
  hasOptions: true,
  facet: 'select',
  fromImport: optionsFromImport,
} satisfies Partial<PropertyType>;

/** One option of the property. Sorts by the option's position in the schema, not by its id. */
export const select = define<'select', SelectStored>({
  ...common,
  name: 'select',
  example: '{ "select": ["<option id>"] }',
  check: optionIds((ids) =>
    ids.length === 1
      ? { value: { select: [ids[0]] } }
      : { reason: 'select takes exactly one option id; use { "select": null } to clear' },
  ),
  filter: {
    group: 'select',
    operators: ['in', 'notIn', 'isEmpty'],
    compile: (op, v, cx) =>
      op === 'in' ? hasAny(filterIds(v, cx), cx) : sql`not ${hasAny(filterIds(v, cx), cx)}`,
    empty: (p) => sql`${p} is null`,
  },
  aggregate: { group: { value: (p) => sql`(${p} -> 'select' ->> 0)`, by: 'option' } },
  sort: {
    value: (p, def) =>
      sql`to_jsonb(array_position(${def.options.map((o) => o.id)}::text[], ${p} -> 'select' ->> 0))`,
    // The positions come from the schema, which changes without the rows changing.
    noIndex: 'select sorts use option positions and need no index',
  },
});

/** Any options of the property: a set (repeats collapse, first first); `[]` clears. */
export const multiSelect = define<'multi_select', SelectStored>({
  ...common,
  name: 'multi_select',
  example: '{ "select": ["<option id>", …] }',
  check: optionIds((ids) => {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_MULTI_SELECT) return { reason: `at most ${MAX_MULTI_SELECT} options` };
    return unique.length ? { value: { select: unique } } : { value: null };
  }),
  filter: {
    group: 'multiSelect',
    operators: ['containsAny', 'containsAll', 'isEmpty'],
    compile: (op, v, cx) =>
      op === 'containsAll' ? cx.contains({ select: filterIds(v, cx) }) : hasAny(filterIds(v, cx), cx),
    empty: (p) => sql`coalesce(jsonb_array_length(${p} -> 'select'), 0) = 0`,
  },
  // A record is in the group of each of its options, once.
  aggregate: {
    group: {
      values: (p) => sql`select distinct e as v from jsonb_array_elements_text(
        case when jsonb_typeof(${p} -> 'select') = 'array' then ${p} -> 'select' end) e`,
      by: 'option',
    },
  },
});
