import { type Kysely, type RawBuilder, sql } from 'kysely';
import { bumpOrgVersion } from '../../db/org-cache.js';
import type { DB, RecordKind } from '../../db/types.js';
import { type Actor, lockRecords, writeLogged } from '../changes/index.js';
import type { PropertyTypeName, SelectOptionModel } from '../properties/index.js';
import { makeSchema, type PropertyDefModel, type PropertySchemaModel } from './types.js';

/** Schemas for many (org, kind) pairs in one statement, for DataLoader. */
export async function schemasByKeys(
  db: Kysely<DB>,
  keys: readonly { orgId: string; kind: RecordKind }[],
): Promise<PropertySchemaModel[]> {
  const orgIds = [...new Set(keys.map((k) => k.orgId))];
  const rows = orgIds.length
    ? await db
        .selectFrom('property_defs')
        .selectAll()
        .where('org_id', 'in', orgIds)
        .where('kind', 'in', [...new Set(keys.map((k) => k.kind))])
        .orderBy('position')
        .orderBy('id')
        .execute()
    : [];
  return keys.map(({ orgId, kind }) =>
    makeSchema(
      orgId,
      kind,
      rows
        .filter((r) => r.org_id === orgId && r.kind === kind)
        .map(
          (r): PropertyDefModel => ({
            id: r.id,
            name: r.name,
            type: r.property_type as PropertyTypeName,
            options: r.options,
            required: r.required,
            position: r.position,
          }),
        ),
    ),
  );
}

export interface NewProperty {
  id: string;
  name: string;
  type: PropertyTypeName;
  options?: SelectOptionModel[];
  required?: boolean;
}

