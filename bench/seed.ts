import { sql } from 'kysely';
import { migrateToLatest } from '../src/db/migrate.js';
import { createApiKey } from '../src/modules/auth/index.js';
import { addMember, createOrg, createPortfolio, createUser } from '../src/modules/org/index.js';
import {
  areaWeightedCentroid,
  bulkInsertRecords,
  geometryColumns,
  type StoredValue,
} from '../src/modules/records/index.js';
import { names, parcelPolygon, type Rng, rng } from '../src/seed/random.js';
import { installDemoSchema } from '../src/seed/schema.js';
import { Progress } from './progress.js';
import type { BenchStore } from './store.js';

/** Bump when the generated data changes shape: an older bench database is then reseeded. */
export const SEED_VERSION = 2;

/** Scale 1: one org, 3 portfolios, 100k projects, 300k parcels, 100k contacts, ~500k links. */
export const BASE_SIZES = { portfolios: 3, projects: 100_000, parcels: 300_000, contacts: 100_000 };

export interface DatasetSizes {
  portfolios: number;
  projects: number;
  parcels: number;
  contacts: number;
}

export function sizesFor(scale: number): DatasetSizes {
  const n = (x: number) => Math.max(BASE_SIZES.portfolios, Math.round(x * scale));
  return {
    portfolios: BASE_SIZES.portfolios,
    projects: n(BASE_SIZES.projects),
    parcels: n(BASE_SIZES.parcels),
    contacts: n(BASE_SIZES.contacts),
  };
}

export interface DatasetInfo {
  version: number;
  scale: number;
  sizes: DatasetSizes;
  counts: Record<
    'projects' | 'parcels' | 'contacts' | 'project_parcels' | 'project_contacts' | 'parcel_contacts',
    number
  >;
  orgId: string;
  /** The seeded portfolios; reads go to the first. */
  portfolioIds: string[];
  /** An extra, small portfolio that writes go to; emptied and refilled before every run. */
  scratchPortfolioId: string;
  ownerUserId: string;
  seededAt: string;
  seedSeconds: number;
}

/** What one run needs: a fresh API key and records to update. */
export interface RunFixture {
  apiKey: string;
  /** Projects of the scratch portfolio, for PUT and update mutations. */
  writeProjectIds: string[];
}

const META_DDL = sql`create table if not exists bench_meta (key text primary key, value jsonb not null)`;

