import type { GraphQLLeafType } from 'graphql';
import type { UserModel } from '../../modules/org/types.js';
import type { ValueShape } from '../../modules/properties/property-type.js';
import { propertyType } from '../../modules/properties/registry.js';
import type { RecordModel } from '../../modules/records/types.js';
import type { PropertyDefModel, PropertySchemaModel } from '../../modules/schema/types.js';
import type { LeafPick, ValueField } from './plan.js';

type Out = Record<string, unknown>;
type Users = ReadonlyMap<string, UserModel> | undefined;

/** What run.ts cannot answer exactly as the executor would: the executor answers instead. */
export class NotPlanned extends Error {}

/**
 * One property's typed value as a query selects it, resolved against the property once per schema
 * version and plan: a nested page holds thousands of values, and looking up each value's type,
 * shape and field readers again for every one of them was most of what writing them cost.
 */
interface ValueWriter {
  id: string;
  /** The stored value's one member for the property's type (`text`, `select`, …): values.ts fitsType. */
  member: string;
  fields: FieldWriter[];
}

type Reader = (value: object, users: Users) => unknown;
type FieldWriter =
  | { key: string; kind: 'const'; value: unknown }
  | { key: string; kind: 'leaf'; read: Reader; type: GraphQLLeafType }
  | { key: string; kind: 'objects'; read: Reader; fields: LeafPick[] };

const WRITERS = new WeakMap<PropertySchemaModel, WeakMap<Map<string, ValueField[]>, ValueWriter[]>>();

/** The writers of a schema's properties in schema order, for one plan's `values` selection. */
export function valueWriters(schema: PropertySchemaModel, byType: Map<string, ValueField[]>): ValueWriter[] {
  let bySelection = WRITERS.get(schema);
  if (!bySelection) {
    bySelection = new WeakMap();
    WRITERS.set(schema, bySelection);
  }
  let writers = bySelection.get(byType);
  if (!writers) {
    writers = schema.properties.flatMap((def) => {
      // A property of a type this release does not know has no typed value (values.ts readableShape).
      const shape = propertyType(def.type)?.shape;
      return shape ? [writer(def, shape, byType)] : [];
    });
    bySelection.set(byType, writers);
  }
  return writers;
}

function writer(def: PropertyDefModel, shape: ValueShape, byType: Map<string, ValueField[]>): ValueWriter {
  const selected = byType.get(shape.graphqlType);
  if (!selected) throw new NotPlanned(`no selection for ${shape.graphqlType}`);
  const fields = selected.map((f): FieldWriter => {
    if (f.kind === 'typename') return { key: f.key, kind: 'const', value: f.typename };
    if (f.kind === 'propertyId') return { key: f.key, kind: 'const', value: def.id };
    const read = reader(def, shape, f.name);
    return f.kind === 'leaf'
      ? { key: f.key, kind: 'leaf', read, type: f.type }
      : { key: f.key, kind: 'objects', read, fields: f.fields };
  });
  return { id: def.id, member: shape.member, fields };
}

function reader(def: PropertyDefModel, shape: ValueShape, name: string): Reader {
  const plain = shape.graphqlFields[name];
  if (plain) return (value) => plain({ value, def });
  const withUsers = shape.graphqlUserFields?.[name];
  if (!withUsers) throw new NotPlanned(`${shape.graphqlType}.${name} has no reader`);
  return (value, users) => {
    if (!users) throw new NotPlanned('a people value without the organization’s users');
    return withUsers({ value }, users);
  };
}

/**
 * A record's typed values in schema order, with the selected fields only. A value whose property
 * changed type since it was written is left out, as the executor leaves it out.
 */
export function writeValues(r: RecordModel, writers: ValueWriter[], users: Users): Out[] {
  const out: Out[] = [];
  const stored = r.properties as Record<string, unknown>;
  for (const w of writers) {
    const value = stored[w.id];
    if (typeof value !== 'object' || value === null || !(w.member in value)) continue;
    const o: Out = {};
    for (const f of w.fields)
      o[f.key] =
        f.kind === 'const'
          ? f.value
          : f.kind === 'leaf'
            ? leaf(f.type, f.read(value, users))
            : picks(f.fields, f.read(value, users));
    out.push(o);
  }
  return out;
}

function picks(fields: LeafPick[], list: unknown): Out[] {
  if (!Array.isArray(list)) throw new NotPlanned('not a list');
  return list.map((item: Record<string, unknown>) => {
    const o: Out = {};
    for (const f of fields) o[f.key] = f.kind === 'typename' ? f.typename : leaf(f.type, item[f.name]);
    return o;
  });
}

/** A non-null leaf as the executor writes it; a missing one is the executor's to report. */
export function leaf(type: GraphQLLeafType, v: unknown): unknown {
  if (v === null || v === undefined) throw new NotPlanned('a null leaf');
  return type.serialize(v);
}
