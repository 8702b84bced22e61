import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { RecordKind } from '../src/db/types.js';
import { createApiKey } from '../src/modules/auth/repository.js';
import { addMember, createOrg, createPortfolio, createUser } from '../src/modules/org/repository.js';
import { bulkInsertRecords } from '../src/modules/records/repository.js';
import type { StoredValue } from '../src/modules/records/types.js';
import type { NewProperty } from '../src/modules/schema/repository.js';
import { defineProperty, installDefaultProperties } from '../src/modules/schema/service.js';
import type { TestEnv } from './helpers/fixtures.js';
import { type Client, client, type Res } from './helpers/http.js';

/** Shared helpers of the records tests (test/records-*.test.ts). */

export type Scope = { orgId: string; portfolioId: string };

/** A new, empty portfolio of org A (or B), so a test can count and page without seeing other tests' rows. */
export async function freshPortfolio(env: TestEnv, org: 'A' | 'B' = 'A'): Promise<Scope> {
  const orgId = env.demo.orgs[org].id;
  const p = await createPortfolio(env.database.db, orgId, `test ${randomBytes(3).toString('hex')}`);
  return { orgId, portfolioId: p.id };
}

/** The seeded portfolio A1 of org A. */
export const a1 = (env: TestEnv): Scope => ({
  orgId: env.demo.orgs.A.id,
  portfolioId: env.demo.orgs.A.portfolios.A1,
});

/** A new organization with the default schema plus `extra` properties, and an owner with a key. */
export async function freshOrg(
  env: TestEnv,
  extra: Partial<Record<RecordKind, NewProperty[]>> = {},
  opts: { defaults?: boolean } = {},
): Promise<Scope & { owner: Client; ownerUid: string }> {
  const db = env.database.db;
  const tag = randomBytes(4).toString('hex');
  const org = await createOrg(db, `Org ${tag}`);
  if (opts.defaults !== false) await installDefaultProperties(db, org.id);
  for (const [kind, props] of Object.entries(extra) as [RecordKind, NewProperty[]][])
    for (const p of props) await defineProperty(db, org.id, kind, p);
  const pf = await createPortfolio(db, org.id, 'P');
  const user = await createUser(db, `owner-${tag}@example.test`, `Owner ${tag}`);
  await addMember(db, org.id, user.id, 'owner');
  const key = await createApiKey(db, user.id);
  return { orgId: org.id, portfolioId: pf.id, owner: client(env.app, key.apiKey), ownerUid: user.id };
}

/** Inserts records straight into the database (parcels have no create endpoint); ids in order. */
export function insertRecords(
  env: TestEnv,
  kind: RecordKind,
  scope: Scope,
  records: Record<string, StoredValue>[],
): Promise<string[]> {
  return bulkInsertRecords(
    env.database.db,
    kind,
    scope.orgId,
    scope.portfolioId,
    records.map((properties) => ({ properties })),
  );
}

export const PLURAL = { project: 'projects', parcel: 'parcels', contact: 'contacts' } as const;

/**
 * Marks the tests' own inspection queries as cross-tenant on purpose (they look records up by id
 * alone), so the tenant guard (src/db/tenant-guard.ts) lets them through.
 */
export const INSPECT = sql.raw('/* sdg:cross-tenant */');

/** A record as stored, read straight from the database (undefined when absent). */
export async function stored(env: TestEnv, kind: RecordKind, id: string) {
  const { rows } = await sql<{ properties: Record<string, unknown>; created_at: Date; updated_at: Date }>`
    ${INSPECT} select properties, created_at, updated_at from ${sql.table(PLURAL[kind])} where id = ${id}`.execute(
    env.database.db,
  );
  return rows[0];
}

const LINK_COLUMNS = {
  project_contacts: ['project_id', 'contact_id'],
  parcel_contacts: ['parcel_id', 'contact_id'],
  project_parcels: ['project_id', 'parcel_id'],
} as const;

/** The ids linked to a parent in a link table of org A (or `orgId`), sorted: what the database holds. */
export async function linkedIds(
  env: TestEnv,
  table: keyof typeof LINK_COLUMNS,
  parentId: string,
  orgId = env.demo.orgs.A.id,
): Promise<string[]> {
  const [parent, child] = LINK_COLUMNS[table];
  const { rows } = await sql<{ id: string }>`
    select ${sql.ref(child)} as id from ${sql.table(table)}
    where org_id = ${orgId} and ${sql.ref(parent)} = ${parentId} order by 1`.execute(env.database.db);
  return rows.map((r) => r.id);
}

/** How many rows a table holds in one portfolio. */
export async function countIn(env: TestEnv, table: string, portfolioId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    ${INSPECT} select count(*)::int as n from ${sql.table(table)} where portfolio_id = ${portfolioId}`.execute(
    env.database.db,
  );
  return rows[0].n;
}

/** Asserts a 400 VALIDATION_FAILED response and returns its details, sorted by field then reason. */
export function details(r: Res): { field: string; reason: string }[] {
  if (r.status !== 400 || r.body?.error?.code !== 'VALIDATION_FAILED')
    throw new Error(`expected 400 VALIDATION_FAILED, got ${r.status} ${r.raw}`);
  return [...r.body.error.details].sort(
    (a, b) => a.field.localeCompare(b.field) || a.reason.localeCompare(b.reason),
  );
}

/** The fields named in a 400's details, sorted. */
export const fields = (r: Res) => details(r).map((d) => d.field);

export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
