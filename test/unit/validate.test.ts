import { describe, expect, test } from 'vitest';
import { checkProperties, MAX_PROPERTIES_PER_WRITE } from '../../src/modules/records/validate.js';
import { SCHEMA } from './schema.js';

const check = (input: unknown, mode: 'create' | 'update' = 'update') =>
  checkProperties('project', SCHEMA, input, mode);
const reason = (id: string, value: unknown) => {
  const { details } = check({ [id]: value });
  expect(details, JSON.stringify(value)).toHaveLength(1);
  return details[0].reason;
};
const stores = (id: string, value: unknown) => {
  const { changes, details } = check({ [id]: value });
  expect(details, JSON.stringify(value)).toEqual([]);
  return changes.set[id] ?? (changes.clear.includes(id) ? 'cleared' : undefined);
};

describe('property value validation', () => {
  test('each type stores its value object; a null inner member clears', () => {
    expect(stores('t_text', { text: 'a\tb' })).toEqual({ text: 'a\tb' });
    expect(stores('t_url', { text: 'https://x.example/p?q=1' })).toEqual({ text: 'https://x.example/p?q=1' });
    expect(stores('t_email', { text: 'a@b.example' })).toEqual({ text: 'a@b.example' });
    expect(stores('t_number', { number: -0.5 })).toEqual({ number: -0.5 });
    expect(stores('t_date', { date: { start: '2024-02-29' } })).toEqual({ date: { start: '2024-02-29' } });
    expect(stores('t_select', { select: ['b'], labels: ['B'] })).toEqual({ select: ['b'] });
    expect(stores('t_multi', { select: ['c', 'a', 'c'] })).toEqual({ select: ['c', 'a'] });
    expect(stores('t_multi', { select: [] })).toBe('cleared');
    expect(stores('t_people', { people: ['usr_1'] })).toEqual({ people: ['usr_1'] });
    expect(stores('t_checkbox', { checkbox: null })).toBe('cleared');
  });

  test('what is wrong is said, with what to send instead', () => {
    expect(reason('t_number', { number: '5' })).toBe(
      'number must be a finite JSON number, not a string: expected { "number": 42.5 } (or { "number": null } to clear)',
    );
    expect(reason('t_number', { text: 'x' })).toMatch(/^must have exactly one member "number"/);
    expect(reason('t_text', 'x')).toMatch(/^must be an object: expected/);
    expect(reason('t_text', { text: 'a\u0000b' })).toBe(
      'text contains control characters; only tab, CR and LF are allowed',
    );
    expect(reason('t_text', { text: '\ud800' })).toMatch(/lone UTF-16 surrogate/);
    expect(reason('t_text', { text: '🌞'.repeat(10_001) })).toBe(
      'text is 10001 characters; the limit is 10000',
    );
    expect(reason('t_url', { text: 'http:example.com' })).toBe('must be an absolute http:// or https:// URL');
    expect(reason('t_email', { text: 'a@b' })).toBe('must be an e-mail address like name@example.com');
    expect(reason('t_date', { date: { start: '2026-02-30' } })).toBe(
      'date.start must be a real calendar date, YYYY-MM-DD',
    );
    expect(reason('t_date', { date: { start: '2026-01-01', end: '2026-01-02' } })).toMatch(/no intervals/);
    expect(reason('t_select', { select: ['a', 'b'] })).toMatch(/exactly one option id/);
    expect(reason('t_select', { select: ['zz'] })).toBe('unknown option "zz"; options are a, b, c');
    expect(reason('t_people', { people: ['a', 'b'] })).toMatch(/exactly one user id/);
    expect(reason('t_text', { text: 'x', labels: [1] })).toMatch(
      /labels, when sent, must be an array of strings/,
    );
  });

  test('the map as a whole: unknown ids, the read-only location, required properties, size', () => {
    expect(check({ nope: { text: 'x' }, location: { location: {} } }).details).toEqual([
      { field: 'nope', reason: 'unknown property; GET /projects/v1/schema lists the property ids' },
      { field: 'location', reason: 'location is read-only: the service computes it from the linked parcels' },
    ]);
    expect(check({}, 'create').details).toEqual([
      { field: 'name', reason: 'is required on create: { "text": "…" }' },
    ]);
    expect(check({ name: { text: null } }).details).toEqual([
      { field: 'name', reason: 'is required and cannot be cleared' },
    ]);
    expect(check({ name: { text: '  ' } }).details[0].reason).toBe(
      'is required and cannot be empty or blank',
    );
    expect(check([]).details[0].field).toBe('properties');
    const many = Object.fromEntries(
      Array.from({ length: MAX_PROPERTIES_PER_WRITE + 1 }, (_, i) => [`p${i}`, {}]),
    );
    expect(check(many).details[0]).toEqual({
      field: 'properties',
      reason: 'names 201 properties; at most 200 per write',
    });
  });

  test('people values are returned for the organization to check', () => {
    expect(check({ t_people: { people: ['usr_9'] } }).changes.usersToCheck).toEqual([
      { propertyId: 't_people', uid: 'usr_9' },
    ]);
  });
});
