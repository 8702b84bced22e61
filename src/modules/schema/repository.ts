import type { Kysely } from 'kysely';
import { bumpOrgVersion } from '../../db/org-cache.js';
import type { DB, RecordKind } from '../../db/types.js';
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

/** The type of one property, if it exists. */
export async function propertyTypeOf(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('property_defs')
    .select('property_type')
    .where('org_id', '=', orgId)
    .where('kind', '=', kind)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.property_type;
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