/** The dataset recorded in this database, if a seed finished here. */
export async function readDataset(store: BenchStore): Promise<DatasetInfo | undefined> {
  try {
    const { rows } = await sql<{
      value: DatasetInfo;
    }>`select value from bench_meta where key = 'dataset'`.execute(store.db);
    return rows[0]?.value;
  } catch {
    return undefined;
  }
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Ids of the same shape the service makes (`prj_` + 22 base62), but reproducible. */
function idMaker(r: Rng) {
  return (prefix: string) => {
    let s = `${prefix}_`;
    for (let i = 0; i < 22; i++) s += ALPHABET[Math.floor(r.next() * 62)];
    return s;
  };
}

/** COPY text format: backslash is the only character JSON.stringify leaves that COPY treats specially. */
const jsonField = (v: unknown) => (v == null ? '\\N' : JSON.stringify(v).replace(/\\/g, '\\\\'));
const ts = (ms: number) => new Date(ms).toISOString();

const T0 = Date.UTC(2022, 0, 3, 8, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface PortfolioRows {
  projects: string[];
  parcels: string[];
  contacts: string[];
  projectParcels: string[];
  projectContacts: string[];
  parcelContacts: string[];
}

/**
 * One portfolio's rows, with realistic values of every property type (the demo schema). Parcels
 * cluster around their project's site; a quarter have a landowner contact, who is also linked to the
 * parcel's project; half the projects also have a broker, counsel or county official.
 */
function generatePortfolio(
  seed: number,
  orgId: string,
  portfolioId: string,
  people: string[],
  center: [number, number],
  n: { projects: number; parcels: number; contacts: number },
): PortfolioRows {
  const r = rng(seed);
  const newId = idMaker(rng(seed ^ 0x5bd1e995));
  const { FIRST, LAST, PLACES, COUNTIES } = names;
  const some = <T>(xs: T[], k: number) => [...new Set(Array.from({ length: k }, () => r.pick(xs)))];
  const date = (fromYear: number, years: number) =>
    new Date(Date.UTC(fromYear, 0, 1) + Math.floor(r.next() * years * 365) * DAY).toISOString().slice(0, 10);
  const head = `${orgId}\t${portfolioId}`;

  // Projects first (ids, sites, values); their location is known once the parcels are placed.
  const projectIds: string[] = [];
  const projectCreated: number[] = [];
  const sites: [number, number][] = [];
  const projectProps: Record<string, StoredValue>[] = [];
  for (let i = 0; i < n.projects; i++) {
    projectIds.push(newId('prj'));
    projectCreated.push(T0 + i * 45_000);
    sites.push([center[0] + (r.next() - 0.5) * 3, center[1] + (r.next() - 0.5) * 2]);
    const name = `${r.pick(PLACES)} Solar ${i + 1}`;
    const p: Record<string, StoredValue> = { name: { text: name } };
    p.capacity_mw = { number: Math.round((5 + r.next() * 295) * 10) / 10 };
    p.stage = {
      select: [r.pick(['origination', 'site-control', 'permitting', 'construction', 'operating'])],
    };
    if (r.chance(0.8)) p.cod = { date: { start: date(2026, 5) } };
    if (r.chance(0.7)) p.offtake = { select: some(['ppa', 'merchant', 'community', 'rec'], r.int(1, 2)) };
    if (r.chance(0.6))
      p.website = { text: `https://projects.example.com/${name.toLowerCase().replace(/\s+/g, '-')}` };
    if (r.chance(0.5)) p.developer_email = { text: `dev+${i + 1}@bench-solar.example` };
    p.owner = { people: [r.pick(people)] };
    projectProps.push(p);
  }

  // Contacts: about 30% are landowners.
  const contactIds: string[] = [];
  const contactCreated: number[] = [];
  const landowners: number[] = [];
  const others: number[] = [];
  const contacts: string[] = [];
  for (let i = 0; i < n.contacts; i++) {
    const id = newId('con');
    const created = T0 + i * 45_000 + 1_000;
    contactIds.push(id);
    contactCreated.push(created);
    const first = r.pick(FIRST);
    const last = r.pick(LAST);
    const landowner = r.chance(0.3);
    (landowner ? landowners : others).push(i);
    const p: Record<string, StoredValue> = { first_name: { text: first } };
    if (r.chance(0.95)) p.last_name = { text: last };
    p.contact_type = { select: [landowner ? 'landowner' : r.pick(['broker', 'counsel', 'official'])] };
    if (r.chance(0.7))
      p.email = {
        text: `${first}.${last}.${i}@example.net`
          .toLowerCase()
          .normalize('NFD')
          .replace(/[^\x20-\x7e]/g, ''),
      };
    if (r.chance(0.6)) p.phone = { text: `+1 806 555 ${String(r.int(0, 9999)).padStart(4, '0')}` };
    if (r.chance(0.2))
      p.linkedin = { text: `https://www.linkedin.com/in/${first}-${last}-${i}`.toLowerCase() };
    if (landowner || r.chance(0.2)) p.acres_owned = { number: r.int(40, 4000) };
    if (r.chance(0.5)) p.last_contacted = { date: { start: date(2025, 2) } };
    if (r.chance(0.5)) p.interests = { select: some(['lease', 'sale', 'easement'], r.int(1, 2)) };
    p.relationship_owner = { people: [r.pick(people)] };
    const updated = created + r.int(0, 60) * DAY;
    contacts.push(`${head}\t${id}\t${jsonField(p)}\t${ts(created)}\t${ts(updated)}`);
  }

  // Parcels: each belongs to one project, near its site. A few projects, spread over the whole list
  // (not its tail, which the deep page reads), have none yet.
  const withParcels: number[] = [];
  for (let i = 0; i < n.projects; i++) if (r.chance(0.97)) withParcels.push(i);
  if (!withParcels.length) withParcels.push(0);
  const projectGeoms: unknown[][] = projectIds.map(() => []);
  const parcels: string[] = [];
  const projectParcels: string[] = [];
  const parcelContacts: string[] = [];
  const projectContactSeen = new Set<number>();
  const projectContacts: string[] = [];
  const linkProjectContact = (pi: number, ci: number) => {
    const key = pi * n.contacts + ci;
    if (projectContactSeen.has(key)) return;
    projectContactSeen.add(key);
    const at = Math.max(projectCreated[pi], contactCreated[ci]) + 3 * HOUR;
    projectContacts.push(`${head}\t${projectIds[pi]}\t${contactIds[ci]}\t${ts(at)}`);
  };
  for (let i = 0; i < n.parcels; i++) {
    const id = newId('par');
    const created = T0 + i * 15_000 + 2_000;
    const pi = r.pick(withParcels);
    const county = r.pick(COUNTIES);
    const apn = `${county.slice(0, 3).toUpperCase()}-${r.int(100, 999)}-${String(i).padStart(6, '0')}`;
    const p: Record<string, StoredValue> = {
      name: { text: `${county} County tract ${i + 1}` },
      apn: { text: apn },
    };
    p['parcel-status'] = { select: [r.pick(['prospect', 'negotiating', 'option-signed', 'declined'])] };
    p.acreage = { number: Math.round((40 + r.next() * 600) * 100) / 100 };
    if (r.chance(0.5)) p.option_expiry = { date: { start: date(2026, 4) } };
    if (r.chance(0.4))
      p.constraints = { select: some(['wetland', 'floodplain', 'pipeline', 'airport'], r.int(1, 2)) };
    if (r.chance(0.6))
      p.county_url = { text: `https://www.${county.toLowerCase()}cad.example.org/parcel/${apn}` };
    if (r.chance(0.4)) p.owner_email = { text: `owner${i + 1}@farmmail.example` };
    if (r.chance(0.7)) p.land_agent = { people: [r.pick(people)] };
    const [sx, sy] = sites[pi];
    const geometry = parcelPolygon(r, sx + (r.next() - 0.5) * 0.05, sy + (r.next() - 0.5) * 0.04);
    projectGeoms[pi].push(geometry);
    const updated = created + r.int(0, 60) * DAY;
    // The columns the writers derive from the geometry (migrations/0009), as they would.
    const g = geometryColumns(geometry);
    parcels.push(
      `${head}\t${id}\t${jsonField(p)}\t${ts(created)}\t${ts(updated)}\t${jsonField(geometry)}\t${g.acres}\t${g.bounds}\t${g.rings}`,
    );
    const linked = Math.max(created, projectCreated[pi]) + HOUR;
    projectParcels.push(`${head}\t${projectIds[pi]}\t${id}\t${ts(linked)}`);
    if (landowners.length && r.chance(0.25)) {
      const ci = r.pick(landowners);
      parcelContacts.push(
        `${head}\t${id}\t${contactIds[ci]}\t${ts(Math.max(created, contactCreated[ci]) + 2 * HOUR)}`,
      );
      linkProjectContact(pi, ci);
    }
  }
  for (let pi = 0; pi < n.projects; pi++) {
    if (others.length && r.chance(0.5)) linkProjectContact(pi, r.pick(others));
  }

  const projects = projectIds.map((id, i) => {
    const created = projectCreated[i];
    const updated = created + r.int(0, 60) * DAY;
    const location = areaWeightedCentroid(projectGeoms[i]);
    const at = location ? `(${location.coordinates.join(',')})` : null;
    const bounds = at ? `${at},${at}` : '\\N';
    return `${head}\t${id}\t${jsonField(projectProps[i])}\t${ts(created)}\t${ts(updated)}\t${jsonField(location)}\t${bounds}`;
  });
  return { projects, parcels, contacts, projectParcels, projectContacts, parcelContacts };
}

const REC = ['org_id', 'portfolio_id', 'id', 'properties', 'created_at', 'updated_at'];
const COPY_CHUNK = 10_000;

const CENTERS: [number, number][] = [
  [-101.85, 33.58],
  [-101.3, 35.2],
  [-93.6, 42.0],
  [-104.9, 39.7],
  [-112.1, 33.4],
];

/**
 * Seeds a fresh (migrated, empty) bench database: users, one org with the demo schema (every
 * property type), the portfolios and their records and links, all with COPY. Writes `bench_meta`
 * last, so an interrupted seed is never mistaken for a finished one.
 */
export async function seedDataset(store: BenchStore, scale: number, quiet = false): Promise<DatasetInfo> {
  const started = Date.now();
  const { db } = store;
  await migrateToLatest(db);
  await META_DDL.execute(db);
  const sizes = sizesFor(scale);

  const owner = await createUser(db, 'bench-owner@bench.example', 'Bench Owner');
  const org = await createOrg(db, 'Bench Solar Holdings');
  await addMember(db, org.id, owner.id, 'owner');
  const people = [owner.id];
  for (let i = 1; i <= 11; i++) {
    const u = await createUser(
      db,
      `bench-user-${i}@bench.example`,
      `${names.FIRST[i % 20]} ${names.LAST[i % 15]}`,
    );
    await addMember(db, org.id, u.id, i <= 2 ? 'admin' : i <= 9 ? 'member' : 'viewer');
    people.push(u.id);
  }
  await installDemoSchema(db, org.id);
  const portfolioIds: string[] = [];
  for (let p = 0; p < sizes.portfolios; p++) {
    portfolioIds.push((await createPortfolio(db, org.id, `Bench portfolio ${p + 1}`)).id);
  }
  const scratch = await createPortfolio(db, org.id, 'Bench writes (emptied every run)');

  const split = (total: number, p: number) =>
    Math.floor(total / sizes.portfolios) + (p < total % sizes.portfolios ? 1 : 0);
  const counts: DatasetInfo['counts'] = {
    projects: 0,
    parcels: 0,
    contacts: 0,
    project_parcels: 0,
    project_contacts: 0,
    parcel_contacts: 0,
  };
  // Links are about 1.7 rows per parcel; the bar counts rows written.
  const estimate = Math.round(sizes.projects + sizes.contacts + sizes.parcels * 2.65);
  const bar = new Progress(`seeding scale ${scale}`, estimate, quiet);
  for (let p = 0; p < sizes.portfolios; p++) {
    const rows = generatePortfolio(
      20260301 + p,
      org.id,
      portfolioIds[p],
      people,
      CENTERS[p % CENTERS.length],
      {
        projects: split(sizes.projects, p),
        parcels: split(sizes.parcels, p),
        contacts: split(sizes.contacts, p),
      },
    );
    const plan: [string, string[], string[], keyof DatasetInfo['counts']][] = [
      ['projects', [...REC, 'location', 'bounds'], rows.projects, 'projects'],
      ['contacts', REC, rows.contacts, 'contacts'],
      ['parcels', [...REC, 'geometry', 'acres', 'bounds', 'rings'], rows.parcels, 'parcels'],
      [
        'project_parcels',
        ['org_id', 'portfolio_id', 'project_id', 'parcel_id', 'linked_at'],
        rows.projectParcels,
        'project_parcels',
      ],
      [
        'project_contacts',
        ['org_id', 'portfolio_id', 'project_id', 'contact_id', 'linked_at'],
        rows.projectContacts,
        'project_contacts',
      ],
      [
        'parcel_contacts',
        ['org_id', 'portfolio_id', 'parcel_id', 'contact_id', 'linked_at'],
        rows.parcelContacts,
        'parcel_contacts',
      ],
    ];
    for (const [table, cols, lines, key] of plan) {
      for (let i = 0; i < lines.length; i += COPY_CHUNK) {
        const chunk = lines.slice(i, i + COPY_CHUNK);
        await store.copy(table, cols, chunk);
        bar.tick(chunk.length);
      }
      counts[key] += lines.length;
    }
  }
  bar.finish();
  if (!quiet) process.stderr.write('vacuum analyze …\n');
  await sql`vacuum analyze`.execute(db);

  const info: DatasetInfo = {
    version: SEED_VERSION,
    scale,
    sizes,
    counts,
    orgId: org.id,
    portfolioIds,
    scratchPortfolioId: scratch.id,
    ownerUserId: owner.id,
    seededAt: new Date().toISOString(),
    seedSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  await sql`insert into bench_meta (key, value) values ('dataset', ${JSON.stringify(info)}::jsonb)
    on conflict (key) do update set value = excluded.value`.execute(db);
  return info;
}

/** Scratch projects that PUTs and update mutations rotate over (spreads row locks). */
const WRITE_TARGETS = 1000;

/**
 * Per-run preparation on a seeded database: one fresh API key for the owner (bench keys left idle
 * by earlier runs are deleted), and the scratch portfolio emptied and refilled, so writes never
 * grow the read dataset.
 */
export async function prepareRun(store: BenchStore, info: DatasetInfo): Promise<RunFixture> {
  const { db } = store;
  await migrateToLatest(db);
  // Another run may be using this database right now with a key of its own: deleting every bench
  // key would revoke it mid-run (its requests would all answer 401). A run's key is stamped as it
  // is used (last_used_at, at most a minute stale), so a key unused for a day belongs to no live
  // run; the old ones are still pruned, so they do not pile up run after run.
  await db
    .deleteFrom('api_keys')
    .where('label', '=', 'bench')
    .where(sql<boolean>`coalesce(last_used_at, created_at) < now() - interval '1 day'`)
    .execute();
  const key = await createApiKey(db, info.ownerUserId, 'bench');
  await db
    .deleteFrom('projects')
    .where('org_id', '=', info.orgId)
    .where('portfolio_id', '=', info.scratchPortfolioId)
    .execute();
  await db
    .deleteFrom('contacts')
    .where('org_id', '=', info.orgId)
    .where('portfolio_id', '=', info.scratchPortfolioId)
    .execute();
  const r = rng(7);
  const writeProjectIds = await bulkInsertRecords(
    db,
    'project',
    info.orgId,
    info.scratchPortfolioId,
    Array.from({ length: WRITE_TARGETS }, (_, i) => ({
      properties: {
        name: { text: `Write target ${i + 1}` },
        capacity_mw: { number: r.int(5, 300) },
        stage: { select: ['origination'] },
      },
    })),
  );
  return { apiKey: key.apiKey, writeProjectIds };
}
