import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.js';
import type { DB } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { CLI_ACTOR, lockRecords, ringChanges } from '../changes/index.js';
import { linkParcelsToProject } from '../links/index.js';
import { propertyType } from '../properties/index.js';
import { recordInPortfolio } from '../records/index.js';
import { type PropertyDefModel, type PropertySchemaModel, schemasByKeys } from '../schema/index.js';
import {
  checkUpserts,
  declareSource,
  itemName,
  MAX_BULK_ITEMS,
  type SyncReads,
  sourcesOf,
  type UpsertInput,
  type UpsertItem,
  type UpsertItemResult,
  upsertRecords,
} from '../sync/index.js';
import type { SourceFeature } from './readers.js';

/** Parcels written per batch: one call of the sync module's bulk upsert, its most. */
export const IMPORT_BATCH = MAX_BULK_ITEMS;

/** Problems listed in a refusal; the rest are counted. A file of bad rows must not fill memory. */
export const MAX_LISTED_PROBLEMS = 100;

/** How far an import is, after each batch. */
export interface ImportProgress {
  /** Features read so far. */
  read: number;
  /** Parcels written so far (created or updated, in the transaction, not yet committed). */
  written: number;
  created: number;
  updated: number;
  /** Parcels matched by external id whose values and geometry already were the feature's. */
  unchanged: number;
  /** Problems found so far; once there is one, nothing more is written. */
  problems: number;
}

export interface ImportOptions {
  orgId: string;
  portfolioId: string;
  projectId?: string;
  /** featureKey → property id, for keys that match no property id or name. */
  map?: Record<string, string>;
  /**
   * Match features to parcels by external id: the source the ids belong to, and the feature
   * property that holds each one. A feature whose id the source knows updates that parcel (or
   * leaves it untouched when nothing differs); any other creates one. Without it, every feature
   * creates a parcel.
   */
  match?: { source: string; idProperty: string; declareSource?: boolean };
  onProgress?: (p: ImportProgress) => void;
  /** Return the new ids (default true). Off, a large import keeps only a count. */
  keepIds?: boolean;
  batchSize?: number;
}

