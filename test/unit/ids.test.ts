import { describe, expect, test } from 'vitest';
import { newId, typeOfId } from '../../src/ids.js';
import { operationId } from '../../src/rest/names.js';
import { REST_ROUTES } from '../../src/rest/routes.js';

describe('ids and names', () => {
  test('ids carry their type and 22 base62 characters', () => {
    const ids = Array.from({ length: 200 }, () => newId('Project'));
    for (const id of ids) expect(id).toMatch(/^prj_[0-9A-Za-z]{22}$/);
    expect(new Set(ids).size).toBe(200);
    expect(typeOfId(newId('Contact'))).toBe('Contact');
    expect(typeOfId('nope_1')).toBeUndefined();
    expect(typeOfId('prj')).toBeUndefined();
  });

  test('every REST route has its own operation id (OpenAPI and codegen names)', () => {
    const names = REST_ROUTES.map(operationId);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('listProjectContacts');
    expect(names).toContain('unlinkParcelContact');
  });
});