/** Appends a property to an org's schema of one kind, or replaces the one with the same id in place. */
export async function upsertProperty(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  p: NewProperty,
): Promise<void> {
  const last = await db
    .selectFrom('property_defs')
    .select((eb) => eb.fn.max('position').as('max'))
    .where('org_id', '=', orgId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  const values = {
    name: p.name,
    property_type: p.type,
    options: JSON.stringify(p.options ?? []),
    required: p.required ?? false,
  };
  await db
    .insertInto('property_defs')
    .values({ org_id: orgId, kind, id: p.id, position: (last?.max ?? -1) + 1, ...values })
    .onConflict((oc) => oc.columns(['org_id', 'kind', 'id']).doUpdateSet(values))
    .execute();
  await bumpOrgVersion(db, orgId);
}

// ---- Administration of a schema (admin.ts): the definitions, and the values they govern ----

const TABLE: Record<RecordKind, string> = { project: 'projects', parcel: 'parcels', contact: 'contacts' };

/**
 * Serializes the schema changes of one (org, kind): each reads the definition, changes it and
 * writes it back, so two at once (two options added) would otherwise lose one.
 */
export async function lockSchema(db: Kysely<DB>, orgId: string, kind: RecordKind): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`schema:${orgId}:${kind}`}::text, 0))`.execute(
    db,
  );
}

/** Records of a kind in an org whose properties satisfy `where` (over `properties`, jsonb). */
async function countWhere(db: Kysely<DB>, orgId: string, kind: RecordKind, where: RawBuilder<unknown>) {
  const { rows } = await sql<{ n: string }>`
    select count(*)::text as n from ${sql.table(TABLE[kind])} r where r.org_id = ${orgId} and ${where}`.execute(
    db,
  );
  return Number(rows[0].n);
}

/** Records holding a value of the property. */
export const countHolding = (db: Kysely<DB>, orgId: string, kind: RecordKind, id: string) =>
  countWhere(db, orgId, kind, sql`r.properties ? ${id}`);

/** Records without a value of the property. */
export const countLacking = (db: Kysely<DB>, orgId: string, kind: RecordKind, id: string) =>
  countWhere(db, orgId, kind, sql`not (r.properties ? ${id})`);

/** Records whose value of a select property holds the option (the GIN index serves the containment). */
export const countWithOption = (
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  id: string,
  option: string,
) =>
  countWhere(db, orgId, kind, sql`r.properties @> ${JSON.stringify({ [id]: { select: [option] } })}::jsonb`);

/**
 * The records holding a value of a property, each under its change-log lock (changes' lockRecords)
 * before this transaction writes anything: so of a record write and this rewrite of the same record,
 * the later one gets its transaction id later, and the record's history keeps commit order.
 */
export async function lockHolders(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  id: string,
): Promise<void> {
  const { rows } = await sql<{ id: string }>`
    select r.id from ${sql.table(TABLE[kind])} r where r.org_id = ${orgId} and r.properties ? ${id}`.execute(
    db,
  );
  if (rows.length)
    await lockRecords(
      db,
      orgId,
      rows.map((r) => r.id),
    );
}

/** Every value of a property, locked until the transaction ends (a type change rewrites them). */
export async function lockedValues(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  id: string,
): Promise<{ id: string; portfolioId: string; value: Record<string, unknown> }[]> {
  const { rows } = await sql<{ id: string; portfolio_id: string; value: Record<string, unknown> }>`
    select r.id, r.portfolio_id, r.properties -> ${id} as value from ${sql.table(TABLE[kind])} r
    where r.org_id = ${orgId} and r.properties ? ${id} order by r.id for update`.execute(db);
  return rows.map((r) => ({ id: r.id, portfolioId: r.portfolio_id, value: r.value }));
}

/** The portfolios of an org that hold records of a kind with a value of the property. */
async function portfoliosHolding(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  where: RawBuilder<unknown>,
) {
  const { rows } = await sql<{ portfolio_id: string }>`
    select distinct r.portfolio_id from ${sql.table(TABLE[kind])} r
    where r.org_id = ${orgId} and ${where} order by 1`.execute(db);
  return rows.map((r) => r.portfolio_id);
}

/** A record row in SQL: its `properties` (jsonb) and `id`. */
export interface RecordRef {
  properties: RawBuilder<unknown>;
  id: RawBuilder<unknown>;
}

/**
 * Rewrites one property of the records of a kind that match `where`: `value` is the new value
 * object, or null to remove it. One logged
 * UPDATE per portfolio (a log entry names its portfolio), each record's entry with the value before
 * and after, and `updated_at` moved on as a record write moves it (records/repository.ts).
 * Returns how many records changed.
 */
export async function rewriteValues(
  db: Kysely<DB>,
  actor: Actor,
  orgId: string,
  kind: RecordKind,
  id: string,
  where: (row: RecordRef) => RawBuilder<unknown>,
  value: ((row: RecordRef) => RawBuilder<unknown>) | null,
): Promise<number> {
  const t = sql.table(TABLE[kind]);
  const ref = (a: string): RecordRef => ({ properties: sql.ref(`${a}.properties`), id: sql.ref(`${a}.id`) });
  let n = 0;
  for (const pf of await portfoliosHolding(db, orgId, kind, where(ref('r')))) {
    const next = value
      ? sql`jsonb_set(r.properties, ${[id]}::text[], ${value(ref('r'))})`
      : sql`r.properties - ${id}::text`;
    const rows = await writeLogged(db, {
      orgId,
      actor,
      write: () => sql<{ org_id: string; id: string }>`
        update ${t} r set properties = ${next},
          updated_at = greatest(${new Date().toISOString()}::timestamptz,
            ((r.updated_at at time zone 'UTC') + interval '1 millisecond') at time zone 'UTC')
        from (select o.id, o.properties from ${t} o
          where o.org_id = ${orgId} and o.portfolio_id = ${pf} and ${where(ref('o'))}
          for update) old
        where r.org_id = ${orgId} and r.id = old.id
        returning r.org_id, r.id, r.properties, old.properties as before`,
      entries: [
        {
          kind,
          op: 'update',
          portfolioId: pf,
          properties: { before: 'before', after: 'properties', keys: [id] },
        },
      ],
    });
    n += rows.length;
  }
  return n;
}

/** Puts a property at `position` (from 0) in its schema's order, the others keeping theirs. */
export async function moveProperty(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  id: string,
  position: number,
): Promise<void> {
  const [schema] = await schemasByKeys(db, [{ orgId, kind }]);
  const ids = schema.properties.map((p) => p.id).filter((p) => p !== id);
  ids.splice(position, 0, id);
  await sql`update property_defs p set position = x.ord - 1
    from unnest(${ids}::text[]) with ordinality x(id, ord)
    where p.org_id = ${orgId} and p.kind = ${kind} and p.id = x.id`.execute(db);
  await bumpOrgVersion(db, orgId);
}

export async function deleteProperty(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  id: string,
): Promise<void> {
  await db
    .deleteFrom('property_defs')
    .where('org_id', '=', orgId)
    .where('kind', '=', kind)
    .where('id', '=', id)
    .execute();
  await bumpOrgVersion(db, orgId);
}
