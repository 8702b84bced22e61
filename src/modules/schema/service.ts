import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.js';
import type { DB, RecordKind } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { type Actor, CLI_ACTOR, writeLogged } from '../changes/index.js';
import { PROPERTY_TYPE_NAMES, PROPERTY_TYPES, propertyType } from '../properties/index.js';
import * as repo from './repository.js';
import { type PropertyDefModel, READ_ONLY_PROJECT_PROPERTY } from './types.js';

/**
 * Schema changes, from the CLI, the seeds and the API (admin.ts). A property's definition is
 * checked here; its type changes only with its values converted (admin.ts changePropertyType).
 */

const PROPERTY_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const COLOR = /^#[0-9a-fA-F]{6}$/;
const WITH_OPTIONS = PROPERTY_TYPES.filter((t) => t.hasOptions)
  .map((t) => t.name)
  .join(' and ');

export function checkNewProperty(kind: RecordKind, p: repo.NewProperty): void {
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

/** A definition as the change log keeps it. */
const definition = (d: { name: string; type: string; options?: unknown; required?: boolean }) => ({
  name: d.name,
  type: d.type,
  options: d.options ?? [],
  required: d.required ?? false,
});

/**
 * Writes a property's new definition, logged with the one before (null when new): the one way a
 * definition changes, from the CLI and the API alike. It refuses what would leave stored values
 * invalid: a property made required while records lack it, an option removed while records hold it.
 * A type change must come through changePropertyType (admin.ts), which converts the values first
 * (`retype`). Called inside the caller's transaction, under lockSchema.
 */
export async function saveDefinition(
  tx: Kysely<DB>,
  actor: Actor,
  orgId: string,
  kind: RecordKind,
  p: repo.NewProperty,
  opts: { retype?: boolean; moved?: { from: number; to: number } } = {},
): Promise<PropertyDefModel> {
  checkNewProperty(kind, p);
  const [schema] = await repo.schemasByKeys(tx, [{ orgId, kind }]);
  const old = schema.byId.get(p.id);
  if (old && old.type !== p.type && !opts.retype) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Property ${p.id} is a ${old.type}; its type cannot change here.`,
      [
        {
          field: 'type',
          reason: `convert its values with changePropertyType (try dryRun: true first), or add a new property instead of changing ${p.id} from ${old.type} to ${p.type}`,
        },
      ],
    );
  }
  if (p.required && !old?.required) {
    const lacking = await repo.countLacking(tx, orgId, kind, p.id);
    if (lacking)
      throw new AppError(
        'VALIDATION_FAILED',
        `${lacking} ${kind} record(s) have no value for ${p.id}, so it cannot be required yet.`,
        [
          {
            field: 'required',
            reason: `set a value on those records first (filter them with isEmpty: true), then make it required; or keep it optional`,
            records: lacking,
          },
        ],
      );
  }
  if (old && old.type === p.type) {
    const kept = new Set((p.options ?? []).map((o) => o.id));
    for (const o of old.options.filter((o) => !kept.has(o.id))) {
      const holding = await repo.countWithOption(tx, orgId, kind, p.id, o.id);
      if (holding)
        throw new AppError(
          'VALIDATION_FAILED',
          `Option ${o.id} of ${p.id} is in use on ${holding} ${kind} record(s), so it cannot be removed.`,
          [
            {
              field: 'options',
              reason: `merge it into another option with mergePropertyOptions, which moves every value, then it is gone`,
              option: o.id,
              records: holding,
            },
          ],
        );
    }
  }
  await writeLogged(tx, {
    orgId,
    actor,
    entries: [
      {
        kind,
        op: 'schema',
        recordId: p.id,
        portfolioId: null,
        // A move logs the positions too: nothing else of the definition changed.
        changes: opts.moved
          ? {
              before: old && { ...definition(old), position: opts.moved.from },
              after: { ...definition(p), position: opts.moved.to },
            }
          : { before: old ? definition(old) : null, after: definition(p) },
      },
    ],
  });
  await repo.upsertProperty(tx, orgId, kind, p);
  return {
    id: p.id,
    name: p.name,
    type: p.type,
    options: p.options ?? [],
    required: p.required ?? false,
    position: old?.position ?? schema.properties.reduce((m, d) => Math.max(m, d.position + 1), 0),
  };
}

/** Removes a property's definition, logged with the definition it had (its values are the caller's). */
export async function deleteDefinition(
  tx: Kysely<DB>,
  actor: Actor,
  orgId: string,
  kind: RecordKind,
  def: PropertyDefModel,
): Promise<void> {
  await writeLogged(tx, {
    orgId,
    actor,
    entries: [
      {
        kind,
        op: 'schema',
        recordId: def.id,
        portfolioId: null,
        changes: { before: definition(def), after: null },
      },
    ],
  });
  await repo.deleteProperty(tx, orgId, kind, def.id);
}

/**
 * Adds a property to an org's schema of one kind, or changes the one with the same id (not its
 * type): the CLI's `schema property add` and the seeds; createProperty over the API refuses an id
 * that exists and then comes here too.
 */
export function defineProperty(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  p: repo.NewProperty,
  actor: Actor = CLI_ACTOR,
): Promise<PropertyDefModel> {
  checkNewProperty(kind, p);
  return inTransaction(db, async (tx) => {
    await repo.lockSchema(tx, orgId, kind);
    return saveDefinition(tx, actor, orgId, kind, p);
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
