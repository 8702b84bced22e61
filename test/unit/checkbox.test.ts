import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { checkbox } from '../../src/modules/properties/checkbox.js';
import { checkProperties } from '../../src/modules/records/validate.js';
import { makeSchema, type PropertyDefModel } from '../../src/modules/schema/types.js';
import { compiled } from './sql.js';

const def: PropertyDefModel = {
  id: 'ok',
  name: 'OK',
  type: 'checkbox',
  options: [],
  required: false,
  position: 0,
};
const schema = makeSchema('org_1', 'project', [def]);

describe('checkbox (pure)', () => {
  test('writes take a JSON boolean; null clears; anything else says what to send', () => {
    expect(checkProperties('project', schema, { ok: { checkbox: true } }, 'update').changes.set).toEqual({
      ok: { checkbox: true },
    });
    expect(checkProperties('project', schema, { ok: { checkbox: false } }, 'update').changes.set).toEqual({
      ok: { checkbox: false },
    });
    expect(checkProperties('project', schema, { ok: { checkbox: null } }, 'update').changes.clear).toEqual([
      'ok',
    ]);
    for (const bad of ['true', 0, 'no', []])
      expect(checkProperties('project', schema, { ok: { checkbox: bad } }, 'update').details).toEqual([
        {
          field: 'ok',
          reason:
            'checkbox must be true or false (a JSON boolean, not a string): expected { "checkbox": true } (or { "checkbox": null } to clear)',
        },
      ]);
  });

  test('imports read the usual spellings of yes and no; other words pass through to be refused', () => {
    const read = (v: unknown) => checkbox.fromImport(v, def);
    for (const v of [true, 'true', 'TRUE', 'yes', 'Y', '1', 1, 'on', ' On '])
      expect(read(v), String(v)).toEqual({ checkbox: true });
    for (const v of [false, 'false', 'No', 'n', '0', 0, 'off'])
      expect(read(v), String(v)).toEqual({ checkbox: false });
    expect(read('maybe')).toEqual({ checkbox: 'maybe' });
    expect(read(2)).toEqual({ checkbox: 2 });
  });

  test('sorts as the numbers 0 and 1, inside the nulls sentinels; filters by containment', () => {
    expect(compiled(checkbox.sort!.value(sql`p`, def)).sql).toBe(
      `(case p -> 'checkbox' when 'true'::jsonb then '1'::jsonb when 'false'::jsonb then '0'::jsonb end)`,
    );
    expect(compiled(checkbox.filter.empty(sql`p`)).sql).toBe('p is null');
  });
});
