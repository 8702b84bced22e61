import { type Kysely, sql } from 'kysely';
import { geometryColumns } from '../src/modules/records/index.js';

/**
 * What maps need, portable to PGlite, Postgres and Citus (none of them is assumed to have PostGIS):
 * Postgres's own geometric types. Each parcel keeps its geodesic area (`acres`), its bounding box
 * (`bounds`, GiST-indexed) and its polygons' outer rings (`rings`, for exact tests once the index
 * has narrowed the candidates); each project keeps the box of its location. All are written with
 * the geometry or location they come from; this migration fills them for existing rows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table parcels add column acres double precision, add column bounds box, add column rings polygon[]`.execute(
    db,
  );
  await sql`alter table projects add column bounds box`.execute(db);
  await sql`create index parcels_bounds_idx on parcels using gist (bounds)`.execute(db);
  await sql`create index projects_bounds_idx on projects using gist (bounds)`.execute(db);
  const at = sql`point((location -> 'coordinates' ->> 0)::float8, (location -> 'coordinates' ->> 1)::float8)`;
  await sql`update projects set bounds = box(${at}, ${at}) where location is not null`.execute(db);

  // Parcels in batches, each one organization's, so that on Citus every update is one shard's.
  let after = { org: '', id: '' };
  for (;;) {
    const { rows } = await sql<{ org_id: string; id: string; geometry: unknown }>`
      select org_id, id, geometry from parcels
      where geometry is not null and (org_id, id) > (${after.org}, ${after.id})
      order by org_id, id limit 500`.execute(db);
    if (!rows.length) break;
    const byOrg = new Map<string, typeof rows>();
    for (const r of rows) byOrg.set(r.org_id, [...(byOrg.get(r.org_id) ?? []), r]);
    for (const [org, parcels] of byOrg) {
      const values = parcels.map((r) => {
        const c = geometryColumns(typeof r.geometry === 'string' ? JSON.parse(r.geometry) : r.geometry);
        return sql`(${r.id}, ${c.acres}::float8, ${c.bounds}::box, ${c.rings}::polygon[])`;
      });
      await sql`
        update parcels set acres = v.acres, bounds = v.bounds, rings = v.rings
        from (values ${sql.join(values)}) v(id, acres, bounds, rings)
        where parcels.org_id = ${org} and parcels.id = v.id`.execute(db);
    }
    const last = rows[rows.length - 1];
    after = { org: last.org_id, id: last.id };
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists parcels_bounds_idx`.execute(db);
  await sql`drop index if exists projects_bounds_idx`.execute(db);
  await sql`alter table parcels drop column acres, drop column bounds, drop column rings`.execute(db);
  await sql`alter table projects drop column bounds`.execute(db);
}
