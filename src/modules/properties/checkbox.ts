import { sql } from 'kysely';
import { define, scalarOpenApi } from './property-type.js';

export type CheckboxStored = { checkbox: boolean };

/** What a spreadsheet or county export writes for a ticked or an empty box. */
const IMPORTED: Record<string, boolean> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  y: true,
  n: false,
  '1': true,
  '0': false,
  on: true,
  off: false,
};

/**
 * A yes/no flag, `{ checkbox: true | false }`; `{ checkbox: null }` clears it, so a record can be
 * ticked, unticked, or not set. Sorts false before true: as the jsonb numbers 0 and 1, since the
 * nulls sentinels of orderBy are jsonb null and true (src/modules/records/order.ts).
 */
export const checkbox = define<'checkbox', CheckboxStored>({
  name: 'checkbox',
  shape: {
    member: 'checkbox',
    graphqlType: 'CheckboxValue',
    graphqlFields: { checked: (v) => (v.value as CheckboxStored).checkbox },
    openapi: scalarOpenApi({
      name: 'CheckboxValue',
      member: 'checkbox',
      type: 'boolean',
      read: 'A checkbox value: true or false.',
      write: 'Sets a checkbox property to true or false; `{ "checkbox": null }` clears it.',
      example: true,
    }),
  },
  example: '{ "checkbox": true }',
  check: (v, _def, hint) =>
    typeof v === 'boolean'
      ? { value: { checkbox: v } }
      : { reason: `checkbox must be true or false (a JSON boolean, not a string): ${hint}` },
  filter: {
    group: 'checkbox',
    operators: ['eq', 'isEmpty'],
    compile: (_op, v, cx) => cx.contains({ checkbox: v }),
    empty: (p) => sql`${p} is null`,
  },
  sort: {
    value: (p) =>
      sql`(case ${p} -> 'checkbox' when 'true'::jsonb then '1'::jsonb when 'false'::jsonb then '0'::jsonb end)`,
  },
  facet: 'checkbox',
  aggregate: {
    group: {
      value: (p) => sql`(case jsonb_typeof(${p} -> 'checkbox') when 'boolean' then ${p} ->> 'checkbox' end)`,
      by: 'checkbox',
    },
  },
  fromImport: (v) => {
    const b = typeof v === 'boolean' ? v : IMPORTED[String(v).trim().toLowerCase()];
    return { checkbox: b ?? v };
  },
});
