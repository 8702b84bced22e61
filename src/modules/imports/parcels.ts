import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.js';
import type { DB } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { type Actor, CLI_ACTOR, lockRecords, ringChanges } from '../changes/index.js';
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
import type { SourceFeature } from './readers.js';

/** Parcels written per batch: one multi-row INSERT and its change-log entries. */
export const IMPORT_BATCH = 1000;

/** Problems listed in a refusal; the rest are counted. A file of bad rows must not fill memory. */
export const MAX_LISTED_PROBLEMS = 100;

/** One batch of valid parcels to write, in file order. */
export interface ParcelBatch {
  orgId: string;
  portfolioId: string;
  records: BulkRecord[];
  actor: Actor;
}

/**
 * Writes one batch inside the import's transaction and returns the new ids in input order. The one
 * step that touches the records: swap it (the sync module's bulk upsert, when it lands) and
 * reading, validation, progress and linking stay as they are.
 */
export type BatchWriter = (tx: Kysely<DB>, batch: ParcelBatch) => Promise<string[]>;

export const insertBatch: BatchWriter = (tx, b) =>
  bulkInsertRecords(tx, 'parcel', b.orgId, b.portfolioId, b.records, b.actor);

/** How far an import is, after each batch. */
export interface ImportProgress {
  /** Features read so far. */
  read: number;
  /** Parcels written so far (in the transaction, not yet committed). */
  written: number;
  /** Problems found so far; once there is one, nothing more is written. */
  problems: number;
}

export interface ImportOptions {
  orgId: string;
  portfolioId: string;
  projectId?: string;
  /** featureKey → property id, for keys that match no property id or name. */
  map?: Record<string, string>;
  onProgress?: (p: ImportProgress) => void;
  /** Return the new ids (default true). Off, a large import keeps only a count. */
  keepIds?: boolean;
  batchSize?: number;
  writeBatch?: BatchWriter;
}

export interface ImportResult {
  /** How many parcels were created. */
  count: number;
  /** Their ids, in file order (unless keepIds was off). */
  created: string[];
  skippedKeys: string[];
  linkedTo?: string;
}

interface Feature {
  type?: string;
  geometry?: { type?: string };
  properties?: Record<string, unknown>;
}

/** What reading the features found: problems (naming features in the file), and their count. */
interface Findings {
  problems: ErrorDetail[];
  count: number;
  skipped: Set<string>;
}

/**
 * Creates parcels from features, all or nothing, in one transaction: a GeoJSON FeatureCollection
 * given whole, or a FeatureSource read as a stream (readers.ts). Features are validated and written
 * in batches as they arrive, so memory does not grow with the file. At the first problem writing
 * stops, reading goes on to find every problem (the first MAX_LISTED_PROBLEMS are listed), and the
 * transaction rolls back: nothing is imported. Feature properties map to schema properties by id,
 * then by name (case-insensitive), then by `map`; every value goes through the same validator as
 * API writes. With `projectId`, links the parcels and recomputes the project's location.
 */
export async function importParcels(
  db: Kysely<DB>,
  input: unknown,
  opts: ImportOptions,
): Promise<ImportResult> {
  const source = isSource(input) ? input : featuresOf(input);
  const [schema] = await schemasByKeys(db, [{ orgId: opts.orgId, kind: 'parcel' }]);
  const match = propertyMatcher(schema, opts.map ?? {});
  const result = await inTransaction(db, (tx) => importInto(tx, source, opts, schema, match));
  ringChanges(db, opts.orgId);
  return result;
}

const isSource = (x: unknown): x is AsyncIterable<SourceFeature> =>
  typeof x === 'object' && x !== null && Symbol.asyncIterator in x;

function featuresOf(geojson: unknown): SourceFeature[] {
  const fc = geojson as { type?: string; features?: unknown[] };
  if (fc?.type !== 'FeatureCollection' || !Array.isArray(fc.features))
    throw new AppError('VALIDATION_FAILED', 'The file must be a GeoJSON FeatureCollection.');
  return fc.features.map((feature, index) => ({ index, label: `features[${index}]`, feature }));
}