export interface ImportResult {
  /** How many parcels were created. */
  count: number;
  /** Their ids, in file order (unless keepIds was off). */
  created: string[];
  /** How many existing parcels changed, and how many were left as they were (with `match`). */
  updated: number;
  unchanged: number;
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
 * Creates (or, with `match`, creates and updates) parcels from features, all or nothing, in one
 * transaction: a GeoJSON FeatureCollection given whole, or a FeatureSource read as a stream
 * (readers.ts). Features are turned into the API's input (property id → value object) and written
 * in batches of at most 1,000 through the sync module's upsertRecords, the service behind the
 * API's upsertParcels, so the import refuses what the API refuses, with its messages. Memory does
 * not grow with the file (with `match`, only by the external ids seen, to refuse one given twice).
 * At the first problem writing stops; later batches are only checked (checkUpserts), so every
 * problem is found (the first MAX_LISTED_PROBLEMS are listed), and the transaction rolls back:
 * nothing is imported. Feature properties map to schema properties by id, then by name
 * (case-insensitive), then by `map`. With `projectId`, links the file's parcels and recomputes the
 * project's location.
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

/** An unknown source is refused before anything is read, with the flag that declares it. */
async function requireImportSource(tx: Kysely<DB>, orgId: string, m: NonNullable<ImportOptions['match']>) {
  if (m.declareSource) {
    await declareSource(tx, orgId, m.source);
    return;
  }
  const known = await sourcesOf(tx, orgId);
  if (!known.includes(m.source))
    throw new AppError(
      'VALIDATION_FAILED',
      `Unknown source "${m.source}" ${known.length ? `(declared: ${known.join(', ')})` : '(none is declared yet)'}: check its spelling, or add --declare-source to declare it with this import.`,
      [{ field: 'source', reason: `unknown source "${m.source}"` }],
    );
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
  if (opts.match) await requireImportSource(tx, orgId, opts.match);
  const size = Math.min(opts.batchSize ?? IMPORT_BATCH, IMPORT_BATCH);
  // The schema was read once; the service would read it again for every batch.
  const reads: SyncReads = { schema: async () => schema };
  const keepIds = opts.keepIds !== false;
  const found: Findings = { problems: [], count: 0, skipped: new Set() };
  const seen = opts.match ? new Set<string>() : undefined;
  const created: string[] = [];
  // The links need every parcel the file names: created, updated or unchanged.
  const linked: string[] = [];
  const done = { created: 0, updated: 0, unchanged: 0 };
  let read = 0;
  let batch: Parsed[] = [];
  let reported = -1;
  const progress = () => {
    reported = read;
    opts.onProgress?.({
      read,
      written: done.created + done.updated,
      ...done,
      problems: found.count,
    });
  };
  const flush = async () => {
    if (!batch.length) return;
    const parsed = batch;
    batch = [];
    const call: UpsertInput = {
      kind: 'parcel',
      orgId,
      portfolioId,
      source: opts.match?.source,
      items: parsed.map((p) => p.item),
      allOrNone: true,
      recordLocks: false,
    };
    if (found.count) {
      for (const r of await checkUpserts(tx, orgId, call, reads)) refused(found, parsed, r, opts.match);
      return;
    }
    const answer = await upsertRecords(tx, { orgId, actor: CLI_ACTOR }, call, reads);
    if (answer.failed) {
      for (const r of answer.results) refused(found, parsed, r, opts.match);
      return;
    }
    done.created += answer.created;
    done.updated += answer.updated;
    done.unchanged += answer.unchanged;
    for (const r of answer.results) {
      if (keepIds && r.outcome === 'CREATED') created.push(r.id!);
      if (projectId) linked.push(r.id!);
    }
  };
  for await (const sf of source) {
    read++;
    const p = parcelOf(sf, match, found, opts.match, seen);
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
  if (projectId) await linkParcelsToProject(tx, { orgId, portfolioId, projectId }, linked, CLI_ACTOR);
  return {
    count: done.created,
    created,
    updated: done.updated,
    unchanged: done.unchanged,
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

/** A feature as the API's upsert item, and where it is in the file. */
interface Parsed {
  item: UpsertItem;
  label: string;
  line?: number;
}

/** Where a problem is: the feature's label, and in a FeatureCollection its line too. */
const at = (sf: { label: string; line?: number }) =>
  sf.line && sf.label.startsWith('features[') ? ` (line ${sf.line})` : '';

/**
 * One feature as an upsert item in the API's input form, or undefined when it is not a parcel at
 * all (what is wrong goes to `found`). Its values and geometry are checked by the service.
 */
function parcelOf(
  sf: SourceFeature,
  match: (key: string) => PropertyDefModel | undefined,
  found: Findings,
  byId: ImportOptions['match'],
  seen: Set<string> | undefined,
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
  const properties: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f.properties ?? {})) {
    const def = match(k);
    if (!def) {
      if (k !== byId?.idProperty) found.skipped.add(k);
      continue;
    }
    // Empty cells leave the property unset.
    const value =
      v !== null && v !== undefined && v !== '' ? propertyType(def.type)?.fromImport(v, def) : undefined;
    if (value !== undefined) properties[def.id] = value;
  }
  const item: UpsertItem = { properties, geometry: f.geometry };
  if (byId) {
    const raw = f.properties?.[byId.idProperty];
    const field = `${sf.label}.${byId.idProperty}`;
    const why =
      raw === undefined || raw === null || raw === ''
        ? `has no value: --id-property ${byId.idProperty} must name each parcel's id in ${byId.source}`
        : typeof raw !== 'string' && typeof raw !== 'number'
          ? `must be text or a number to be an id in ${byId.source}`
          : seen?.has(String(raw))
            ? `"${raw}" is given to an earlier feature too; each parcel of ${byId.source} may appear once`
            : undefined;
    if (why) {
      problem(found, { field, reason: `${why}${at(sf)}` });
      return undefined;
    }
    item.externalId = String(raw);
    seen?.add(item.externalId);
  }
  return { item, label: sf.label, line: sf.line };
}

/**
 * A refused item as a problem of the file: named by its feature (and the property or id), with
 * the service's own reason, less the service's name for the item (its index in the batch).
 */
function refused(found: Findings, batch: Parsed[], r: UpsertItemResult, byId: ImportOptions['match']): void {
  const p = batch[r.index];
  const prefix = `${itemName(r.index, r.externalId)}: `;
  for (const e of r.userErrors) {
    // Under allOrNone the valid items of a failed batch say so; the file's problems are the others.
    if (e.code === 'NOT_WRITTEN') continue;
    const where = e.path.slice(3).filter((x) => x !== 'properties' && x !== 'values');
    const named = where.map((x) => (x === 'externalId' && byId ? byId.idProperty : x));
    const reason = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
    problem(found, { field: [p.label, ...named].join('.'), reason: `${reason}${at(p)}` });
  }
}
