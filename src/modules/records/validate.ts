import type { RecordKind } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { isPlainObject, propertyType, type StoredValue } from '../properties/index.js';
import {
  type PropertyDefModel,
  type PropertySchemaModel,
  READ_ONLY_PROJECT_PROPERTY,
} from '../schema/index.js';

/** The kind of each problem a write's values can have (GraphQL `UserErrorCode`). */
export type ProblemCode = 'INVALID_VALUE' | 'UNKNOWN_PROPERTY' | 'REQUIRED' | 'READ_ONLY' | 'INVALID_INPUT';

/** What a write's payload may report in `userErrors`: a problem with its values, or a conflict. */
export type UserErrorCode = ProblemCode | 'CONFLICT';

/** Most properties one write may name. */
export const MAX_PROPERTIES_PER_WRITE = 200;

export interface PropertyChanges {
  /** Values to store, keyed by property id. */
  set: Record<string, StoredValue>;
  /** Property ids to clear. */
  clear: string[];
  /** User ids named in values (people); the caller checks they belong to the org. */
  usersToCheck: { propertyId: string; uid: string }[];
}

/**
 * Whether a stored value has the shape of its property's type. A property whose type was changed
 * after values were written keeps the old values, which reads leave out instead of failing on.
 */
export function fitsType(def: PropertyDefModel, value: StoredValue): boolean {
  const member = propertyType(def.type)?.shape.member;
  return member !== undefined && typeof value === 'object' && value !== null && member in value;
}

/** A valid value object of the property's type, for messages. */
const exampleFor = (def: PropertyDefModel) => propertyType(def.type)?.example ?? '{ … }';

/**
 * Checks one value object against its property. Returns the value to store, `null` to clear,
 * or the reason it is wrong.
 */
function checkValue(def: PropertyDefModel, raw: unknown): { value: StoredValue | null } | { reason: string } {
  const type = propertyType(def.type);
  if (!type) return { reason: `property type ${def.type} cannot be written` };
  const { member } = type.shape;
  const hint = `expected ${type.example} (or { "${member}": null } to clear)`;
  if (!isPlainObject(raw)) return { reason: `must be an object: ${hint}` };
  // `labels` is part of what reads return; accepting it lets a client send back a value it read.
  const keys = Object.keys(raw).filter((k) => k !== 'labels');
  if ('labels' in raw && !(Array.isArray(raw.labels) && raw.labels.every((l) => typeof l === 'string')))
    return { reason: 'labels, when sent, must be an array of strings (it is ignored)' };
  if (keys.length !== 1 || keys[0] !== member)
    return { reason: `must have exactly one member "${member}": ${hint}` };
  const v = raw[member];
  if (v === null) return { value: null };
  return type.check(v, def, hint) as { value: StoredValue | null } | { reason: string };
}

/** The one VALIDATION_FAILED error of a write: every problem in `details`. */
export function validationFailed(details: ErrorDetail[]): AppError {
  return new AppError(
    'VALIDATION_FAILED',
    `${details.length} propert${details.length === 1 ? 'y is' : 'ies are'} invalid; see details.`,
    details,
  );
}

/**
 * Checks a `properties` map against the org's schema of that kind and collects every problem,
 * without throwing: the caller adds the problems only the database can find (people outside the org)
 * and reports them all together.
 */
export function checkProperties(
  kind: RecordKind,
  schema: PropertySchemaModel,
  input: unknown,
  mode: 'create' | 'update',
): { changes: PropertyChanges; details: ErrorDetail[]; codes: ProblemCode[] } {
  const changes: PropertyChanges = { set: {}, clear: [], usersToCheck: [] };
  const details: ErrorDetail[] = [];
  // Parallel to details (whose JSON is REST's error body and stays as it was).
  const codes: ProblemCode[] = [];
  const problem = (code: ProblemCode, field: string, reason: string) => {
    details.push({ field, reason });
    codes.push(code);
  };
  if (!isPlainObject(input)) {
    problem('INVALID_INPUT', 'properties', 'must be an object that maps property ids to value objects');
    return { changes, details, codes };
  }
  const entries = Object.entries(input);
  if (entries.length > MAX_PROPERTIES_PER_WRITE) {
    problem(
      'INVALID_INPUT',
      'properties',
      `names ${entries.length} properties; at most ${MAX_PROPERTIES_PER_WRITE} per write`,
    );
  }
  for (const [id, raw] of entries.slice(0, MAX_PROPERTIES_PER_WRITE)) {
    if (kind === 'project' && id === READ_ONLY_PROJECT_PROPERTY) {
      problem('READ_ONLY', id, 'location is read-only: the service computes it from the linked parcels');
      continue;
    }
    const def = schema.byId.get(id);
    if (!def) {
      problem('UNKNOWN_PROPERTY', id, `unknown property; GET /${kind}s/v1/schema lists the property ids`);
      continue;
    }
    const result = checkValue(def, raw);
    if ('reason' in result) {
      problem('INVALID_VALUE', id, result.reason);
    } else if (result.value === null) {
      if (def.required) problem('REQUIRED', id, 'is required and cannot be cleared');
      else changes.clear.push(id);
    } else {
      changes.set[id] = result.value;
      for (const uid of propertyType(def.type)?.users?.(result.value) ?? [])
        changes.usersToCheck.push({ propertyId: id, uid });
    }
  }
  if (mode === 'create') {
    for (const def of schema.properties) {
      if (def.required && !(def.id in changes.set) && !details.some((d) => d.field === def.id)) {
        problem('REQUIRED', def.id, `is required on create: ${exampleFor(def)}`);
      }
    }
  }
  return { changes, details, codes };
}

/**
 * Validates a `properties` map against the org's schema of that kind. Collects every problem and
 * throws one VALIDATION_FAILED that lists them all in `details`. People values are not checked
 * against the org here (see checkProperties).
 */
export function validateProperties(
  kind: RecordKind,
  schema: PropertySchemaModel,
  input: unknown,
  mode: 'create' | 'update',
): PropertyChanges {
  const { changes, details } = checkProperties(kind, schema, input, mode);
  if (details.length) throw validationFailed(details);
  return changes;
}
