import { describe, expect, test } from 'vitest';
import { CROSS_TENANT, tenantViolation } from '../../src/db/tenant-guard.js';

describe('the tenant guard', () => {
  test('a statement on a tenant table must filter on org_id', () => {
    expect(tenantViolation('select * from "projects" where "id" = $1')).toBe(
      'statement on projects does not filter on org_id',
    );
    expect(tenantViolation('select * from projects where org_id = $1 and id = $2')).toBeUndefined();
    expect(tenantViolation('select * from x join parcels p on p.org_id in ($1)')).toBeUndefined();
    expect(tenantViolation('update contacts set properties = $1 where id = $2')).toMatch(/contacts/);
  });

  test('inserts name org_id; DDL, users and marked statements pass', () => {
    expect(tenantViolation('insert into portfolios (id, name) values ($1, $2)')).toBe(
      'insert into portfolios without org_id',
    );
    expect(tenantViolation('insert into "portfolios" ("org_id", "id") values ($1, $2)')).toBeUndefined();
    expect(tenantViolation('create index x on projects (id)')).toBeUndefined();
    expect(tenantViolation('select * from users where id = $1')).toBeUndefined();
    expect(tenantViolation(`${CROSS_TENANT} select org_id from portfolios where id = $1`)).toBeUndefined();
  });
});
