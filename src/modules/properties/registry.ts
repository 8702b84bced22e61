import { checkbox } from './checkbox.js';
import { date } from './date.js';
import { number } from './number.js';
import { people } from './people.js';
import type { PropertyType, ValueShape } from './property-type.js';
import { multiSelect, select } from './select.js';
import { email, text, url } from './text.js';

/**
 * Every property type, in the order schemas, GraphQL and OpenAPI list them. Adding a type is one
 * file beside this one and one line here (plus its SDL: a PropertyType value, a value type and a
 * filter input in schema.graphql, and the database's list of allowed types in a migration).
 */
export const PROPERTY_TYPES = [
  text,
  url,
  email,
  number,
  date,
  select,
  multiSelect,
  people,
  checkbox,
] as const;

type AnyType = (typeof PROPERTY_TYPES)[number];
export type PropertyTypeName = AnyType['name'];
/** A stored property value object, without labels: `{ text }`, `{ number }`, `{ date: { start } }`, … */
export type StoredValue = AnyType extends infer T
  ? T extends PropertyType<string, infer S>
    ? S
    : never
  : never;

export const PROPERTY_TYPE_NAMES = PROPERTY_TYPES.map((t) => t.name) as PropertyTypeName[];

const BY_NAME = new Map<string, PropertyType>(PROPERTY_TYPES.map((t) => [t.name, t as PropertyType]));

/** The type of a property; undefined for a name the registry does not know (a stale row). */
export function propertyType(name: string): PropertyType | undefined {
  return BY_NAME.get(name);
}

/** The value shapes, each once, in registry order (OpenAPI and GraphQL list them). */
export const VALUE_SHAPES: ValueShape[] = [...new Set(PROPERTY_TYPES.map((t) => t.shape as ValueShape))];

const BY_MEMBER = new Map(VALUE_SHAPES.map((s) => [s.member, s]));

/** The shape of a stored value object, by its one member. */
export function shapeOf(value: object): ValueShape | undefined {
  for (const member in value) return BY_MEMBER.get(member);
  return undefined;
}

/** The filter operator groups (members of the GraphQL PropertyFilter input), each once. */
export const FILTER_GROUPS = [...new Set(PROPERTY_TYPES.map((t) => t.filter.group))];

/** Members whose values name users: reads of records holding one need the org's user list. */
const USER_MEMBERS = [...new Set(PROPERTY_TYPES.filter((t) => t.users).map((t) => t.shape.member))];

/** Whether a properties map names users anywhere (people values). */
export function namesUsers(properties: Record<string, object>): boolean {
  // A loop, not Object.values: it runs for every record of every page.
  for (const id in properties) for (const m of USER_MEMBERS) if (m in properties[id]) return true;
  return false;
}
