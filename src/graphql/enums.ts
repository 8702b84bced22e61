import type { RecordKind } from '../db/types.js';
import type { AccessRole } from '../modules/auth/index.js';
import type { ChangeOp, ChangeSourceName } from '../modules/changes/index.js';
import { PROPERTY_TYPE_NAMES, type PropertyTypeName } from '../modules/properties/index.js';

/**
 * The values behind the GraphQL enums that name domain values. Resolvers read and return the
 * domain's own spelling (`'multi_select'`, `'owner'`); graphql-js turns them into the enum's names
 * (`MULTI_SELECT`, `OWNER`) on the way out and back on the way in. codegen.ts gives the generated
 * types the same domain types. REST v1 reads GraphQL results, so it maps names back with `fromEnum`.
 */
export const ENUM_VALUES = {
  RecordKind: { PROJECT: 'project', PARCEL: 'parcel', CONTACT: 'contact' } satisfies Record<
    string,
    RecordKind
  >,
  Role: {
    OWNER: 'owner',
    ADMIN: 'admin',
    MEMBER: 'member',
    VIEWER: 'viewer',
    GUEST: 'guest',
  } satisfies Record<string, AccessRole>,
  ChangeOperation: {
    CREATE: 'create',
    UPDATE: 'update',
    DELETE: 'delete',
    LINK: 'link',
    UNLINK: 'unlink',
    SCHEMA: 'schema',
  } satisfies Record<string, ChangeOp>,
  ChangeSource: { API: 'api', CLI: 'cli' } satisfies Record<string, ChangeSourceName>,
  PropertyType: Object.fromEntries(PROPERTY_TYPE_NAMES.map((n) => [n.toUpperCase(), n])) as Record<
    string,
    PropertyTypeName
  >,
};

type EnumName = keyof typeof ENUM_VALUES;

const NAMES = Object.fromEntries(
  Object.entries(ENUM_VALUES).map(([e, values]) => [
    e,
    new Map(Object.entries(values).map(([n, v]) => [v, n])),
  ]),
) as Record<EnumName, Map<string, string>>;

/** The domain value of an enum name a GraphQL result carries (`MULTI_SELECT` → `multi_select`). */
export function fromEnum<E extends EnumName>(
  e: E,
  name: string,
): (typeof ENUM_VALUES)[E][keyof (typeof ENUM_VALUES)[E]] {
  const v = (ENUM_VALUES[e] as Record<string, unknown>)[name];
  if (v === undefined) throw new Error(`${name} is not a value of the GraphQL enum ${e}`);
  return v as never;
}

/** The enum name of a domain value, for GraphQL documents (`project` → `PROJECT`). */
export function toEnum(e: EnumName, value: string): string {
  const n = NAMES[e].get(value);
  if (n === undefined) throw new Error(`${value} has no name in the GraphQL enum ${e}`);
  return n;
}
