import type { RecordKind } from '../../db/types.js';
import type { PropertyDef, PropertyTypeName } from '../properties/index.js';

/** Projects carry a computed `location`; no schema property may take its key. */
export const READ_ONLY_PROJECT_PROPERTY = 'location';

/** A property of an organization's schema for one record kind. */
export interface PropertyDefModel extends PropertyDef {
  type: PropertyTypeName;
}

export interface PropertySchemaModel {
  orgId: string;
  kind: RecordKind;
  properties: PropertyDefModel[];
  byId: ReadonlyMap<string, PropertyDefModel>;
}

export function makeSchema(
  orgId: string,
  kind: RecordKind,
  properties: PropertyDefModel[],
): PropertySchemaModel {
  return { orgId, kind, properties, byId: new Map(properties.map((p) => [p.id, p])) };
}
