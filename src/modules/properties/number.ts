import { sql } from 'kysely';
import { define, scalarOpenApi } from './property-type.js';

export type NumberStored = { number: number };

const jsonb = (x: unknown) => sql`${JSON.stringify(x)}::jsonb`;
const COMPARE = { lt: sql`<`, lte: sql`<=`, gt: sql`>`, gte: sql`>=` };

/**
 * A finite decimal number. Ranges compare jsonb numbers (`properties->id->'number' > '42'::jsonb`):
 * no cast, so a stray stored value can never make a query fail.
 */
export const number = define<'number', NumberStored>({
  name: 'number',
  shape: {
    member: 'number',
    graphqlType: 'NumberValue',
    graphqlFields: { number: (v) => (v.value as NumberStored).number },
    openapi: scalarOpenApi({
      name: 'NumberValue',
      member: 'number',
      type: 'number',
      read: 'A number value; decimals allowed.',
      write: 'Sets a number property; `{ "number": null }` clears it.',
      example: 42.5,
    }),
  },
  example: '{ "number": 42.5 }',
  check: (v, _def, hint) =>
    typeof v === 'number' && Number.isFinite(v)
      ? { value: { number: v } }
      : { reason: `number must be a finite JSON number, not a string: ${hint}` },
  filter: {
    group: 'number',
    operators: ['eq', 'lt', 'lte', 'gt', 'gte', 'between', 'isEmpty'],
    compile(op, v, cx) {
      const n = sql`(${cx.p} -> 'number')`;
      if (op === 'eq') return cx.contains({ number: v });
      if (op === 'between') {
        const r = v as { min: number; max: number };
        return sql`(${n} >= ${jsonb(r.min)} and ${n} <= ${jsonb(r.max)})`;
      }
      return sql`${n} ${COMPARE[op as keyof typeof COMPARE]} ${jsonb(v)}`;
    },
    empty: (p) => sql`${p} is null`,
  },
  sort: { value: (p) => sql`${p} -> 'number'` },
  // numeric, not float8: sums of decimals stay exact until the answer is written.
  aggregate: {
    number: (p) =>
      sql`(case when jsonb_typeof(${p} -> 'number') = 'number' then (${p} -> 'number')::numeric end)`,
  },
  // Files often carry numbers as text ("40.5").
  fromImport: (v) => ({
    number: typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v,
  }),
});
