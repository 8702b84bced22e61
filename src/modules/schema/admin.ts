import { type Kysely, sql } from 'kysely';
import { inTransaction } from '../../db/transaction.js';
import type { DB, RecordKind } from '../../db/types.js';
import { AppError } from '../../errors.js';
import type { Actor } from '../changes/index.js';
import {
  type PropertyTypeName,
  propertyType,
  type SelectOptionModel,
  type StoredValue,
} from '../properties/index.js';
import * as repo from './repository.js';
import { DEFAULT_PROPERTIES, deleteDefinition, saveDefinition } from './service.js';
import type { PropertyDefModel } from './types.js';

/**
 * Targeted changes to one property of a schema, each in one transaction under the
 * schema's lock, logged as a `schema` entry (and, where values move, an `update` entry per record).
 * The option list is never replaced wholesale: each change names the option it touches.
 * Access is the caller's to check (org/admin.ts requireManager); these take the actor to log.
 */

/** Where a change applies: one property of one kind's schema in one organization. */
export interface PropertyRef {
  orgId: string;
  kind: RecordKind;
  propertyId: string;
}

/** Properties the REST v1 specification itself requires (project `name`, contact `first_name`). */
const SPEC_REQUIRED = (kind: RecordKind, id: string) =>
  DEFAULT_PROPERTIES[kind].some((p) => p.required && p.id === id);

const specRequired = (ref: PropertyRef, what: string) =>
  new AppError(
    'VALIDATION_FAILED',
    `${ref.propertyId} is required on ${ref.kind}s by the REST v1 specification, so it cannot be ${what}.`,
    [
      {
        field: 'propertyId',
        reason: 'add a property of your own instead; this one stays as the specification defines it',
      },
    ],
  );

async function current(tx: Kysely<DB>, ref: PropertyRef): Promise<PropertyDefModel> {
  const [schema] = await repo.schemasByKeys(tx, [{ orgId: ref.orgId, kind: ref.kind }]);
  const def = schema.byId.get(ref.propertyId);
  if (!def)
    throw new AppError(
      'NOT_FOUND',
      `No ${ref.kind} property "${ref.propertyId}" in this organization. organization { propertySchema(kind: ${ref.kind.toUpperCase()}) } lists them.`,
    );
  return def;
}

/** Reads the property under the lock, lets `change` make its next definition, saves it. */
function change(
  db: Kysely<DB>,
  actor: Actor,
  ref: PropertyRef,
  next: (def: PropertyDefModel) => PropertyDefModel,
): Promise<PropertyDefModel> {
  return inTransaction(db, async (tx) => {
    await repo.lockSchema(tx, ref.orgId, ref.kind);
    const def = await current(tx, ref);
    return saveDefinition(tx, actor, ref.orgId, ref.kind, next(def));
  });
}

function option(def: PropertyDefModel, optionId: string): SelectOptionModel {
  if (!propertyType(def.type)?.hasOptions)
    throw new AppError('VALIDATION_FAILED', `${def.id} is a ${def.type} property, which has no options.`, [
      { field: 'optionId', reason: 'options belong to select and multi_select properties' },
    ]);
  const o = def.options.find((x) => x.id === optionId);
  if (!o)
    throw new AppError(
      'NOT_FOUND',
      `${def.id} has no option "${optionId}"; its options are ${def.options.map((x) => x.id).join(', ')}.`,
    );
  return o;
}

function checkPosition(position: number, size: number, field = 'position') {
  if (!Number.isInteger(position) || position < 0 || position >= size)
    throw new AppError('VALIDATION_FAILED', `Position ${position} is outside the list.`, [
      { field, reason: `give a position from 0 to ${size - 1}` },
    ]);
}

/** Creates a property; an id already in the schema is refused (rename or retype it instead). */
export function createProperty(
  db: Kysely<DB>,
  actor: Actor,
  orgId: string,
  kind: RecordKind,
  p: repo.NewProperty,
): Promise<PropertyDefModel> {
  return inTransaction(db, async (tx) => {
    await repo.lockSchema(tx, orgId, kind);
    const [schema] = await repo.schemasByKeys(tx, [{ orgId, kind }]);
    if (schema.byId.has(p.id))
      throw new AppError('VALIDATION_FAILED', `A ${kind} property "${p.id}" exists already.`, [
        {
          field: 'id',
          reason:
            'choose another id, or change the existing property with renameProperty, changePropertyType and the option mutations',
        },
      ]);
    return saveDefinition(tx, actor, orgId, kind, p);
  });
}