async function importInto(
  tx: Kysely<DB>,
  source: AsyncIterable<SourceFeature> | Iterable<SourceFeature>,
  opts: ImportOptions,
  schema: PropertySchemaModel,
  match: (key: string) => PropertyDefModel | undefined,
): Promise<ImportResult> {
  const { orgId, portfolioId, projectId } = opts;
  // Before the transaction writes (and gets its id): the project's changes keep their commit order.
  if (projectId) await lockRecords(tx, orgId, [projectId]);
  if (projectId && !(await recordInPortfolio(tx, 'project', { orgId, portfolioId, id: projectId })))
    throw new AppError('NOT_FOUND', `Project ${projectId} is not in portfolio ${portfolioId}.`);
  const write = opts.writeBatch ?? insertBatch;
  const size = opts.batchSize ?? IMPORT_BATCH;
  // The links need every id; without a project, only --json output asks for them.
  const keepIds = opts.keepIds !== false || !!projectId;
  const found: Findings = { problems: [], count: 0, skipped: new Set() };
  const created: string[] = [];
  let written = 0;
  let read = 0;
  let batch: Parsed[] = [];
  let reported = -1;
  const progress = () => {
    reported = read;
    opts.onProgress?.({ read, written, problems: found.count });
  };
  const flush = async () => {
    if (!batch.length) return;
    const valid = await withKnownPeople(tx, orgId, batch, found);
    batch = [];
    if (found.count || !valid.length) return;
    const ids = await write(tx, { orgId, portfolioId, records: valid, actor: CLI_ACTOR });
    written += ids.length;
    if (keepIds) for (const id of ids) created.push(id);
  };
  for await (const sf of source) {
    read++;
    const p = parcelOf(sf, schema, match, found);
    if (p) batch.push(p);
    // By features read, not parcels kept: a file of bad rows still shows its progress.
    if (read % size === 0) {
      await flush();
      progress();
    }
  }
  await flush();
  if (read !== reported) progress();
  if (found.count) {
    const more = found.count - found.problems.length;
    throw new AppError(
      'VALIDATION_FAILED',
      `${found.count} problem(s) in the file${more ? ` (the first ${found.problems.length} are listed)` : ''}; nothing was imported. Fix them and run the import again.`,
      found.problems,
    );
  }
  if (read === 0) throw new AppError('VALIDATION_FAILED', 'The file has no features: nothing to import.');
  if (projectId) await linkParcelsToProject(tx, { orgId, portfolioId, projectId }, created, CLI_ACTOR);
  return {
    count: written,
    created,
    skippedKeys: [...found.skipped],
    ...(projectId ? { linkedTo: projectId } : {}),
  };
}

const problem = (found: Findings, d: ErrorDetail) => {
  found.count++;
  if (found.problems.length < MAX_LISTED_PROBLEMS) found.problems.push(d);
};

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

/** A valid feature as a parcel, with the people its values name (checked per batch). */
interface Parsed {
  record: BulkRecord;
  label: string;
  people: { propertyId: string; uid: string }[];
}

/** Where a problem is: the feature's label, and in a FeatureCollection its line too. */
const at = (sf: SourceFeature) => (sf.line && sf.label.startsWith('features[') ? ` (line ${sf.line})` : '');

/** One feature as a parcel to insert, or undefined; what is wrong with it goes to `found`. */
function parcelOf(
  sf: SourceFeature,
  schema: PropertySchemaModel,
  match: (key: string) => PropertyDefModel | undefined,
  found: Findings,
): Parsed | undefined {
  if (sf.problem !== undefined) {
    problem(found, { field: sf.label, reason: `${sf.problem}${at(sf)}` });
    return undefined;
  }
  const f = sf.feature as Feature;
  const g = f?.geometry?.type;
  if (f?.type !== 'Feature' || (g !== 'Polygon' && g !== 'MultiPolygon')) {
    problem(found, {
      field: sf.label,
      reason: `must be a Feature with a Polygon or MultiPolygon geometry${g ? ` (its geometry is a ${g})` : ''}${at(sf)}`,
    });
    return undefined;
  }
  const bad = geometryProblem(f.geometry);
  if (bad) {
    problem(found, { field: `${sf.label}.geometry`, reason: `${bad}${at(sf)}` });
    return undefined;
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
  for (const d of details)
    problem(found, { ...d, field: `${sf.label}.${d.field}`, reason: `${d.reason}${at(sf)}` });
  if (details.length) return undefined;
  return {
    record: { properties: changes.set, geometry: f.geometry },
    label: sf.label,
    people: changes.usersToCheck,
  };
}

/** The batch's records whose people values name users of the organization, as in API writes. */
async function withKnownPeople(
  db: Kysely<DB>,
  orgId: string,
  batch: Parsed[],
  found: Findings,
): Promise<BulkRecord[]> {
  const uids = [...new Set(batch.flatMap((p) => p.people.map((x) => x.uid)))];
  const known = uids.length ? new Set((await orgUsersByIds(db, orgId, uids)).map((u) => u.id)) : new Set();
  const valid: BulkRecord[] = [];
  for (const p of batch) {
    const unknown = p.people.filter((x) => !known.has(x.uid));
    for (const x of unknown)
      problem(found, {
        field: `${p.label}.${x.propertyId}`,
        reason: `user "${x.uid}" is not a member or guest of this organization`,
      });
    if (!unknown.length) valid.push(p.record);
  }
  return valid;
}
