import { sql } from 'kysely';
import { define, isPlainObject, LABELS_SCHEMA, strictObject } from './property-type.js';

export type DateStored = { date: { start: string } };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date, YYYY-MM-DD (no 2026-02-30). */
export function isRealDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1) return false;
  // setUTCFullYear, not Date.UTC: Date.UTC maps the years 0-99 to 1900-1999.
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d);
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

const START = strictObject(
  { start: { type: 'string', format: 'date' } },
  ['start'],
  'A calendar date, YYYY-MM-DD.',
);

/**
 * A calendar date, `{ date: { start } }`; `start` exists to allow intervals later. Ranges compare
 * the `YYYY-MM-DD` start as text in the C collation.
 */
export const date = define<'date', DateStored>({
  name: 'date',
  shape: {
    member: 'date',
    graphqlType: 'DateValue',
    graphqlFields: { start: (v) => (v.value as DateStored).date.start },
    openapi: {
      name: 'DateValue',
      read: strictObject(
        { date: START },
        ['date'],
        'A date value. Intervals are not supported; `start` exists to allow them later.',
        { examples: [{ date: { start: '2026-05-01' } }] },
      ),
      write: strictObject(
        { date: { oneOf: [START, { type: 'null' }] }, labels: LABELS_SCHEMA },
        ['date'],
        'Sets a date property; `{ "date": null }` clears it.',
      ),
    },
  },
  example: '{ "date": { "start": "2026-05-01" } }',
  check(v, _def, hint) {
    if (!isPlainObject(v)) return { reason: `date must be an object: ${hint}` };
    const extra = Object.keys(v).filter((k) => k !== 'start');
    if (extra.length)
      return {
        reason: `date may only have "start"; ${extra.map((k) => `"${k}"`).join(', ')} is not supported (no intervals)`,
      };
    if (typeof v.start !== 'string' || !isRealDate(v.start))
      return { reason: 'date.start must be a real calendar date, YYYY-MM-DD' };
    return { value: { date: { start: v.start } } };
  },
  filter: {
    group: 'date',
    operators: ['eq', 'before', 'after', 'between', 'isEmpty'],
    compile(op, v, cx) {
      const d = sql`(${cx.p} -> 'date' ->> 'start') collate "C"`;
      if (op === 'eq') return cx.contains({ date: { start: v } });
      if (op === 'before') return sql`${d} < ${v as string}`;
      if (op === 'after') return sql`${d} > ${v as string}`;
      const r = v as { from: string; to: string };
      return sql`(${d} >= ${r.from} and ${d} <= ${r.to})`;
    },
    empty: (p) => sql`${p} is null`,
  },
  sort: { value: (p) => sql`${p} -> 'date' -> 'start'` },
  // Stored days are real YYYY-MM-DD (check above), so their text in the C collation sorts as they do.
  aggregate: { day: (p) => sql`((${p} -> 'date' ->> 'start') collate "C")` },
  // Date-times keep their day ("2026-05-01T00:00:00Z").
  fromImport: (v) => ({ date: { start: typeof v === 'string' ? v.slice(0, 10) : v } }),
});