export const renameProperty = (db: Kysely<DB>, actor: Actor, ref: PropertyRef, name: string) =>
  change(db, actor, ref, (def) => ({ ...def, name: name.trim() }));

export const setPropertyRequired = (db: Kysely<DB>, actor: Actor, ref: PropertyRef, required: boolean) =>
  change(db, actor, ref, (def) => {
    if (!required && SPEC_REQUIRED(ref.kind, ref.propertyId)) throw specRequired(ref, 'made optional');
    return { ...def, required };
  });

export function moveProperty(db: Kysely<DB>, actor: Actor, ref: PropertyRef, position: number) {
  return inTransaction(db, async (tx) => {
    await repo.lockSchema(tx, ref.orgId, ref.kind);
    const def = await current(tx, ref);
    const [schema] = await repo.schemasByKeys(tx, [{ orgId: ref.orgId, kind: ref.kind }]);
    checkPosition(position, schema.properties.length);
    const from = schema.properties.findIndex((p) => p.id === def.id);
    await repo.moveProperty(tx, ref.orgId, ref.kind, def.id, position);
    await saveDefinition(tx, actor, ref.orgId, ref.kind, def, { moved: { from, to: position } });
    return { ...def, position };
  });
}

export const addPropertyOption = (
  db: Kysely<DB>,
  actor: Actor,
  ref: PropertyRef,
  o: SelectOptionModel,
  position?: number | null,
) =>
  change(db, actor, ref, (def) => {
    if (!propertyType(def.type)?.hasOptions) option(def, o.id);
    if (def.options.some((x) => x.id === o.id))
      throw new AppError('VALIDATION_FAILED', `${def.id} has an option "${o.id}" already.`, [
        { field: 'option.id', reason: 'choose another id, or rename that option with renamePropertyOption' },
      ]);
    const options = [...def.options];
    if (position != null) checkPosition(position, options.length + 1);
    options.splice(position ?? options.length, 0, { id: o.id, name: o.name.trim(), color: o.color });
    return { ...def, options };
  });

const withOption = (def: PropertyDefModel, id: string, patch: Partial<SelectOptionModel>) => ({
  ...def,
  options: def.options.map((o) => (o.id === id ? { ...o, ...patch } : o)),
});

export const renamePropertyOption = (
  db: Kysely<DB>,
  actor: Actor,
  ref: PropertyRef,
  id: string,
  name: string,
) =>
  change(db, actor, ref, (def) => {
    option(def, id);
    if (!name.trim())
      throw new AppError('VALIDATION_FAILED', 'An option needs a name.', [
        { field: 'name', reason: 'must not be empty' },
      ]);
    return withOption(def, id, { name: name.trim() });
  });

export const recolorPropertyOption = (
  db: Kysely<DB>,
  actor: Actor,
  ref: PropertyRef,
  id: string,
  color: string,
) =>
  change(db, actor, ref, (def) => {
    option(def, id);
    return withOption(def, id, { color });
  });

export const movePropertyOption = (
  db: Kysely<DB>,
  actor: Actor,
  ref: PropertyRef,
  id: string,
  position: number,
) =>
  change(db, actor, ref, (def) => {
    const o = option(def, id);
    checkPosition(position, def.options.length);
    const options = def.options.filter((x) => x.id !== id);
    options.splice(position, 0, o);
    return { ...def, options };
  });

/** Removes an option no record holds; one in use is refused by saveDefinition (merge it instead). */
export const removePropertyOption = (db: Kysely<DB>, actor: Actor, ref: PropertyRef, id: string) =>
  change(db, actor, ref, (def) => {
    option(def, id);
    if (def.options.length === 1)
      throw new AppError('VALIDATION_FAILED', `${id} is the last option of ${def.id}.`, [
        {
          field: 'optionId',
          reason: 'a select property keeps at least one option: add another first, or delete the property',
        },
      ]);
    return { ...def, options: def.options.filter((o) => o.id !== id) };
  });

/**
 * Moves every value holding option `from` to option `into`, then removes `from`: one transaction,
 * each changed record logged. A multi_select value holding both keeps `into` once, where it was first.
 */
