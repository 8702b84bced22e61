import type { RecordKind } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { READ_ONLY_PROJECT_PROPERTY } from '../schema/repository.js';
import type { PropertyDefModel, PropertySchemaModel } from '../schema/types.js';
import type { StoredValue } from './types.js';

/** Longest text, url or email value, in characters (Unicode code points: an emoji counts as one). */
export const MAX_TEXT_LENGTH = 10_000;
/** Most options one multi_select value may hold. */
export const MAX_MULTI_SELECT = 100;
/** Most properties one write may name. */
export const MAX_PROPERTIES_PER_WRITE = 200;

export interface PropertyChanges {
  /** Values to store, keyed by property id. */
  set: Record<string, StoredValue>;
  /** Property ids to clear. */
  clear: string[];
  /** User ids named in people values; the caller checks they belong to the org. */
  peopleToCheck: { propertyId: string; uid: string }[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// C0 controls other than tab, LF and CR; jsonb cannot even store U+0000.
// biome-ignore lint/suspicious/noControlCharactersInRegex: this is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
// local@domain, the domain made of non-empty dot-separated labels (at least two).
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
// A UTF-16 surrogate that is not half of a pair: JSON can carry one (\ud800), Postgres jsonb cannot.
const LONE_SURROGATE = /\p{Surrogate}/u;
const HTTP_URL = /^https?:\/\/[^\s]+$/i;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function isRealDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1) return false;
  // setUTCFullYear, not Date.UTC: Date.UTC maps the years 0-99 to 1900-1999.
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d);
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

