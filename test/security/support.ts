import { type Kysely, sql } from 'kysely';
import type { DB } from '../../src/db/types.js';
import { ERROR_STATUS } from '../../src/errors.js';
import type { Res } from '../helpers/http.js';

/** Shared helpers of the security suites (test/security/*.test.ts). */

/**
 * The tests read across tenants on purpose (to prove nothing changed anywhere); this marker tells the
 * tenant guard of the test databases (src/db/tenant-guard.ts) so.
 */
export const CROSS_TENANT = sql.raw('/* sdg:cross-tenant */');

/**
 * Tenant tables whose rows are hashed per portfolio, with the columns that order them. Every column
 * of every row goes into the hash (`t::text`), so any change at all shows up.
 */
const PER_PORTFOLIO: Record<string, string> = {
  projects: 'id',
  parcels: 'id',
  contacts: 'id',
  project_contacts: 'project_id, contact_id',
  parcel_contacts: 'parcel_id, contact_id',
  project_parcels: 'project_id, parcel_id',
};
/** Tables hashed whole. api_keys is left out: `last_used_at` moves on every request, by design. */
const WHOLE: Record<string, string> = {
  organizations: 'id',
  portfolios: 'org_id, id',
  users: 'id',
  org_members: 'org_id, user_id',
  portfolio_guests: 'org_id, portfolio_id, user_id',
  property_defs: 'org_id, kind, id',
};

export type Snapshot = Map<string, string>;

/**
 * The whole database's tenant data as `table:portfolio` (or `table`) → `count:md5 of its rows`,
 * in one statement.
 */
export async function snapshot(db: Kysely<DB>): Promise<Snapshot> {
  const parts = [
    ...Object.entries(PER_PORTFOLIO).map(
      ([t, order]) =>
        sql`select ${t}::text || ':' || portfolio_id as k, count(*)::text || ':' || md5(string_agg(x::text, '|' order by ${sql.raw(order)})) as v from ${sql.table(t)} x group by portfolio_id`,
    ),
    ...Object.entries(WHOLE).map(
      ([t, order]) =>
        sql`select ${t}::text as k, count(*)::text || ':' || coalesce(md5(string_agg(x::text, '|' order by ${sql.raw(order)})), '') as v from ${sql.table(t)} x`,
    ),
  ];
  const { rows } = await sql<{
    k: string;
    v: string;
  }>`${CROSS_TENANT} ${sql.join(parts, sql` union all `)}`.execute(db);
  return new Map(rows.map((r) => [r.k, r.v]));
}

/** Tables whose every row change the audit trigger records. */
const AUDITED = [...Object.keys(PER_PORTFOLIO), ...Object.keys(WHOLE)];

/**
 * Installs a row-level trigger on every tenant table (test databases only) that records each insert,
 * update and delete with the portfolio of the row before and after. Checking "did this request write
 * anything, and where" is then one cheap read, however large the tables are.
 */
export async function installAudit(db: Kysely<DB>): Promise<void> {
  await sql`create table if not exists sec_audit (
    n bigserial primary key, tbl text not null, op text not null, old_pf text, new_pf text)`.execute(db);
  await sql`create or replace function sec_audit_row() returns trigger language plpgsql as $$
    begin
      insert into sec_audit (tbl, op, old_pf, new_pf) values (
        TG_TABLE_NAME, TG_OP,
        case when TG_OP <> 'INSERT' then to_jsonb(OLD) ->> 'portfolio_id' end,
        case when TG_OP <> 'DELETE' then to_jsonb(NEW) ->> 'portfolio_id' end);
      return null;
    end $$`.execute(db);
  for (const t of AUDITED) {
    await sql`create or replace trigger ${sql.raw(`sec_audit_${t}`)} after insert or update or delete on ${sql.table(t)}
      for each row execute function sec_audit_row()`.execute(db);
    await sql`create or replace trigger ${sql.raw(`sec_audit_trunc_${t}`)} after truncate on ${sql.table(t)}
      for each statement execute function sec_audit_row()`.execute(db);
  }
}