export function mergePropertyOptions(
  db: Kysely<DB>,
  actor: Actor,
  ref: PropertyRef,
  from: string,
  into: string,
): Promise<{ property: PropertyDefModel; recordsChanged: number }> {
  return inTransaction(db, async (tx) => {
    await repo.lockSchema(tx, ref.orgId, ref.kind);
    const def = await current(tx, ref);
    option(def, from);
    option(def, into);
    if (from === into)
      throw new AppError('VALIDATION_FAILED', 'An option cannot be merged into itself.', [
        { field: 'intoOptionId', reason: 'name a different option of the property' },
      ]);
    // The new values are made here, from the rows as locked, not in SQL: Citus refuses the
    // subquery over the array's elements that an UPDATE would need.
    const next: Record<string, { select: string[] }> = {};
    await repo.lockHolders(tx, ref.orgId, ref.kind, ref.propertyId);
    for (const r of await repo.lockedValues(tx, ref.orgId, ref.kind, ref.propertyId)) {
      const ids = (r.value as { select?: string[] }).select ?? [];
      if (ids.includes(from)) next[r.id] = { select: [...new Set(ids.map((x) => (x === from ? into : x)))] };
    }
    const values = JSON.stringify(next);
    const recordsChanged = Object.keys(next).length
      ? await repo.rewriteValues(
          tx,
          actor,
          ref.orgId,
          ref.kind,
          ref.propertyId,
          (r) => sql`${values}::jsonb ? ${r.id}`,
          (r) => sql`${values}::jsonb -> ${r.id}`,
        )
      : 0;
    const property = await saveDefinition(tx, actor, ref.orgId, ref.kind, {
      ...def,
      options: def.options.filter((o) => o.id !== from),
    });
    return { property, recordsChanged };
  });
}

/** A value that would not convert to the new type. */
export interface Unconvertible {
  recordId: string;
  portfolioId: string;
  value: unknown;
  reason: string;
}

export interface TypeChangeResult {
  property: PropertyDefModel;
  dryRun: boolean;
  /** Values that convert. */
  convertible: number;
  /** How many do not, and the first of them (at most MAX_LISTED). */
  unconvertibleCount: number;
  unconvertible: Unconvertible[];
  /** Records written (0 on a dry run). */
  recordsChanged: number;
}

const MAX_LISTED = 100;

/**
 * A stored value as the plain value an import would give (fromImport of the new type reads it):
 * text, number, date start, checkbox, or option ids, given by name when the new options do not
 * have the id (so a select's options can be renamed into another select's by their names).
 */
function plain(
  value: StoredValue,
  from: PropertyDefModel,
  to: { type: string; options: SelectOptionModel[] },
) {
  const v = value as Record<string, unknown>;
  if ('select' in v) {
    const ids = v.select as string[];
    const named = ids.map((id) =>
      to.options.some((o) => o.id === id) ? id : (from.options.find((o) => o.id === id)?.name ?? id),
    );
    return propertyType(to.type)?.hasOptions ? named : named.join(', ');
  }
  if ('date' in v) return (v.date as { start: string }).start;
  for (const k in v) return v[k];
  return undefined;
}

/**
 * Changes a property's type, converting each value as an import would read it and checking it as a
 * write would. A dry run only reports; a real change with values that do not convert is refused,
 * unless `clearUnconvertible` says to clear them (logged like every other value it changes).
 * people values name users, so a type change to or from people is refused.
 */
