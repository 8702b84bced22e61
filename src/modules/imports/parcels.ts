import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.js';
import type { DB } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { CLI_ACTOR, lockRecords, ringChanges } from '../changes/index.js';
import { linkParcelsToProject } from '../links/index.js';
import { orgUsersByIds } from '../org/index.js';
import { propertyType } from '../properties/index.js';
import {
  type BulkRecord,
  bulkInsertRecords,
  checkProperties,
  geometryProblem,
  recordInPortfolio,
} from '../records/index.js';
import { type PropertyDefModel, type PropertySchemaModel, schemasByKeys } from '../schema/index.js';

export interface ImportOptions {
  orgId: string;
  portfolioId: string;
  projectId?: string;
  /** featureKey → property id, for keys that match no property id or name. */
  map?: Record<string, string>;
  onProgress?: (done: number, total: number) => void;
}

export interface ImportResult {
  created: string[];
  skippedKeys: string[];
  linkedTo?: string;
}

interface Feature {
  type?: string;
  geometry?: { type?: string };
  properties?: Record<string, unknown>;
}

/** What reading the features found: problems (field paths into the file), and people to check. */
interface Findings {
  problems: ErrorDetail[];
  skipped: Set<string>;
  people: { feature: number; propertyId: string; uid: string }[];
}

/**
 * Creates parcels from a GeoJSON FeatureCollection, all or nothing. Feature properties map to schema
 * properties by id, then by name (case-insensitive), then by `map`; every value goes through the same
 * validator as API writes. With `projectId`, links the parcels and recomputes the project's location.
 */
export async function importParcels(
  db: Kysely<DB>,
  geojson: unknown,
  opts: ImportOptions,
): Promise<ImportResult> {
  const features = featuresOf(geojson);
  const [schema] = await schemasByKeys(db, [{ orgId: opts.orgId, kind: 'parcel' }]);
  const match = propertyMatcher(schema, opts.map ?? {});
  const found: Findings = { problems: [], skipped: new Set(), people: [] };
  const records = features.map((f, i) => parcelOf(f, i, schema, match, found));
  await checkPeople(db, opts.orgId, found);
  if (found.problems.length)
    throw new AppError(
      'VALIDATION_FAILED',
      `${found.problems.length} problem(s) in the file; nothing was imported.`,
      found.problems,
    );
  const created = await inTransaction(db, (tx) => insertParcels(tx, opts, records));
  ringChanges(db, opts.orgId);
  return {
    created,
    skippedKeys: [...found.skipped],
    ...(opts.projectId ? { linkedTo: opts.projectId } : {}),
  };
}

function featuresOf(geojson: unknown): Feature[] {
  const fc = geojson as { type?: string; features?: Feature[] };
  if (fc?.type !== 'FeatureCollection' || !Array.isArray(fc.features))
    throw new AppError('VALIDATION_FAILED', 'The file must be a GeoJSON FeatureCollection.');
  return fc.features;
}

/** Feature property key → the parcel property it fills: by id, by name (any case), then by `map`. */
function propertyMatcher(schema: PropertySchemaModel, map: Record<string, string>) {
  const byKey = new Map<string, PropertyDefModel>();
  for (const d of schema.properties) {
    byKey.set(d.id, d);
    byKey.set(d.name.toLowerCase(), d);
  }
  for (const [k, id] of Object.entries(map)) {
    const d = schema.byId.get(id);
    if (!d) throw new AppError('VALIDATION_FAILED', `--map ${k}=${id}: "${id}" is not a parcel property id.`);
    byKey.set(k, d);
  }
  return (key: string) => byKey.get(key) ?? byKey.get(key.toLowerCase());
}

/** One feature as a parcel to insert; what is wrong with it goes to `found`. */
function parcelOf(
  f: Feature,
  i: number,
  schema: PropertySchemaModel,
  match: (key: string) => PropertyDefModel | undefined,
  found: Findings,
): BulkRecord {
  const g = f?.geometry?.type;
  if (f?.type !== 'Feature' || (g !== 'Polygon' && g !== 'MultiPolygon')) {
    found.problems.push({
      field: `features[${i}]`,
      reason: 'must be a Feature with a Polygon or MultiPolygon geometry',
    });
    return { properties: {} };
  }
  const bad = geometryProblem(f.geometry);
  if (bad) {
    found.problems.push({ field: `features[${i}].geometry`, reason: bad });
    return { properties: {} };
  }
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f.properties ?? {})) {
    const def = match(k);
    // Empty cells leave the property unset.
    const value =
      def && v !== null && v !== undefined && v !== ''
        ? propertyType(def.type)?.fromImport(v, def)
        : undefined;
    if (!def) found.skipped.add(k);
    else if (value !== undefined) input[def.id] = value;
  }
  const { changes, details } = checkProperties('parcel', schema, input, 'create');
  for (const d of details) found.problems.push({ ...d, field: `features[${i}].${d.field}` });
  if (details.length) return { properties: {} };
  for (const p of changes.usersToCheck) found.people.push({ ...p, feature: i });
  return { properties: changes.set, geometry: f.geometry };
}

/** People values may only name users of the organization, as in API writes. */
async function checkPeople(db: Kysely<DB>, orgId: string, found: Findings) {
  const uids = [...new Set(found.people.map((p) => p.uid))];
  const known = new Set((await orgUsersByIds(db, orgId, uids)).map((u) => u.id));
  for (const p of found.people.filter((x) => !known.has(x.uid)))
    found.problems.push({
      field: `features[${p.feature}].${p.propertyId}`,
      reason: `user "${p.uid}" is not a member or guest of this organization`,
    });
}

async function insertParcels(tx: Kysely<DB>, opts: ImportOptions, records: BulkRecord[]): Promise<string[]> {
  const { orgId, portfolioId, projectId } = opts;
  // Before the transaction writes (and gets its id): the project's changes keep their commit order.
  if (projectId) await lockRecords(tx, orgId, [projectId]);
  if (projectId && !(await recordInPortfolio(tx, 'project', { orgId, portfolioId, id: projectId })))
    throw new AppError('NOT_FOUND', `Project ${projectId} is not in portfolio ${portfolioId}.`);
  const created: string[] = [];
  const chunk = 500;
  for (let i = 0; i < records.length; i += chunk) {
    // Each parcel's creation is logged in the import's transaction, all or nothing with it.
    const slice = records.slice(i, i + chunk);
    const ids = await bulkInsertRecords(tx, 'parcel', orgId, portfolioId, slice, CLI_ACTOR);
    created.push(...ids);
    opts.onProgress?.(created.length, records.length);
  }
  if (projectId) await linkParcelsToProject(tx, { orgId, portfolioId, projectId }, created, CLI_ACTOR);
  return created;
}
