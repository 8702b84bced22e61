import { describe, expect, test } from 'vitest';
import { ParamChecker } from '../../src/rest/params.js';

const problems = (query: Record<string, unknown>, use: (c: ParamChecker) => void) => {
  const c = new ParamChecker(query);
  use(c);
  try {
    c.done();
    return [];
  } catch (e) {
    return (e as { details: { field: string; reason: string }[] }).details.map(
      (d) => `${d.field}: ${d.reason}`,
    );
  }
};

describe('REST parameter checks', () => {
  test('required, repeated, empty and near-miss parameters are all reported at once; other unknown ones are ignored', () => {
    expect(
      problems({ portfolioId: ['a', 'b'], limit: '', startkey: 'x', _: '123', utm_source: 'x' }, (c) => {
        c.required('orgId');
        c.required('portfolioId');
        c.limit();
        c.only(['orgId', 'portfolioId', 'limit', 'startKey']);
      }),
    ).toEqual([
      'orgId: query parameter orgId is required',
      'portfolioId: query parameter portfolioId was given more than once',
      'limit: query parameter limit must not be empty',
      'startkey: unknown query parameter; this path takes orgId, portfolioId, limit, startKey',
    ]);
  });

  test('limit is an integer from 1 to 5000, written plainly; 100 when absent', () => {
    for (const [v, ok] of [
      ['1', 1],
      ['5000', 5000],
      [undefined, 100],
    ] as const)
      expect(new ParamChecker(v === undefined ? {} : { limit: v }).limit()).toBe(ok);
    for (const bad of ['0', '5001', '1.5', '1e3', '0x10', ' 5', '-1', '100000'])
      expect(
        problems({ limit: bad }, (c) => c.limit()),
        bad,
      ).toEqual(['limit: limit must be an integer from 1 to 5000']);
  });

  test('a body is an object with exactly its members', () => {
    const body = (b: unknown) => problems({}, (c) => c.body(b, { contactId: 'string' }));
    expect(body({ contactId: 'con_1' })).toEqual([]);
    expect(body([])).toEqual(['body: the body must be a JSON object with contactId']);
    expect(body({ contactId: ' ', extra: 1 })).toEqual([
      'extra: unknown member; the body takes only contactId',
      'contactId: contactId must be a non-empty string',
    ]);
    expect(problems({}, (c) => c.body({ properties: null }, { properties: 'object' }))).toEqual([
      'properties: properties is required',
    ]);
  });
});