export interface AuditRow {
  n: number;
  tbl: string;
  op: string;
  old_pf: string | null;
  new_pf: string | null;
}

/** A cursor over the audit log: each call returns the row changes since the previous call. */
export async function auditCursor(db: Kysely<DB>): Promise<() => Promise<AuditRow[]>> {
  const last = async () =>
    Number(
      (await sql<{ n: number }>`select coalesce(max(n), 0)::int as n from sec_audit`.execute(db)).rows[0].n,
    );
  let seen = await last();
  return async () => {
    const { rows } = await sql<AuditRow>`
      select n::int as n, tbl, op, old_pf, new_pf from sec_audit where n > ${seen} order by n`.execute(db);
    if (rows.length) seen = rows.at(-1)!.n;
    return rows;
  };
}

/** Keys whose count or hash differ between two snapshots. */
export function changed(a: Snapshot, b: Snapshot): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => a.get(k) !== b.get(k)).sort();
}

/** Every service id (`prj_…`, `con_…`, …) anywhere in a JSON value, keys included. */
const ID = /\b(?:org|pf|usr|prj|par|con)_[0-9A-Za-z]{22}\b/g;
export function idsIn(value: unknown): Set<string> {
  return new Set(JSON.stringify(value ?? null).match(ID) ?? []);
}

/** What an error message must never show: stack frames, source paths, SQL, driver errors. */
export const LEAK =
  /\bat [\w.<>]+ \(|node_modules|\/src\/|\.ts:\d+|\.js:\d+|syntax error at|\brelation "|violates .*constraint|duplicate key value|invalid input syntax|unterminated|\bpglite\b|\bkysely\b|TypeError|ReferenceError|RangeError|Cannot read prop|is not a function|Unexpected token|at position \d/i;

/**
 * Problems with a REST error response: it must be a 4xx (unless `allow5xx`), carry the JSON error
 * body with a code from the closed table, and leak nothing.
 */
export function restErrorProblems(r: Res): string[] {
  const out: string[] = [];
  if (r.status < 400 || r.status > 499) out.push(`status ${r.status}, expected a 4xx`);
  const e = r.body?.error;
  if (!e || typeof e !== 'object') return [...out, `no JSON error body: ${r.raw.slice(0, 200)}`];
  if (!(e.code in ERROR_STATUS)) out.push(`code ${e.code} is not in the error table`);
  else if (ERROR_STATUS[e.code as keyof typeof ERROR_STATUS] !== r.status)
    out.push(`code ${e.code} with status ${r.status}`);
  if (typeof e.message !== 'string' || !e.message) out.push('empty message');
  if (LEAK.test(r.raw)) out.push(`leaks internals: ${r.raw.slice(0, 300)}`);
  if (!String(r.headers['content-type'] ?? '').startsWith('application/json'))
    out.push(`content-type ${r.headers['content-type']}`);
  return out;
}

/** Problems with a GraphQL error response: every error has a code from the table and leaks nothing. */
export function graphqlErrorProblems(r: Res): string[] {
  const out: string[] = [];
  if (r.status >= 500) out.push(`status ${r.status}`);
  const errors = r.body?.errors;
  if (!Array.isArray(errors) || !errors.length) return [...out, `no errors: ${r.raw.slice(0, 200)}`];
  for (const e of errors) {
    const code = e?.extensions?.code;
    if (!(code in ERROR_STATUS)) out.push(`code ${code} is not in the error table`);
    if (code === 'INTERNAL' || code === 'UNAVAILABLE' || code === 'TIMEOUT') out.push(`code ${code}`);
  }
  if (LEAK.test(r.raw)) out.push(`leaks internals: ${r.raw.slice(0, 300)}`);
  return out;
}
