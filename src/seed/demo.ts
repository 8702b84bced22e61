import type { Kysely } from 'kysely';
import type { DB, OrgRole } from '../db/types.js';
import { createApiKey } from '../modules/auth/index.js';
import { bulkLink, recomputeProjectLocation } from '../modules/links/index.js';
import {
  addMember,
  createOrg,
  createPortfolio,
  createUser,
  findUser,
  grantGuest,
} from '../modules/org/index.js';
import { bulkInsertRecords, type StoredValue } from '../modules/records/index.js';
import { names, parcelPolygon, type Rng, rng } from './random.js';
import { installDemoSchema } from './schema.js';

export interface DemoOutput {
  users: Record<'alice' | 'bob' | 'vera' | 'gina' | 'nora', { uid: string; apiKey: string }>;
  orgs: {
    A: { id: string; portfolios: { A1: string; A2: string } };
    B: { id: string; portfolios: { B1: string } };
  };
}

export const DEMO_SIZES = { projects: 50, parcels: 200, contacts: 100 };

/** The demo users: handle, e-mail, name (docs/getting-started.md lists them). */
export const DEMO_USERS = [
  ['alice', 'alice@sunfield.example', 'Alice Ambrose'],
  ['bob', 'bob@sunfield.example', 'Bob Barrera'],
  ['vera', 'vera@sunfield.example', 'Vera Vance'],
  ['gina', 'gina@landpartners.example', 'Gina Guerrero'],
  ['nora', 'nora@northwind.example', 'Nora Nakamura'],
] as const;

export async function hasDemoData(db: Kysely<DB>): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', DEMO_USERS[0][1])
    .executeTakeFirst();
  return !!row;
}

const date = (r: Rng, fromYear: number, years: number) => {
  const d = new Date(Date.UTC(fromYear, 0, 1) + Math.floor(r.next() * years * 365) * 86_400_000);
  return d.toISOString().slice(0, 10);
};

/** Fills one portfolio with projects, parcels (with polygons), contacts and links of every kind. */
export async function seedPortfolio(
  db: Kysely<DB>,
  r: Rng,
  orgId: string,
  portfolioId: string,
  people: string[],
  center: [number, number],
  sizes = DEMO_SIZES,
): Promise<void> {
  const { FIRST, LAST, PLACES, COUNTIES } = names;
  const some = <T>(xs: T[], n: number) => [...new Set(Array.from({ length: n }, () => r.pick(xs)))];

  const projects = Array.from({ length: sizes.projects }, (_, i) => {
    const name = `${r.pick(PLACES)} Solar ${i + 1}`;
    const p: Record<string, StoredValue> = { name: { text: name } };
    p.capacity_mw = { number: Math.round((5 + r.next() * 295) * 10) / 10 };
    p.stage = {
      select: [r.pick(['origination', 'site-control', 'permitting', 'construction', 'operating'])],
    };
    if (r.chance(0.8)) p.cod = { date: { start: date(r, 2026, 5) } };
    if (r.chance(0.7)) p.offtake = { select: some(['ppa', 'merchant', 'community', 'rec'], r.int(1, 2)) };
    if (r.chance(0.6))
      p.website = { text: `https://projects.example.com/${name.toLowerCase().replace(/\s+/g, '-')}` };
    if (r.chance(0.5)) p.developer_email = { text: `dev+${i + 1}@sunfield.example` };
    p.owner = { people: [r.pick(people)] };
    return { properties: p };
  });
  const parcels = Array.from({ length: sizes.parcels }, (_, i) => {
    const county = r.pick(COUNTIES);
    const apn = `${county.slice(0, 3).toUpperCase()}-${r.int(100, 999)}-${String(i).padStart(4, '0')}`;
    const p: Record<string, StoredValue> = {
      name: { text: `${county} County tract ${i + 1}` },
      apn: { text: apn },
    };
    p['parcel-status'] = { select: [r.pick(['prospect', 'negotiating', 'option-signed', 'declined'])] };
    p.acreage = { number: Math.round((40 + r.next() * 600) * 100) / 100 };
    if (r.chance(0.5)) p.option_expiry = { date: { start: date(r, 2026, 4) } };
    if (r.chance(0.4))
      p.constraints = { select: some(['wetland', 'floodplain', 'pipeline', 'airport'], r.int(1, 2)) };
    if (r.chance(0.6))
      p.county_url = { text: `https://www.${county.toLowerCase()}cad.example.org/parcel/${apn}` };
    if (r.chance(0.4)) p.owner_email = { text: `owner${i + 1}@farmmail.example` };
    if (r.chance(0.7)) p.land_agent = { people: [r.pick(people)] };
    const lon = center[0] + (r.next() - 0.5) * 0.6;
    const lat = center[1] + (r.next() - 0.5) * 0.4;
    return { properties: p, geometry: parcelPolygon(r, lon, lat) };
  });
  const contacts = Array.from({ length: sizes.contacts }, (_, i) => {
    const first = r.pick(FIRST);
    const last = r.pick(LAST);
    const p: Record<string, StoredValue> = { first_name: { text: first } };
    if (r.chance(0.95)) p.last_name = { text: last };
    p.contact_type = {
      select: [r.pick(['landowner', 'landowner', 'landowner', 'broker', 'counsel', 'official'])],
    };
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
    if (r.chance(0.6)) p.acres_owned = { number: r.int(40, 4000) };
    if (r.chance(0.5)) p.last_contacted = { date: { start: date(r, 2025, 2) } };
    if (r.chance(0.5)) p.interests = { select: some(['lease', 'sale', 'easement'], r.int(1, 2)) };
    p.relationship_owner = { people: [r.pick(people)] };
    return { properties: p };
  });

  const projectIds = await bulkInsertRecords(db, 'project', orgId, portfolioId, projects);
  const parcelIds = await bulkInsertRecords(db, 'parcel', orgId, portfolioId, parcels);
  const contactIds = await bulkInsertRecords(db, 'contact', orgId, portfolioId, contacts);

  // Each parcel belongs to one project (about 4 a project); a few projects have none yet.
  const withParcels = projectIds.slice(0, Math.max(1, projectIds.length - 3));
  const projectParcels = parcelIds.map((id, i): [string, string] => [
    withParcels[i % withParcels.length],
    id,
  ]);
  const projectContacts = projectIds.flatMap((id) =>
    some(contactIds, r.int(1, 4)).map((c): [string, string] => [id, c]),
  );
  const parcelContacts = parcelIds.flatMap((id) =>
    some(contactIds, r.int(0, 2)).map((c): [string, string] => [id, c]),
  );
  await bulkLink(db, 'project_parcels', orgId, portfolioId, projectParcels);
  await bulkLink(db, 'project_contacts', orgId, portfolioId, projectContacts);
  await bulkLink(db, 'parcel_contacts', orgId, portfolioId, parcelContacts);
  for (const id of withParcels) await recomputeProjectLocation(db, orgId, id);
}

