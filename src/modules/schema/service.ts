import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.js';
import type { DB, RecordKind } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { CLI_ACTOR, writeLogged } from '../changes/index.js';
import { PROPERTY_TYPE_NAMES, PROPERTY_TYPES, propertyType } from '../properties/index.js';
import * as repo from './repository.js';
import { READ_ONLY_PROJECT_PROPERTY } from './types.js';

/**
 * Schema changes (the CLI and seeds; the API only reads schemas). A property's definition is
 * checked here, and its type can never change: stored values were validated against it.
 */

const PROPERTY_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const COLOR = /^#[0-9a-fA-F]{6}$/;
const WITH_OPTIONS = PROPERTY_TYPES.filter((t) => t.hasOptions)
  .map((t) => t.name)
  .join(' and ');

function checkNewProperty(kind: RecordKind, p: repo.NewProperty): void {
  const problems: ErrorDetail[] = [];
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
  const withOptions = !!type?.hasOptions;
  if (withOptions && !p.options?.length)
    problems.push({ field: 'options', reason: 'a select property needs at least one option' });
  if (!withOptions && p.options?.length)
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

/** Adds a property to an org's schema of one kind, or changes the one with the same id (not its type). */
export function defineProperty(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  p: repo.NewProperty,
): Promise<void> {
  checkNewProperty(kind, p);
  return inTransaction(db, async (tx) => {
    const [schema] = await repo.schemasByKeys(tx, [{ orgId, kind }]);
    const old = schema.byId.get(p.id);
    const existing = old?.type;
    if (existing && existing !== p.type) {
      throw new AppError('VALIDATION_FAILED', `Property ${p.id} is a ${existing}; its type cannot change.`, [
        {
          field: 'type',
          reason: `add a new property instead of changing ${p.id} from ${existing} to ${p.type}`,
        },
      ]);
    }
    const definition = (d: { name: string; type: string; options?: unknown; required?: boolean }) => ({
      name: d.name,
      type: d.type,
      options: d.options ?? [],
      required: d.required ?? false,
    });
    // The change is logged with the definition before (null when new) and after.
    await writeLogged(tx, {
      orgId,
      actor: CLI_ACTOR,
      entries: [
        {
          kind,
          op: 'schema',
          recordId: p.id,
          portfolioId: null,
          changes: { before: old ? definition(old) : null, after: definition(p) },
        },
      ],
    });
    await repo.upsertProperty(tx, orgId, kind, p);
  });
}

/** The spec's default properties; every new organization starts with them. */
export const DEFAULT_PROPERTIES: Record<RecordKind, repo.NewProperty[]> = {
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

export function installDefaultProperties(db: Kysely<DB>, orgId: string): Promise<void> {
  return inTransaction(db, async (tx) => {
    for (const [kind, props] of Object.entries(DEFAULT_PROPERTIES) as [RecordKind, repo.NewProperty[]][])
      for (const p of props) await defineProperty(tx, orgId, kind, p);
  });
}
