import type { Kysely } from 'kysely';
import type { DB, RecordKind } from '../../db/types.js';
import { AppError } from '../../errors.js';
import {
  PROPERTY_TYPE_NAMES,
  PROPERTY_TYPES,
  type PropertyTypeName,
  propertyType,
} from '../properties/registry.js';
import {
  makeSchema,
  type PropertyDefModel,
  type PropertySchemaModel,
  type SelectOptionModel,
} from './types.js';

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

/** Projects carry a computed `location`; no schema property may take its key. */
export const READ_ONLY_PROJECT_PROPERTY = 'location';

const WITH_OPTIONS = PROPERTY_TYPES.filter((t) => t.hasOptions)
  .map((t) => t.name)
  .join(' and ');
const PROPERTY_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const COLOR = /^#[0-9a-fA-F]{6}$/;

export function checkNewProperty(kind: RecordKind, p: NewProperty): void {
  const problems: { field: string; reason: string }[] = [];
  if (kind === 'project' && p.id === READ_ONLY_PROJECT_PROPERTY)
    problems.push({
      field: 'id',
      reason: '"location" is computed by the service on projects and cannot be defined',
    });
  if (!PROPERTY_ID.test(p.id))
    problems.push({
      field: 'id',
      reason: 'must start with a letter and use letters, digits, - or _ (max 64)',
    });
  if (!p.name?.trim()) problems.push({ field: 'name', reason: 'must not be empty' });
  const type = propertyType(p.type);
  if (!type) problems.push({ field: 'type', reason: `must be one of ${PROPERTY_TYPE_NAMES.join(', ')}` });
  const isSelect = !!type?.hasOptions;
  if (isSelect && !p.options?.length)
    problems.push({ field: 'options', reason: 'a select property needs at least one option' });
  if (!isSelect && p.options?.length)
    problems.push({ field: 'options', reason: `only ${WITH_OPTIONS} properties have options` });
  const seen = new Set<string>();
  for (const o of p.options ?? []) {
    if (!o.id || seen.has(o.id))
      problems.push({ field: 'options', reason: `option id "${o.id}" is empty or repeated` });
    seen.add(o.id);
    if (!COLOR.test(o.color))
      problems.push({ field: 'options', reason: `option "${o.id}" colour must look like #a1b2c3` });
  }
  if (problems.length)
    throw new AppError('VALIDATION_FAILED', 'The property definition is invalid.', problems);
}

/** Appends a property to an org's schema of one kind (or replaces the one with the same id). */
export async function upsertProperty(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  p: NewProperty,
): Promise<void> {
  checkNewProperty(kind, p);
  const existing = await db
    .selectFrom('property_defs')
    .select('property_type')
    .where('org_id', '=', orgId)
    .where('kind', '=', kind)
    .where('id', '=', p.id)
    .executeTakeFirst();
  // Stored values were validated against the old type; changing it would strand them.
  if (existing && existing.property_type !== p.type) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Property ${p.id} is a ${existing.property_type}; its type cannot change.`,
      [
        {
          field: 'type',
          reason: `add a new property instead of changing ${p.id} from ${existing.property_type} to ${p.type}`,
        },
      ],
    );
  }
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
}

/** The spec's default properties; every new organization starts with them. */
export const DEFAULT_PROPERTIES: Record<RecordKind, NewProperty[]> = {
  project: [{ id: 'name', name: 'Name', type: 'text', required: true }],
  contact: [
    { id: 'first_name', name: 'First name', type: 'text', required: true },
    { id: 'last_name', name: 'Last name', type: 'text' },
  ],
  parcel: [
    { id: 'name', name: 'Name', type: 'text' },
    {
      id: 'parcel-status',
      name: 'Parcel status',
      type: 'select',
      options: [
        { id: 'prospect', name: 'Prospect', color: '#94a3b8' },
        { id: 'negotiating', name: 'Negotiating', color: '#f59e0b' },
        { id: 'option-signed', name: 'Option signed', color: '#22c55e' },
        { id: 'declined', name: 'Declined', color: '#ef4444' },
      ],
    },
  ],
};

export async function installDefaultProperties(db: Kysely<DB>, orgId: string): Promise<void> {
  for (const [kind, props] of Object.entries(DEFAULT_PROPERTIES) as [RecordKind, NewProperty[]][]) {
    for (const p of props) await upsertProperty(db, orgId, kind, p);
  }
}
