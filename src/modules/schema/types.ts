import type { RecordKind } from '../../db/types.js';
import type { PropertyTypeName } from '../properties/registry.js';

/** Projects carry a computed `location`; no schema property may take its key. */
export const READ_ONLY_PROJECT_PROPERTY = 'location';

export interface SelectOptionModel {
  id: string;
  name: string;
  color: string;
}

export interface PropertyDefModel {
  id: string;
  name: string;
  type: PropertyTypeName;
  options: SelectOptionModel[];
  required: boolean;
  position: number;
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
