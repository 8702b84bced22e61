import { sql } from 'kysely';
import type { TestEnv } from './helpers/fixtures.js';
import { square } from './helpers/geo.js';
import type { Client } from './helpers/http.js';
import { INSPECT, type Scope } from './records-helpers.js';

/** Shared helpers of the sync tests (test/sync-*.test.ts). */

export const RESULT = `results { index externalId id outcome userErrors { code message propertyId path } }
  created updated unchanged failed replayed`;

export const UPSERT = {
  project: `mutation ($input: UpsertRecordsInput!) { upsertProjects(input: $input) { ${RESULT} } }`,
  contact: `mutation ($input: UpsertRecordsInput!) { upsertContacts(input: $input) { ${RESULT} } }`,
  parcel: `mutation ($input: UpsertRecordsInput!) { upsertParcels(input: $input) { ${RESULT} } }`,
} as const;
const FIELD = { project: 'upsertProjects', contact: 'upsertContacts', parcel: 'upsertParcels' } as const;

export const REGISTER = `mutation ($input: RegisterExternalSourceInput!) {
  registerExternalSource(input: $input) { sources } }`;

/** Declares a source in the scope's organization, as its owner. */
export async function declare(c: Client, scope: Scope, name: string): Promise<void> {
  const r = await c.gql(REGISTER, { input: { orgId: scope.orgId, name } });
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors));
}

/** One bulk upsert; returns the whole response and its payload (undefined on a request error). */
export async function upsert(
  c: Client,
  kind: keyof typeof UPSERT,
  scope: Scope,
  items: unknown[],
  extra: Record<string, unknown> = {},
) {
  const { orgId, portfolioId } = scope;
  const r = await c.gql(UPSERT[kind], { input: { orgId, portfolioId, source: 'crm', items, ...extra } });
  return { r, p: r.body.data?.[FIELD[kind]] };
}

/** A record's stored row, with the columns a write can touch. */
export async function row(env: TestEnv, table: string, id: string) {
  const { rows } = await sql<{ properties: any; updated_at: Date; geometry?: unknown; acres?: number }>`
    ${INSPECT} select * from ${sql.table(table)} where id = ${id}`.execute(env.database.db);
  return rows[0];
}

/** Change-log entries of an organization, oldest first. */
export async function logOf(env: TestEnv, orgId: string) {
  const { rows } = await sql<{ record_id: string; op: string; related_id: string | null; changes: any }>`
    select record_id, op, related_id, changes from change_log where org_id = ${orgId} order by seq`.execute(
    env.database.db,
  );
  return rows;
}

/** A small square parcel boundary near (x, y) degrees. */
export const box = (x: number, y: number, d = 0.001) => square(x, y, d);