function isHttpUrl(s: string): boolean {
  // The scheme and // are required as written: WHATWG URL would read "http:example.com" as http://example.com/.
  if (!HTTP_URL.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

const MEMBER_FOR: Record<string, string> = {
  text: 'text',
  url: 'text',
  email: 'text',
  number: 'number',
  date: 'date',
  select: 'select',
  multi_select: 'select',
  people: 'people',
};

/**
 * Whether a stored value has the shape of its property's type. A property whose type was changed
 * after values were written keeps the old values, which reads leave out instead of failing on.
 */
export function fitsType(def: PropertyDefModel, value: StoredValue): boolean {
  const member = MEMBER_FOR[def.type];
  return member !== undefined && typeof value === 'object' && value !== null && member in value;
}

export const EXAMPLE_FOR: Record<string, string> = {
  text: '{ "text": "…" }',
  url: '{ "text": "https://…" }',
  email: '{ "text": "name@example.com" }',
  number: '{ "number": 42.5 }',
  date: '{ "date": { "start": "2026-05-01" } }',
  select: '{ "select": ["<option id>"] }',
  multi_select: '{ "select": ["<option id>", …] }',
  people: '{ "people": ["<user id>"] }',
};

/**
 * Checks one value object against its property. Returns the value to store, `null` to clear,
 * or the reason it is wrong.
 */
function checkValue(def: PropertyDefModel, raw: unknown): { value: StoredValue | null } | { reason: string } {
  const member = MEMBER_FOR[def.type];
  const shape = `expected ${EXAMPLE_FOR[def.type]} (or { "${member}": null } to clear)`;
  if (!isPlainObject(raw)) return { reason: `must be an object: ${shape}` };
  // `labels` is part of what reads return; accepting it lets a client send back a value it read.
  const keys = Object.keys(raw).filter((k) => k !== 'labels');
  if ('labels' in raw && !(Array.isArray(raw.labels) && raw.labels.every((l) => typeof l === 'string')))
    return { reason: 'labels, when sent, must be an array of strings (it is ignored)' };
  if (keys.length !== 1 || keys[0] !== member)
    return { reason: `must have exactly one member "${member}": ${shape}` };
  const v = raw[member];
  if (v === null) return { value: null };

  switch (def.type) {
    case 'text':
    case 'url':
    case 'email': {
      if (typeof v !== 'string') return { reason: `text must be a string: ${shape}` };
      // Cheap bound first (code units >= code points), then the exact count.
      const length = v.length > MAX_TEXT_LENGTH ? [...v].length : v.length;
      if (length > MAX_TEXT_LENGTH)
        return { reason: `text is ${length} characters; the limit is ${MAX_TEXT_LENGTH}` };
      if (CONTROL.test(v))
        return { reason: 'text contains control characters; only tab, CR and LF are allowed' };
      if (LONE_SURROGATE.test(v))
        return { reason: 'text is not valid Unicode: it holds a lone UTF-16 surrogate (\\ud800-\\udfff)' };
      if (def.required && v.trim() === '') return { reason: 'is required and cannot be empty or blank' };
      if (def.type === 'url' && !isHttpUrl(v))
        return { reason: 'must be an absolute http:// or https:// URL' };
      if (def.type === 'email' && (!EMAIL.test(v) || v.length > 254))
        return { reason: 'must be an e-mail address like name@example.com' };
      return { value: { text: v } };
    }
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v))
        return { reason: `number must be a finite JSON number, not a string: ${shape}` };
      return { value: { number: v } };
    case 'date': {
      if (!isPlainObject(v)) return { reason: `date must be an object: ${shape}` };
      const extra = Object.keys(v).filter((k) => k !== 'start');
      if (extra.length)
        return {
          reason: `date may only have "start"; ${extra.map((k) => `"${k}"`).join(', ')} is not supported (no intervals)`,
        };
      if (typeof v.start !== 'string' || !isRealDate(v.start))
        return { reason: 'date.start must be a real calendar date, YYYY-MM-DD' };
      return { value: { date: { start: v.start } } };
    }
    case 'select':
    case 'multi_select': {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
        return { reason: `select must be an array of option ids: ${shape}` };
      const unknown = v.filter((id) => !def.options.some((o) => o.id === id));
      if (unknown.length)
        return {
          reason: `unknown option ${unknown.map((u) => `"${u}"`).join(', ')}; options are ${def.options.map((o) => o.id).join(', ')}`,
        };
      if (def.type === 'select') {
        if (v.length !== 1)
          return { reason: 'select takes exactly one option id; use { "select": null } to clear' };
        return { value: { select: [v[0]] } };
      }
      // Duplicates collapse to one, first occurrence first: a multi_select is a set.
      const ids = [...new Set(v as string[])];
      if (ids.length > MAX_MULTI_SELECT) return { reason: `at most ${MAX_MULTI_SELECT} options` };
      return ids.length ? { value: { select: ids } } : { value: null };
    }
    case 'people': {
      if (!Array.isArray(v) || v.length !== 1 || typeof v[0] !== 'string' || !v[0])
        return { reason: 'people takes exactly one user id: { "people": ["usr_…"] }' };
      return { value: { people: [v[0]] } };
    }
  }
  return { reason: `property type ${def.type} cannot be written` };
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
): { changes: PropertyChanges; details: ErrorDetail[] } {
  const changes: PropertyChanges = { set: {}, clear: [], peopleToCheck: [] };
  if (!isPlainObject(input)) {
    return {
      changes,
      details: [{ field: 'properties', reason: 'must be an object that maps property ids to value objects' }],
    };
  }
  const details: ErrorDetail[] = [];
  const entries = Object.entries(input);
  if (entries.length > MAX_PROPERTIES_PER_WRITE) {
    details.push({
      field: 'properties',
      reason: `names ${entries.length} properties; at most ${MAX_PROPERTIES_PER_WRITE} per write`,
    });
  }
  for (const [id, raw] of entries.slice(0, MAX_PROPERTIES_PER_WRITE)) {
    if (kind === 'project' && id === READ_ONLY_PROJECT_PROPERTY) {
      details.push({
        field: id,
        reason: 'location is read-only: the service computes it from the linked parcels',
      });
      continue;
    }
    const def = schema.byId.get(id);
    if (!def) {
      details.push({ field: id, reason: `unknown property; GET /${kind}s/v1/schema lists the property ids` });
      continue;
    }
    const result = checkValue(def, raw);
    if ('reason' in result) {
      details.push({ field: id, reason: result.reason });
    } else if (result.value === null) {
      if (def.required) details.push({ field: id, reason: 'is required and cannot be cleared' });
      else changes.clear.push(id);
    } else {
      changes.set[id] = result.value;
      if ('people' in result.value)
        changes.peopleToCheck.push({ propertyId: id, uid: result.value.people[0] });
    }
  }
  if (mode === 'create') {
    for (const def of schema.properties) {
      if (def.required && !(def.id in changes.set) && !details.some((d) => d.field === def.id)) {
        details.push({ field: def.id, reason: `is required on create: ${EXAMPLE_FOR[def.type]}` });
      }
    }
  }
  return { changes, details };
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
