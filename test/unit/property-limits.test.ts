import { describe, expect, test } from 'vitest';
import { AppError } from '../../src/errors.js';
import { MAX_MULTI_SELECT } from '../../src/modules/properties/select.js';
import { MAX_TEXT_LENGTH } from '../../src/modules/properties/text.js';
import { MAX_PROPERTIES_PER_WRITE, validateProperties } from '../../src/modules/records/validate.js';
import { makeSchema, type PropertyDefModel } from '../../src/modules/schema/types.js';

/** The per-write limits of SECURITY.md, at their edges, on the validator itself. */
const option = (i: number) => ({ id: `o${i}`, name: `Option ${i}`, color: '#000000' });
const def = (
  id: string,
  type: PropertyDefModel['type'],
  position: number,
  options = 0,
): PropertyDefModel => ({
  id,
  name: id,
  type,
  options: Array.from({ length: options }, (_, i) => option(i)),
  required: false,
  position,
});
const schema = makeSchema('org_x', 'project', [
  def('note', 'text', 0),
  def('tags', 'multi_select', 1, 150),
  ...Array.from({ length: MAX_PROPERTIES_PER_WRITE + 1 }, (_, i) => def(`p${i}`, 'text', i + 2)),
]);
const refusal = (input: unknown) => {
  try {
    validateProperties('project', schema, input, 'update');
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).details?.map((d) => d.reason).join('; ');
  }
  return undefined;
};

describe('limits of one write', () => {
  test(`text values hold at most ${MAX_TEXT_LENGTH} characters (code points)`, () => {
    expect(refusal({ note: { text: '☀'.repeat(MAX_TEXT_LENGTH) } })).toBeUndefined();
    expect(refusal({ note: { text: 'x'.repeat(MAX_TEXT_LENGTH + 1) } })).toMatch(
      /text is 10001 characters; the limit is 10000/,
    );
  });

  test(`a multi_select value holds at most ${MAX_MULTI_SELECT} options`, () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `o${i}`);
    expect(refusal({ tags: { select: ids(MAX_MULTI_SELECT) } })).toBeUndefined();
    expect(refusal({ tags: { select: ids(MAX_MULTI_SELECT + 1) } })).toBe(
      `at most ${MAX_MULTI_SELECT} options`,
    );
  });

  test(`one write names at most ${MAX_PROPERTIES_PER_WRITE} properties`, () => {
    const props = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { text: 'x' }]));
    expect(refusal(props(MAX_PROPERTIES_PER_WRITE))).toBeUndefined();
    expect(refusal(props(MAX_PROPERTIES_PER_WRITE + 1))).toMatch(/200/);
  });
});
