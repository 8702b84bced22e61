import type { RecordKind } from '../../db/types.js';

export const PROPERTY_TYPES = [
  'text',
  'url',
  'email',
  'number',
  'date',
  'select',
  'multi_select',
  'people',
] as const;
export type PropertyTypeName = (typeof PROPERTY_TYPES)[number];
export const RECORD_KINDS: readonly RecordKind[] = ['project', 'parcel', 'contact'];

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