export function changePropertyType(
  db: Kysely<DB>,
  actor: Actor,
  ref: PropertyRef,
  input: {
    type: PropertyTypeName;
    options?: SelectOptionModel[] | null;
    dryRun?: boolean | null;
    clearUnconvertible?: boolean | null;
  },
): Promise<TypeChangeResult> {
  return inTransaction(db, async (tx) => {
    await repo.lockSchema(tx, ref.orgId, ref.kind);
    const def = await current(tx, ref);
    const to = propertyType(input.type);
    if (!to)
      throw new AppError('VALIDATION_FAILED', `Unknown property type ${input.type}.`, [
        { field: 'type', reason: 'use a PropertyType value' },
      ]);
    if (SPEC_REQUIRED(ref.kind, ref.propertyId)) throw specRequired(ref, 'given another type');
    if (def.type === input.type)
      throw new AppError('VALIDATION_FAILED', `${def.id} is a ${def.type} already.`, [
        { field: 'type', reason: 'name another type; options change with the option mutations' },
      ]);
    if (def.type === 'people' || input.type === 'people')
      throw new AppError(
        'VALIDATION_FAILED',
        'A people property cannot change type, nor can a property become one.',
        [
          {
            field: 'type',
            reason: 'people values name users of the organization: add a new property instead',
          },
        ],
      );
    const options = to.hasOptions ? (input.options?.length ? input.options : def.options) : [];
    const next: PropertyDefModel = { ...def, type: input.type, options };
    if (!input.dryRun) await repo.lockHolders(tx, ref.orgId, ref.kind, ref.propertyId);
    const rows = await repo.lockedValues(tx, ref.orgId, ref.kind, ref.propertyId);
    const converted = new Map<string, unknown>();
    const failed: Unconvertible[] = [];
    for (const r of rows) {
      const made = to.fromImport(plain(r.value as StoredValue, def, next), next) as Record<string, unknown>;
      const checked = to.check(made[to.shape.member], next, to.example);
      if ('value' in checked && checked.value) converted.set(r.id, checked.value);
      else
        failed.push({
          recordId: r.id,
          portfolioId: r.portfolioId,
          value: r.value,
          reason: 'reason' in checked ? checked.reason : 'it would be empty',
        });
    }
    const result = (recordsChanged: number, property: PropertyDefModel): TypeChangeResult => ({
      property,
      dryRun: !!input.dryRun,
      convertible: converted.size,
      unconvertibleCount: failed.length,
      unconvertible: failed.slice(0, MAX_LISTED),
      recordsChanged,
    });
    if (input.dryRun) return result(0, def);
    if (failed.length && !input.clearUnconvertible)
      throw new AppError(
        'VALIDATION_FAILED',
        `${failed.length} value(s) of ${def.id} would not convert to ${input.type}. List them with dryRun: true, fix them, or pass clearUnconvertible: true to clear them.`,
        failed.slice(0, 10).map((f) => ({ field: f.recordId, reason: f.reason })),
      );
    if (failed.length && def.required)
      throw new AppError(
        'VALIDATION_FAILED',
        `${def.id} is required, so its ${failed.length} unconvertible value(s) cannot be cleared.`,
        [
          {
            field: 'clearUnconvertible',
            reason: 'fix those values first, or make the property optional (setPropertyRequired) and retry',
          },
        ],
      );
    const values = JSON.stringify(Object.fromEntries(converted));
    const cleared = failed.map((f) => f.recordId);
    const id = ref.propertyId;
    let recordsChanged = 0;
    if (converted.size)
      recordsChanged += await repo.rewriteValues(
        tx,
        actor,
        ref.orgId,
        ref.kind,
        id,
        (r) => sql`${values}::jsonb ? ${r.id}`,
        (r) => sql`${values}::jsonb -> ${r.id}`,
      );
    if (cleared.length)
      recordsChanged += await repo.rewriteValues(
        tx,
        actor,
        ref.orgId,
        ref.kind,
        id,
        (r) => sql`${r.id} = any(${cleared}::text[])`,
        null,
      );
    const property = await saveDefinition(tx, actor, ref.orgId, ref.kind, next, { retype: true });
    return result(recordsChanged, property);
  });
}

/**
 * Deletes a property and every value of it (each record's removal logged). A dry run counts the
 * records holding values and changes nothing.
 */
export function deleteProperty(
  db: Kysely<DB>,
  actor: Actor,
  ref: PropertyRef,
  dryRun: boolean,
): Promise<{ propertyId: string; dryRun: boolean; recordsWithValues: number }> {
  return inTransaction(db, async (tx) => {
    await repo.lockSchema(tx, ref.orgId, ref.kind);
    const def = await current(tx, ref);
    if (SPEC_REQUIRED(ref.kind, ref.propertyId)) throw specRequired(ref, 'deleted');
    const holding = await repo.countHolding(tx, ref.orgId, ref.kind, def.id);
    if (dryRun) return { propertyId: def.id, dryRun, recordsWithValues: holding };
    const id = def.id;
    await repo.lockHolders(tx, ref.orgId, ref.kind, id);
    await repo.rewriteValues(tx, actor, ref.orgId, ref.kind, id, (r) => sql`${r.properties} ? ${id}`, null);
    await deleteDefinition(tx, actor, ref.orgId, ref.kind, def);
    return { propertyId: def.id, dryRun, recordsWithValues: holding };
  });
}
