import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { geometryProblem } from '../links/geo.js';
import { linkParcelsToProject } from '../links/repository.js';
import { orgUsersByIds } from '../org/repository.js';
import { propertyType } from '../properties/registry.js';
import { schemasByKeys } from '../schema/repository.js';
import type { PropertyDefModel } from '../schema/types.js';
import { bulkInsertRecords } from './repository.js';
import { validateProperties } from './validate.js';

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

/** A raw GeoJSON property value as the value object its property type takes; undefined leaves it unset. */
function toValueObject(def: PropertyDefModel, v: unknown): unknown {
  if (v === null || v === undefined || v === '') return undefined;
  return propertyType(def.type)?.fromImport(v, def);
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
  const fc = geojson as {
    type?: string;
    features?: { type?: string; geometry?: { type?: string }; properties?: Record<string, unknown> }[];
  };
  if (fc?.type !== 'FeatureCollection' || !Array.isArray(fc.features)) {
    throw new AppError('VALIDATION_FAILED', 'The file must be a GeoJSON FeatureCollection.');
  }
  const [schema] = await schemasByKeys(db, [{ orgId: opts.orgId, kind: 'parcel' }]);
  const byKey = new Map<string, PropertyDefModel>();
  for (const d of schema.properties) {
    byKey.set(d.id, d);
    byKey.set(d.name.toLowerCase(), d);
  }
  for (const [k, id] of Object.entries(opts.map ?? {})) {
    const d = schema.byId.get(id);
    if (!d) throw new AppError('VALIDATION_FAILED', `--map ${k}=${id}: "${id}" is not a parcel property id.`);
    byKey.set(k, d);
  }
  const skipped = new Set<string>();
  const problems: ErrorDetail[] = [];
  const people: { feature: number; propertyId: string; uid: string }[] = [];
  const records = fc.features.map((f, i) => {
    const g = f?.geometry?.type;
    if (f?.type !== 'Feature' || (g !== 'Polygon' && g !== 'MultiPolygon')) {
      problems.push({
        field: `features[${i}]`,
        reason: 'must be a Feature with a Polygon or MultiPolygon geometry',
      });
      return { properties: {} };
    }
    const bad = geometryProblem(f.geometry);
    if (bad) {
      problems.push({ field: `features[${i}].geometry`, reason: bad });
      return { properties: {} };
    }
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(f.properties ?? {})) {
      const def = byKey.get(k) ?? byKey.get(k.toLowerCase());
      if (!def) skipped.add(k);
      else {
        const vo = toValueObject(def, v);
        if (vo !== undefined) input[def.id] = vo;
      }
    }
    try {
      const changes = validateProperties('parcel', schema, input, 'create');
      for (const p of changes.usersToCheck) people.push({ ...p, feature: i });
      return { properties: changes.set, geometry: f.geometry };
    } catch (err) {
      for (const d of (err as AppError).details ?? [])
        problems.push({ ...d, field: `features[${i}].${d.field}` });
      return { properties: {} };
    }
  });
  // People values may only name users of the organization, as in API writes.
  const known = new Set(
    (await orgUsersByIds(db, opts.orgId, [...new Set(people.map((p) => p.uid))])).map((u) => u.id),
  );
  for (const p of people.filter((x) => !known.has(x.uid))) {
    problems.push({
      field: `features[${p.feature}].${p.propertyId}`,
      reason: `user "${p.uid}" is not a member or guest of this organization`,
    });
  }
  if (problems.length)
    throw new AppError(
      'VALIDATION_FAILED',
      `${problems.length} problem(s) in the file; nothing was imported.`,
      problems,
    );

  return db.transaction().execute(async (tx) => {
    if (opts.projectId) {
      const p = await tx
        .selectFrom('projects')
        .select('id')
        .where('org_id', '=', opts.orgId)
        .where('portfolio_id', '=', opts.portfolioId)
        .where('id', '=', opts.projectId)
        .executeTakeFirst();
      if (!p)
        throw new AppError('NOT_FOUND', `Project ${opts.projectId} is not in portfolio ${opts.portfolioId}.`);
    }
    const created: string[] = [];
    const chunk = 500;
    for (let i = 0; i < records.length; i += chunk) {
      created.push(
        ...(await bulkInsertRecords(tx, 'parcel', opts.orgId, opts.portfolioId, records.slice(i, i + chunk))),
      );
      opts.onProgress?.(created.length, records.length);
    }
    if (opts.projectId) {
      await linkParcelsToProject(
        tx,
        { orgId: opts.orgId, portfolioId: opts.portfolioId, projectId: opts.projectId },
        created,
      );
    }
    return { created, skippedKeys: [...skipped], ...(opts.projectId ? { linkedTo: opts.projectId } : {}) };
  });
}