/**
 * A new key (label `demo`) for each demo user still in the database, in one transaction; the
 * earlier keys stay valid. Keys are returned once.
 */
export async function newDemoKeys(db: Kysely<DB>): Promise<Partial<DemoOutput['users']>> {
  return db.transaction().execute(async (tx) => {
    const users: Partial<DemoOutput['users']> = {};
    for (const [handle, email] of DEMO_USERS) {
      const user = await findUser(tx, email);
      if (!user) continue;
      const key = await createApiKey(tx, user.id, 'demo');
      users[handle] = { uid: user.id, apiKey: key.apiKey };
    }
    return users;
  });
}

/** Creates the demo organizations, users (one key each), schemas and data. Keys are returned once. */
export async function seedDemo(db: Kysely<DB>): Promise<DemoOutput> {
  return db.transaction().execute(async (tx) => {
    const r = rng(20260301);
    const u = {} as Record<(typeof DEMO_USERS)[number][0], { id: string }>;
    for (const [handle, email, name] of DEMO_USERS) u[handle] = await createUser(tx, email, name);

    const orgA = await createOrg(tx, 'Sunfield Energy');
    const orgB = await createOrg(tx, 'Northwind Renewables');
    const a1 = await createPortfolio(tx, orgA.id, 'West Texas Solar');
    const a2 = await createPortfolio(tx, orgA.id, 'Panhandle Storage');
    const b1 = await createPortfolio(tx, orgB.id, 'Iowa Community Solar');
    const roles: [string, string, OrgRole][] = [
      [orgA.id, u.alice.id, 'owner'],
      [orgA.id, u.bob.id, 'member'],
      [orgA.id, u.vera.id, 'viewer'],
      [orgB.id, u.nora.id, 'owner'],
    ];
    for (const [org, user, role] of roles) await addMember(tx, org, user, role);
    await grantGuest(tx, orgA.id, a1.id, u.gina.id);

    await installDemoSchema(tx, orgA.id);
    await installDemoSchema(tx, orgB.id);
    const peopleA = [u.alice.id, u.bob.id, u.vera.id];
    await seedPortfolio(tx, r, orgA.id, a1.id, [...peopleA, u.gina.id], [-101.85, 33.58]);
    await seedPortfolio(tx, r, orgA.id, a2.id, peopleA, [-101.3, 35.2]);
    await seedPortfolio(tx, r, orgB.id, b1.id, [u.nora.id], [-93.6, 42.0]);

    const users = {} as DemoOutput['users'];
    for (const [handle] of DEMO_USERS) {
      const key = await createApiKey(tx, u[handle].id, 'demo');
      users[handle] = { uid: u[handle].id, apiKey: key.apiKey };
    }
    return {
      users,
      orgs: {
        A: { id: orgA.id, portfolios: { A1: a1.id, A2: a2.id } },
        B: { id: orgB.id, portfolios: { B1: b1.id } },
      },
    };
  });
}
