import { AppError, type ErrorDetail } from '../../errors.js';
import { type PropertyDef, propertyType, type StoredValue, shapeOf } from '../properties/index.js';
import type { RecordModel, RecordReads } from '../records/index.js';

/**
 * A record's values as flat feature properties, the form map styles read (MapLibre expressions,
 * and MVT, which holds only strings, numbers and booleans per key):
 *
 * - a text, url, email, number, date or checkbox value: the value itself (`"apn": "0042-17"`);
 * - a select or people value: the option id or user id, and its display name under `<id>.label`
 *   (`"status": "permitting", "status.label": "Permitting"`);
 * - a multi-select value: its option ids joined by commas, and their names joined by ", " under
 *   `<id>.label`. A style tests one option with
 *   `["in", ",wetland,", ["concat", ",", ["get", "constraints"], ","]]`.
 *
 * Property ids never hold a dot or start with `_` (schema/service.ts), so `<id>.label` and the
 * record's own keys (`_id`, and `_acres` for parcels) cannot collide with a property. The shape of
 * each value comes from the property-type registry, so a new type needs nothing here unless its
 * member is neither a scalar nor a list of ids.
 */
export function flatProperties(
  r: RecordModel,
  reads: RecordReads,
  extra?: Record<string, number | null | undefined>,
  keep?: ReadonlySet<string>,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = { _id: r.id };
  if (extra) for (const k in extra) if (extra[k] != null && (!keep || keep.has(k))) out[k] = extra[k];
  const stored = r.properties;
  for (const id in stored) {
    if (!keep) flatten(out, id, stored[id], reads.schema.byId.get(id), reads.users);
    else if (keep.has(id) || keep.has(`${id}.label`)) {
      flatten(out, id, stored[id], reads.schema.byId.get(id), reads.users);
      // Of an id and its label, the one not asked for goes.
      if (!keep.has(id)) delete out[id];
      if (!keep.has(`${id}.label`)) delete out[`${id}.label`];
    }
  }
  return out;
}

function flatten(
  out: Record<string, string | number | boolean>,
  id: string,
  v: StoredValue,
  def: PropertyDef | undefined,
  users: RecordReads['users'],
): void {
  const shape = shapeOf(v);
  if (!shape) return;
  const raw = (v as unknown as Record<string, unknown>)[shape.member];
  if (Array.isArray(raw)) {
    if (!raw.length) return;
    out[id] = raw.join(',');
    const labels = shape.withLabels?.(v as never, def, users).labels;
    if (labels) out[`${id}.label`] = labels.join(', ');
  } else if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') out[id] = raw;
}

/**
 * The keys a layer's features may carry, with a description of each, for TileJSON's
 * `vector_layers[].fields`: the record's own keys, then each property of the schema (and its
 * `.label` when its values are ids).
 */
export function layerFields(
  properties: readonly { id: string; name: string; type: string }[],
  parcels: boolean,
): Record<string, string> {
  const fields: Record<string, string> = { _id: 'String: the record id' };
  if (parcels) fields._acres = 'Number: the boundary area in acres';
  for (const p of properties) {
    fields[p.id] = `${p.name} (${p.type})`;
    if (propertyType(p.type)?.shape.withLabels) fields[`${p.id}.label`] = `${p.name}: display names`;
  }
  return fields;
}

/** Most keys a tile's `fields` may name: more than any layer has, short of a bound on the input. */
export const MAX_TILE_FIELDS = 200;

/**
 * The feature properties a tile keeps (its `fields`), each a key of the layer (`known`, as
 * layerFields lists them); `_id` is always kept. A key the layer does not have is refused, named,
 * so that a typo in a style's request is not a map without colours.
 */
export function keptFields(known: Record<string, string>, fields: readonly string[]): Set<string> {
  const details: ErrorDetail[] = [];
  if (fields.length > MAX_TILE_FIELDS)
    details.push({ field: 'fields', reason: `at most ${MAX_TILE_FIELDS} fields; got ${fields.length}` });
  else
    for (const f of fields)
      if (!Object.hasOwn(known, f))
        details.push({
          field: 'fields',
          reason: `unknown feature property "${f}"; the layer's are listed in its TileJSON (vector_layers[0].fields)`,
        });
  if (details.length)
    throw new AppError(
      'VALIDATION_FAILED',
      'fields names feature properties this layer does not have; see details.',
      details,
    );
  return new Set(['_id', ...fields]);
}
