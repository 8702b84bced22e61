import { type GraphQLLeafType, isSpecifiedScalarType } from 'graphql';
import type { UserModel } from '../../modules/org/index.js';
import { propertyType, type ValueShape } from '../../modules/properties/index.js';
import type { RecordModel } from '../../modules/records/index.js';
import type { PropertyDefModel, PropertySchemaModel } from '../../modules/schema/index.js';
import { type Builder, literal, type Part } from './literal.js';
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
  /** The value's answer object, one literal (literal.ts). */
  build: Builder<[value: object, users: Users]>;
}

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
  const parts = selected.map((f): Part<[object, Users]> => {
    if (f.kind === 'typename') return { key: f.key, value: f.typename };
    if (f.kind === 'propertyId') return { key: f.key, value: def.id };
    const read = reader(def, shape, f.name);
    if (f.kind === 'leaf') {
      const serialize = leafWriter(f.type);
      return { key: f.key, compute: (value, users) => serialize(read(value, users)) };
    }
    const pick = picker(f.fields);
    return { key: f.key, compute: (value, users) => pickAll(pick, read(value, users)) };
  });
  return { id: def.id, member: shape.member, build: literal(parts, 2) };
}

type Reader = (value: object, users: Users) => unknown;

function reader(def: PropertyDefModel, shape: ValueShape, name: string): Reader {
  const plain = shape.graphqlFields[name];
  if (plain) {
    // One argument object per writer, refilled for each value: readers are synchronous and keep
    // nothing, and an object per read was one more allocation for each of thousands of values.
    const arg: { value: object; def: PropertyDefModel } = { value: NOTHING, def };
    return (value) => {
      arg.value = value;
      const out = plain(arg);
      arg.value = NOTHING;
      return out;
    };
  }
  const withUsers = shape.graphqlUserFields?.[name];
  if (!withUsers) throw new NotPlanned(`${shape.graphqlType}.${name} has no reader`);
  return (value, users) => {
    if (!users) throw new NotPlanned('a people value without the organization’s users');
    return withUsers({ value }, users);
  };
}

const NOTHING: object = Object.freeze({});

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
    out.push(w.build(value, users));
  }
  return out;
}

/** The selected leaves of an option or a user, as one literal. */
function picker(fields: LeafPick[]): Builder<[item: Record<string, unknown>]> {
  return literal(
    fields.map((f): Part<[Record<string, unknown>]> => {
      if (f.kind === 'typename') return { key: f.key, value: f.typename };
      const serialize = leafWriter(f.type);
      const name = f.name;
      return { key: f.key, compute: (item) => serialize(item[name]) };
    }),
    1,
  );
}

function pickAll(pick: Builder<[Record<string, unknown>]>, list: unknown): Out[] {
  if (!Array.isArray(list)) throw new NotPlanned('not a list');
  const out = new Array<Out>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = pick(list[i]);
  return out;
}

/** A non-null leaf as the executor writes it; a missing one is the executor's to report. */
export function leaf(type: GraphQLLeafType, v: unknown): unknown {
  if (v === null || v === undefined) throw new NotPlanned('a null leaf');
  return type.serialize(v);
}

/**
 * `leaf` for one type. For String, ID, Float and Boolean, a value that already is what serialize
 * would return (a string, a finite number, a boolean) is returned as it is, without the call.
 */
export function leafWriter(type: GraphQLLeafType): (v: unknown) => unknown {
  if (isSpecifiedScalarType(type)) {
    if (type.name === 'String' || type.name === 'ID')
      return (v) => (typeof v === 'string' ? v : leaf(type, v));
    if (type.name === 'Float')
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? v : leaf(type, v));
    if (type.name === 'Boolean') return (v) => (typeof v === 'boolean' ? v : leaf(type, v));
  }
  return (v) => leaf(type, v);
}
