import { AppError, type ErrorDetail } from '../../errors.js';
import { propertyType } from '../properties/index.js';
import type { PropertySchemaModel } from '../schema/index.js';
import { type ProblemCode, type UserErrorCode, validationFailed } from './validate.js';

/** One refused value of a write, as GraphQL payloads report it (`UserError`). */
export interface UserErrorModel {
  code: UserErrorCode;
  message: string;
  propertyId: string | null;
  path: string[];
}

/**
 * A write refused for its values. It is still the VALIDATION_FAILED AppError it always was (same
 * message and details, so a caller that does not catch it answers as before); mutation resolvers
 * catch it and answer with `userErrors` instead.
 */
export class UserErrors extends AppError {
  constructor(
    readonly userErrors: UserErrorModel[],
    details: ErrorDetail[],
  ) {
    super('VALIDATION_FAILED', validationFailed(details).message, details);
  }
}

/** The REST v1 detail of a user error: exactly what the REST body said before userErrors existed. */
export const detailOf = (e: { propertyId?: string | null; path?: string[] | null; message: string }) => ({
  field: e.propertyId ?? e.path?.at(-1) ?? 'properties',
  reason: e.message,
});

/** A typed value entry (`PropertyValueEntry`): exactly one member is set (GraphQL's @oneOf). */
export interface ValueEntry {
  propertyId: string;
  value: {
    text?: string | null;
    number?: number | null;
    date?: { start: string } | null;
    select?: string[] | null;
    people?: string[] | null;
    checkbox?: boolean | null;
    clear?: boolean | null;
  };
}

/** Where each property of a write came from, for the `path` of its user errors. */
export interface WriteSource {
  properties: unknown;
  /** `values` index per property id when the write was typed. */
  indexOf?: Map<string, number>;
  /** Problems found while reading typed entries (a property given twice, `clear: false`). */
  problems: { code: ProblemCode; field: string; reason: string }[];
}

/**
 * The REST-shaped `properties` map of a write given as `properties` (JSON) or `values` (typed
 * entries). Typed entries become the same value objects, so one validator checks both.
 */
export function readWrite(
  input: { properties?: unknown; values?: ValueEntry[] | null },
  schema: PropertySchemaModel,
): WriteSource {
  const given = input.properties !== undefined && input.properties !== null;
  if (!input.values) return { properties: given ? input.properties : {}, problems: [] };
  const problems: WriteSource['problems'] = [];
  if (given)
    problems.push({
      code: 'INVALID_INPUT',
      field: 'values',
      reason: 'give properties or values, not both',
    });
  const properties: Record<string, unknown> = {};
  const indexOf = new Map<string, number>();
  input.values.forEach(({ propertyId, value }, i) => {
    if (indexOf.has(propertyId)) {
      problems.push({ code: 'INVALID_VALUE', field: propertyId, reason: 'is given more than once' });
      return;
    }
    indexOf.set(propertyId, i);
    const [member, v] = Object.entries(value).find(([, x]) => x !== undefined && x !== null) ?? [];
    if (member === 'clear') {
      const def = schema.byId.get(propertyId);
      if (v !== true)
        problems.push({ code: 'INVALID_VALUE', field: propertyId, reason: 'clear must be true' });
      // An unknown property is reported by the validator; its member does not matter then.
      else properties[propertyId] = { [(def && propertyType(def.type)?.shape.member) ?? 'text']: null };
    } else if (member) properties[propertyId] = { [member]: v };
  });
  return { properties, indexOf, problems };
}

/** A problem of a write as a user error, with its path in the input it came from. */
export function userErrorOf(
  source: WriteSource,
  p: { code: ProblemCode; field?: string; reason: string },
): UserErrorModel {
  const typed = source.indexOf !== undefined;
  const whole = p.code === 'INVALID_INPUT';
  const field = p.field ?? 'properties';
  const path = whole
    ? ['input', typed ? 'values' : field]
    : typed
      ? ['input', 'values', String(source.indexOf?.get(field) ?? '')].filter(Boolean)
      : ['input', 'properties', field];
  return { code: p.code, message: p.reason, propertyId: whole ? null : field, path };
}
