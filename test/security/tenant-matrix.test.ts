// Their write audit is row triggers into one table, which Citus cannot run on distributed tables (docs/scaling.md).

import { sql } from 'kysely';
import { buildSchema } from '../../src/graphql/schema.js';
import { bulkLink } from '../../src/modules/links/repository.js';
import { createUser, grantGuest } from '../../src/modules/org/repository.js';
import { bulkInsertRecords } from '../../src/modules/records/repository.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { onCitus } from '../helpers/citus.js';
import { describe, expect, type TestEnv, test } from '../helpers/fixtures.js';
import type { Client, Res } from '../helpers/http.js';
import { PLURAL } from '../records-helpers.js';
import {
  type AuditRow,
  auditCursor,
  CROSS_TENANT,
  changed,
  graphqlErrorProblems,
  idsIn,
  installAudit,
  restErrorProblems,
  snapshot,
} from './support.js';

/**
 * Tenant isolation as a generated matrix. Every REST route and every root Query and Mutation field has
 * an entry in a case table (a missing or extra entry fails the suite). Each entry expands into cases:
 * every demo user against every organization, portfolio and record kind, through direct ids, scoped
 * lists, link lists, node(id), the by-id roots and nested GraphQL paths. Each case asserts the outcome
 * the access rules give (found / 404 or null / 403 only for vera's writes inside org A), that no id the
 * user may not see appears anywhere in the answer, and, for writes, that a refused write changed no row
 * anywhere and an allowed one changed rows of its own portfolio only.
 */

type U = 'alice' | 'bob' | 'vera' | 'gina' | 'nora';
type Pf = 'A1' | 'A2' | 'B1';
type Org = 'A' | 'B';
type Kind = 'project' | 'parcel' | 'contact';
type Outcome = 'ok' | 'forbidden' | 'notFound';

const USERS: U[] = ['alice', 'bob', 'vera', 'gina', 'nora'];
const PFS: Pf[] = ['A1', 'A2', 'B1'];
const ORG_OF: Record<Pf, Org> = { A1: 'A', A2: 'A', B1: 'B' };
/** The access rules, written out: which portfolios each demo user reaches. */
const READS: Record<U, Pf[]> = {
  alice: ['A1', 'A2'],
  bob: ['A1', 'A2'],
  vera: ['A1', 'A2'],
  gina: ['A1'],
  nora: ['B1'],
};
const ORGS_OF_USER: Record<U, Org[]> = { alice: ['A'], bob: ['A'], vera: ['A'], gina: ['A'], nora: ['B'] };
/** Guests without a key, added to the demo: gail shares A1 with gina, gus reaches only A2. */
type Extra = 'gail' | 'gus';
type Listed = U | Extra;
const EXTRA: Extra[] = ['gail', 'gus'];
/** The users of each org: members and guests. */
const ORG_USERS: Record<Org, Listed[]> = { A: ['alice', 'bob', 'vera', 'gina', 'gail', 'gus'], B: ['nora'] };
/** The portfolios each guest was granted. */
const GUEST_OF: Partial<Record<Listed, Pf[]>> = { gina: ['A1'], gail: ['A1'], gus: ['A2'] };
/**
 * Who a user may see among an org's users (GET /users/v1, Organization.users, node, people values):
 * everyone, for a member; for a guest, the members, themselves and the guests sharing a portfolio.
 */
function seesUsers(viewer: U, org: Org): Listed[] {
  const mine = GUEST_OF[viewer]?.filter((p) => ORG_OF[p] === org) ?? [];
  return ORG_USERS[org].filter(
    (t) => !mine.length || t === viewer || !GUEST_OF[t] || GUEST_OF[t].some((p) => mine.includes(p)),
  );
}
const TYPE = { project: 'Project', parcel: 'Parcel', contact: 'Contact' } as const;
const NAME_PROP = { project: 'name', parcel: 'name', contact: 'first_name' } as const;

interface Scope {
  org: Org;
  pf: Pf;
}
const own = (pf: Pf): Scope => ({ org: ORG_OF[pf], pf });
/** A scope that names another portfolio than the record's: within the org, or across orgs. */
const LIE: Record<Pf, Pf> = { A1: 'A2', A2: 'B1', B1: 'A1' };
/** Scopes for creates and scoped lists: each portfolio, and both org/portfolio mismatches. */
const CREATE_SCOPES: Scope[] = [
  own('A1'),
  own('A2'),
  own('B1'),
  { org: 'A', pf: 'B1' },
  { org: 'B', pf: 'A1' },
];

/**
 * The outcome the rules give a request that names `scope` and touches records of `touched`:
 * 404 when anything is out of reach or the names do not fit together, else 403 for the read-only
 * role's writes, else success.
 */
function expected(user: U, touched: Pf[], scope: Scope | undefined, write: boolean): Outcome {
  const pfs = scope ? [scope.pf, ...touched] : touched;
  const consistent = (!scope || ORG_OF[scope.pf] === scope.org) && pfs.every((p) => p === pfs[0]);
  if (!consistent || !pfs.every((p) => READS[user].includes(p))) return 'notFound';
  return write && user === 'vera' ? 'forbidden' : 'ok';
}

interface PfData {
  orgId: string;
  pfId: string;
  project: string;
  parcel: string;
  /** Linked to `project`. */
  projectContact: string;
  /** Linked to `parcel`. */
  parcelContact: string;
  /** Linked to neither `project` nor `parcel`. */
  freeContact: string;
}

interface World {
  env: TestEnv;
  /** Record id → portfolio id, filled from the database as ids are met. */
  recordPf: Map<string, string | undefined>;
  pf: Record<Pf, PfData>;
  orgId: Record<Org, string>;
  uid: Record<Listed, string>;
}

/** Records made for one allowed write, so the seeded records the refused cases use never change. */
interface Fresh {
  project: string;
  parcel: string;
  /** Linked to both the project and the parcel. */
  linked: string;
  /** Linked to nothing. */
  free: string;
}

interface Case {
  label: string;
  user: U;
  write: boolean;
  expect: Outcome;
  /** For an allowed write: the portfolio it may change (fresh records are made there first). */
  lands?: Pf;
  run: (c: Client, f: Fresh | undefined) => Promise<Res>;
  /** Problems with the answer (the outcome included). */
  verify: (r: Res, f: Fresh | undefined) => Promise<string[]> | string[];
}

// ---------- the world: the seeded records each case aims at ----------

async function loadWorld(env: TestEnv): Promise<World> {
  const db = env.database.db;
  const pf = {} as Record<Pf, PfData>;
  for (const name of PFS) {
    const org = ORG_OF[name];
    const orgId = env.demo.orgs[org].id;
    const pfId = (env.demo.orgs[org].portfolios as Record<string, string>)[name];
    // A project with both parcels and contacts, one of its parcels that has contacts.
    const { rows } = await sql<{ project: string; parcel: string; pc: string; rc: string }>`${CROSS_TENANT}
      select pp.project_id as project, pp.parcel_id as parcel,
        (select contact_id from project_contacts where project_id = pp.project_id order by contact_id limit 1) as pc,
        (select contact_id from parcel_contacts where parcel_id = pp.parcel_id order by contact_id limit 1) as rc
      from project_parcels pp
      where pp.portfolio_id = ${pfId}
        and exists (select 1 from project_contacts c where c.project_id = pp.project_id)
        and exists (select 1 from parcel_contacts c where c.parcel_id = pp.parcel_id)
      order by pp.project_id, pp.parcel_id limit 1`.execute(db);
    const t = rows[0];
    const free = await sql<{ id: string }>`${CROSS_TENANT}
      select id from contacts c where c.portfolio_id = ${pfId}
        and not exists (select 1 from project_contacts l where l.project_id = ${t.project} and l.contact_id = c.id)
        and not exists (select 1 from parcel_contacts l where l.parcel_id = ${t.parcel} and l.contact_id = c.id)
      order by id limit 1`.execute(db);
    pf[name] = {
      orgId,
      pfId,
      project: t.project,
      parcel: t.parcel,
      projectContact: t.pc,
      parcelContact: t.rc,
      freeContact: free.rows[0].id,
    };
  }
  const uid = Object.fromEntries(USERS.map((u) => [u, env.demo.users[u].uid])) as Record<Listed, string>;
  for (const g of EXTRA) {
    uid[g] = (await createUser(db, `${g}@guests.example`, g)).id;
    for (const p of GUEST_OF[g] ?? []) await grantGuest(db, env.demo.orgs[ORG_OF[p]].id, pf[p].pfId, uid[g]);
  }
  await installAudit(db);
  const recordPf = new Map<string, string | undefined>();
  for (const t of ['projects', 'parcels', 'contacts'])
    for (const r of (
      await sql<{
        id: string;
        portfolio_id: string;
      }>`${CROSS_TENANT} select id, portfolio_id from ${sql.table(t)}`.execute(db)
    ).rows)
      recordPf.set(r.id, r.portfolio_id);
  return { env, pf, orgId: { A: env.demo.orgs.A.id, B: env.demo.orgs.B.id }, uid, recordPf };
}

let freshCount = 0;
async function makeFresh(w: World, pf: Pf): Promise<Fresh> {
  const { orgId, pfId } = w.pf[pf];
  const db = w.env.database.db;
  const n = ++freshCount;
  const [project] = await bulkInsertRecords(db, 'project', orgId, pfId, [
    { properties: { name: { text: `fresh project ${n}` } } },
  ]);
  const [parcel] = await bulkInsertRecords(db, 'parcel', orgId, pfId, [
    { properties: { name: { text: `fresh parcel ${n}` } } },
  ]);
  const [linked, free] = await bulkInsertRecords(db, 'contact', orgId, pfId, [
    { properties: { first_name: { text: `linked ${n}` } } },
    { properties: { first_name: { text: `free ${n}` } } },
  ]);
  for (const id of [project, parcel, linked, free]) w.recordPf.set(id, pfId);
  await bulkLink(db, 'project_contacts', orgId, pfId, [[project, linked]]);
  await bulkLink(db, 'parcel_contacts', orgId, pfId, [[parcel, linked]]);
  return { project, parcel, linked, free };
}

/** The portfolio a record lives in, from the database (undefined when there is no such record). */
async function portfolioOfRecord(w: World, id: string): Promise<string | undefined> {
  const table = id.startsWith('prj_') ? 'projects' : id.startsWith('par_') ? 'parcels' : 'contacts';
  const { rows } = await sql<{ portfolio_id: string }>`${CROSS_TENANT}
    select portfolio_id from ${sql.table(table)} where id = ${id}`.execute(w.env.database.db);
  return rows[0]?.portfolio_id;
}

/** Records never move between portfolios, so their portfolio can be cached once known. */
async function cachedPortfolio(w: World, id: string): Promise<string | undefined> {
  if (!w.recordPf.has(id)) w.recordPf.set(id, await portfolioOfRecord(w, id));
  return w.recordPf.get(id);
}

/** Ids in an answer that the user may not see (or that exist nowhere). */
async function leakedIds(w: World, user: U, body: unknown): Promise<string[]> {
  const pfIds = new Set(READS[user].map((p) => w.pf[p].pfId));
  const orgIds = new Set(ORGS_OF_USER[user].map((o) => w.orgId[o]));
  const userIds = new Set(ORGS_OF_USER[user].flatMap((o) => seesUsers(user, o).map((u) => w.uid[u])));
  const bad: string[] = [];
  for (const id of idsIn(body)) {
    const ok = id.startsWith('org_')
      ? orgIds.has(id)
      : id.startsWith('pf_')
        ? pfIds.has(id)
        : id.startsWith('usr_')
          ? userIds.has(id)
          : pfIds.has((await cachedPortfolio(w, id)) ?? '');
    if (!ok) bad.push(id);
  }
  return bad;
}

// ---------- outcomes ----------

function restOutcome(r: Res): Outcome | string {
  if (r.status === 200) return 'ok';
  if (r.status === 403 && r.body?.error?.code === 'FORBIDDEN') return 'forbidden';
  if (r.status === 404 && r.body?.error?.code === 'NOT_FOUND') return 'notFound';
  return `${r.status} ${r.raw.slice(0, 200)}`;
}

/** A GraphQL read: null at the path (with no error) is "not found". */
function gqlReadOutcome(r: Res, path: string[]): Outcome | string {
  if (r.body?.errors) return `errors ${JSON.stringify(r.body.errors).slice(0, 200)}`;
  let v = r.body?.data;
  for (const k of path) v = v?.[k];
  return v == null ? 'notFound' : 'ok';
}

/** A GraphQL mutation: a FORBIDDEN or NOT_FOUND error, or a payload. */
function gqlMutationOutcome(r: Res, field: string): Outcome | string {
  const code = r.body?.errors?.[0]?.extensions?.code;
  if (code === 'FORBIDDEN') return 'forbidden';
  if (code === 'NOT_FOUND') return 'notFound';
  if (r.body?.errors) return `errors ${JSON.stringify(r.body.errors).slice(0, 200)}`;
  return r.body?.data?.[field] ? 'ok' : `no payload ${r.raw.slice(0, 200)}`;
}

const sameSet = (what: string, got: string[], want: string[]): string[] => {
  const a = [...got].sort();
  const b = [...want].sort();
  return JSON.stringify(a) === JSON.stringify(b)
    ? []
    : [`${what}: got ${a.length} [${a.slice(0, 5)}…], want ${b.length} [${b.slice(0, 5)}…]`];
};

const restVerify =
  (expect: Outcome, extra?: (r: Res, f?: Fresh) => Promise<string[]> | string[]) =>
  async (r: Res, f?: Fresh): Promise<string[]> => {
    const got = restOutcome(r);
    if (got !== expect) return [`expected ${expect}, got ${got}`];
    if (got !== 'ok') {
      const p = restErrorProblems(r);
      if (p.length) return p;
    }
    return got === 'ok' && extra ? extra(r, f) : [];
  };

// ---------- database facts for the checks of allowed operations ----------

async function idsOfPortfolio(w: World, kind: Kind, pfId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`${CROSS_TENANT}
    select id from ${sql.table(PLURAL[kind])} where portfolio_id = ${pfId}`.execute(w.env.database.db);
  return rows.map((r) => r.id);
}

const LINK_TABLE: Record<string, [string, string, string]> = {
  'project:contact': ['project_contacts', 'project_id', 'contact_id'],
  'contact:project': ['project_contacts', 'contact_id', 'project_id'],
  'parcel:contact': ['parcel_contacts', 'parcel_id', 'contact_id'],
  'contact:parcel': ['parcel_contacts', 'contact_id', 'parcel_id'],
  'project:parcel': ['project_parcels', 'project_id', 'parcel_id'],
  'parcel:project': ['project_parcels', 'parcel_id', 'project_id'],
};

async function linkedIds(w: World, parent: Kind, child: Kind, id: string): Promise<string[]> {
  const [t, p, c] = LINK_TABLE[`${parent}:${child}`];
  const { rows } = await sql<{ id: string }>`${CROSS_TENANT}
    select ${sql.ref(c)} as id from ${sql.table(t)} where ${sql.ref(p)} = ${id}`.execute(w.env.database.db);
  return rows.map((r) => r.id);
}

async function isLinked(w: World, parent: Kind, id: string, contact: string): Promise<boolean> {
  return (await linkedIds(w, parent, 'contact', id)).includes(contact);
}

async function propertiesOf(w: World, kind: Kind, id: string) {
  const { rows } = await sql<{ properties: Record<string, any> }>`${CROSS_TENANT}
    select properties from ${sql.table(PLURAL[kind])} where id = ${id}`.execute(w.env.database.db);
  return rows[0]?.properties;
}

// ---------- REST entries ----------

const q = (w: World, s: Scope) => ({ orgId: w.orgId[s.org], portfolioId: w.pf[s.pf].pfId });
const seeded = (w: World, pf: Pf, kind: Kind) =>
  kind === 'contact' ? w.pf[pf].projectContact : w.pf[pf][kind];
/** The record a record case aims at: seeded for refused cases, fresh (with links) for allowed ones. */
const target = (w: World, pf: Pf, kind: Kind, f?: Fresh) =>
  f ? f[kind === 'contact' ? 'linked' : kind] : seeded(w, pf, kind);
let textCount = 0;
const newText = () => `matrix ${++textCount}`;

/** For every user × portfolio × scope (own, and a lying one): the operation on a record of that portfolio. */
function recordCases(make: (user: U, pf: Pf, scope: Scope, expect: Outcome) => Case, write: boolean): Case[] {
  const out: Case[] = [];
  for (const user of USERS)
    for (const pf of PFS)
      for (const scope of [own(pf), own(LIE[pf])])
        out.push(make(user, pf, scope, expected(user, [pf], scope, write)));
  return out;
}

function restRead(
  user: U,
  label: string,
  expect: Outcome,
  url: string,
  query: Record<string, string> | undefined,
  check?: (r: Res) => Promise<string[]> | string[],
): Case {
  return {
    label,
    user,
    write: false,
    expect,
    run: (c) => c.get(url, query),
    verify: restVerify(expect, check),
  };
}

const ORG_VARIANTS = (w: World): [string, string, Org | undefined][] => [
  ['org A', w.orgId.A, 'A'],
  ['org B', w.orgId.B, 'B'],
  ['no such org', 'org_0000000000000000000000', undefined],
];

function orgScoped(w: World, url: string, check: (user: U, org: Org, r: Res) => string[]): Case[] {
  return USERS.flatMap((user) =>
    ORG_VARIANTS(w).map(([label, orgId, org]) =>
      restRead(
        user,
        `${label}`,
        org && ORGS_OF_USER[user].includes(org) ? 'ok' : 'notFound',
        url,
        { orgId },
        (r) => check(user, org!, r),
      ),
    ),
  );
}

function restList(w: World, kind: 'project' | 'contact'): Case[] {
  return USERS.flatMap((user) =>
    CREATE_SCOPES.map((s) =>
      restRead(
        user,
        `scope ${s.org}/${s.pf}`,
        expected(user, [], s, false),
        `/${PLURAL[kind]}/v1`,
        { ...q(w, s), limit: '5000' },
        async (r) =>
          sameSet(
            'items',
            r.body.items.map((i: { id: string }) => i.id),
            await idsOfPortfolio(w, kind, w.pf[s.pf].pfId),
          ),
      ),
    ),
  );
}

function restLinkList(w: World, parent: Kind, child: Kind): Case[] {
  return recordCases(
    (user, pf, scope, expect) =>
      restRead(
        user,
        `${parent} of ${pf}, scope ${scope.pf}`,
        expect,
        `/${PLURAL[parent]}/v1/${seeded(w, pf, parent)}/${PLURAL[child]}`,
        { ...q(w, scope), limit: '5000' },
        async (r) =>
          sameSet(
            'items',
            r.body.items.map((i: { id: string }) => i.id),
            await linkedIds(w, parent, child, seeded(w, pf, parent)),
          ),
      ),
    false,
  );
}

function restCreate(w: World, kind: 'project' | 'contact'): Case[] {
  return USERS.flatMap((user) =>
    CREATE_SCOPES.map((s): Case => {
      const expect = expected(user, [], s, true);
      const text = newText();
      return {
        label: `scope ${s.org}/${s.pf}`,
        user,
        write: true,
        expect,
        lands: expect === 'ok' ? s.pf : undefined,
        run: (c) => c.post(`/${PLURAL[kind]}/v1`, { properties: { [NAME_PROP[kind]]: { text } } }, q(w, s)),
        verify: restVerify(expect, async (r) =>
          (await portfolioOfRecord(w, r.body.id)) === w.pf[s.pf].pfId
            ? []
            : ['created outside its portfolio'],
        ),
      };
    }),
  );
}

function restUpdate(w: World, kind: Kind): Case[] {
  return recordCases((user, pf, scope, expect): Case => {
    const text = newText();
    return {
      label: `${kind} of ${pf}, scope ${scope.pf}`,
      user,
      write: true,
      expect,
      lands: expect === 'ok' ? pf : undefined,
      run: (c, f) =>
        c.put(
          `/${PLURAL[kind]}/v1/${target(w, pf, kind, f)}`,
          { properties: { [NAME_PROP[kind]]: { text } } },
          q(w, scope),
        ),
      verify: restVerify(expect, async (_r, f) =>
        (await propertiesOf(w, kind, target(w, pf, kind, f)))?.[NAME_PROP[kind]]?.text === text
          ? []
          : ['the update is not stored'],
      ),
    };
  }, true);
}

function restDelete(w: World, kind: 'project' | 'contact'): Case[] {
  return recordCases(
    (user, pf, scope, expect): Case => ({
      label: `${kind} of ${pf}, scope ${scope.pf}`,
      user,
      write: true,
      expect,
      lands: expect === 'ok' ? pf : undefined,
      run: (c, f) => c.delete(`/${PLURAL[kind]}/v1/${target(w, pf, kind, f)}`, q(w, scope)),
      verify: restVerify(expect, async (_r, f) =>
        (await portfolioOfRecord(w, target(w, pf, kind, f))) ? ['the record is still there'] : [],
      ),
    }),
    true,
  );
}

/** Link writes: every user × parent portfolio × contact portfolio, plus a lying scope with a same-portfolio pair. */
function linkCombos(): { user: U; pf: Pf; cpf: Pf; scope: Scope | undefined }[] {
  const out: { user: U; pf: Pf; cpf: Pf; scope: Scope | undefined }[] = [];
  for (const user of USERS)
    for (const pf of PFS) {
      for (const cpf of PFS) out.push({ user, pf, cpf, scope: own(pf) });
      out.push({ user, pf, cpf: pf, scope: own(LIE[pf]) });
    }
  return out;
}

/** The contact a link case names: for refused cases a seeded one whose state would show a wrong write. */
function linkContact(w: World, parent: 'project' | 'parcel', pf: Pf, cpf: Pf, link: boolean, f?: Fresh) {
  if (f) return link ? f.free : f.linked;
  if (pf !== cpf || link) return w.pf[cpf].freeContact;
  return parent === 'project' ? w.pf[pf].projectContact : w.pf[pf].parcelContact;
}

function restLinkWrite(w: World, parent: 'project' | 'parcel', link: boolean): Case[] {
  return linkCombos().map(({ user, pf, cpf, scope }): Case => {
    const expect = expected(user, [pf, cpf], scope, true);
    const parentId = (f?: Fresh) => (f ? f[parent] : seeded(w, pf, parent));
    return {
      label: `${parent} of ${pf}, contact of ${cpf}, scope ${scope!.pf}`,
      user,
      write: true,
      expect,
      lands: expect === 'ok' ? pf : undefined,
      run: (c, f) =>
        link
          ? c.post(
              `/${PLURAL[parent]}/v1/${parentId(f)}/contacts`,
              { contactId: linkContact(w, parent, pf, cpf, link, f) },
              q(w, scope!),
            )
          : c.delete(
              `/${PLURAL[parent]}/v1/${parentId(f)}/contacts/${linkContact(w, parent, pf, cpf, link, f)}`,
              q(w, scope!),
            ),
      verify: restVerify(expect, async (_r, f) =>
        (await isLinked(w, parent, parentId(f), linkContact(w, parent, pf, cpf, link, f))) === link
          ? []
          : [`the pair is not ${link ? 'linked' : 'unlinked'}`],
      ),
    };
  });
}

const REST_CASES: Record<string, (w: World) => Case[]> = {
  'GET /organizations/v1': (w) =>
    USERS.map((user) =>
      restRead(user, 'own organizations', 'ok', '/organizations/v1', undefined, (r) =>
        sameSet(
          'organizations',
          r.body.map((o: { id: string }) => o.id),
          ORGS_OF_USER[user].map((o) => w.orgId[o]),
        ),
      ),
    ),
  'GET /portfolios/v1': (w) =>
    orgScoped(w, '/portfolios/v1', (user, org, r) =>
      sameSet(
        'portfolios',
        r.body.map((p: { id: string }) => p.id),
        READS[user].filter((p) => ORG_OF[p] === org).map((p) => w.pf[p].pfId),
      ),
    ),
  'GET /users/v1': (w) =>
    orgScoped(w, '/users/v1', (user, org, r) =>
      sameSet(
        'users',
        r.body.map((u: { uid: string }) => u.uid),
        seesUsers(user, org).map((u) => w.uid[u]),
      ),
    ),
  ...Object.fromEntries(
    (['project', 'contact', 'parcel'] as const).map((k) => [
      `GET /${PLURAL[k]}/v1/schema`,
      (w: World) =>
        orgScoped(w, `/${PLURAL[k]}/v1/schema`, (_u, _o, r) =>
          r.body.properties.some((p: { id: string }) => p.id === NAME_PROP[k])
            ? []
            : ['schema lacks its name'],
        ),
    ]),
  ),
  'GET /projects/v1': (w) => restList(w, 'project'),
  'GET /contacts/v1': (w) => restList(w, 'contact'),
  'POST /projects/v1': (w) => restCreate(w, 'project'),
  'POST /contacts/v1': (w) => restCreate(w, 'contact'),
  'PUT /projects/v1/:id': (w) => restUpdate(w, 'project'),
  'PUT /contacts/v1/:id': (w) => restUpdate(w, 'contact'),
  'PUT /parcels/v1/:id': (w) => restUpdate(w, 'parcel'),
  'DELETE /projects/v1/:id': (w) => restDelete(w, 'project'),
  'DELETE /contacts/v1/:id': (w) => restDelete(w, 'contact'),
  'GET /projects/v1/:id/contacts': (w) => restLinkList(w, 'project', 'contact'),
  'GET /projects/v1/:id/parcels': (w) => restLinkList(w, 'project', 'parcel'),
  'GET /parcels/v1/:id/contacts': (w) => restLinkList(w, 'parcel', 'contact'),
  'GET /parcels/v1/:id/projects': (w) => restLinkList(w, 'parcel', 'project'),
  'GET /contacts/v1/:id/projects': (w) => restLinkList(w, 'contact', 'project'),
  'GET /contacts/v1/:id/parcels': (w) => restLinkList(w, 'contact', 'parcel'),
  'POST /projects/v1/:id/contacts': (w) => restLinkWrite(w, 'project', true),
  'POST /parcels/v1/:id/contacts': (w) => restLinkWrite(w, 'parcel', true),
  'DELETE /projects/v1/:id/contacts/:contactId': (w) => restLinkWrite(w, 'project', false),
  'DELETE /parcels/v1/:id/contacts/:contactId': (w) => restLinkWrite(w, 'parcel', false),
};

// ---------- GraphQL entries ----------

function gqlRead(
  user: U,
  label: string,
  query: string,
  variables: Record<string, unknown>,
  paths: [string[], Outcome][],
  check?: (r: Res) => string[],
): Case {
  return {
    label,
    user,
    write: false,
    expect: paths[0][1],
    run: (c) => c.gql(query, variables),
    verify: (r) => {
      const out: string[] = [];
      for (const [path, want] of paths) {
        const got = gqlReadOutcome(r, path);
        if (got !== want) out.push(`${path.join('.')}: expected ${want}, got ${got}`);
      }
      return out.length ? out : (check?.(r) ?? []);
    },
  };
}

function gqlMutation(
  user: U,
  label: string,
  field: string,
  expect: Outcome,
  lands: Pf | undefined,
  document: string,
  input: (f?: Fresh) => Record<string, unknown>,
  check: (r: Res, f?: Fresh) => Promise<string[]>,
): Case {
  return {
    label,
    user,
    write: true,
    expect,
    lands: expect === 'ok' ? lands : undefined,
    run: (c, f) => c.gql(document, { input: input(f) }),
    verify: async (r, f) => {
      const got = gqlMutationOutcome(r, field);
      if (got !== expect) return [`expected ${expect}, got ${got}`];
      if (got !== 'ok') return graphqlErrorProblems(r);
      return check(r, f);
    },
  };
}

const gqlScope = (w: World, s: Scope | undefined) =>
  s ? { orgId: w.orgId[s.org], portfolioId: w.pf[s.pf].pfId } : {};

/** Mutations on a record: every user × portfolio × scope (none, own, lying). */
function mutationCombos(write = true): { user: U; pf: Pf; scope: Scope | undefined; expect: Outcome }[] {
  return USERS.flatMap((user) =>
    PFS.flatMap((pf) =>
      [undefined, own(pf), own(LIE[pf])].map((scope) => ({
        user,
        pf,
        scope,
        expect: expected(user, [pf], scope, write),
      })),
    ),
  );
}

function gqlCreate(w: World, kind: 'project' | 'contact'): Case[] {
  const field = `create${TYPE[kind]}`;
  return USERS.flatMap((user) =>
    CREATE_SCOPES.map((s) => {
      const expect = expected(user, [], s, true);
      const text = newText();
      return gqlMutation(
        user,
        `scope ${s.org}/${s.pf}`,
        field,
        expect,
        s.pf,
        `mutation ($input: CreateRecordInput!) { ${field}(input: $input) { ${kind} { id portfolio { id } } } }`,
        () => ({ ...gqlScope(w, s), properties: { [NAME_PROP[kind]]: { text } } }),
        async (r) =>
          (await portfolioOfRecord(w, r.body.data[field][kind].id)) === w.pf[s.pf].pfId
            ? []
            : ['created outside its portfolio'],
      );
    }),
  );
}

function gqlUpdate(w: World, kind: Kind): Case[] {
  const field = `update${TYPE[kind]}`;
  return mutationCombos().map(({ user, pf, scope, expect }) => {
    const text = newText();
    return gqlMutation(
      user,
      `${kind} of ${pf}, scope ${scope?.pf ?? 'none'}`,
      field,
      expect,
      pf,
      `mutation ($input: UpdateRecordInput!) { ${field}(input: $input) { ${kind} { id properties portfolio { id } } } }`,
      (f) => ({
        id: target(w, pf, kind, f),
        ...gqlScope(w, scope),
        properties: { [NAME_PROP[kind]]: { text } },
      }),
      async (_r, f) =>
        (await propertiesOf(w, kind, target(w, pf, kind, f)))?.[NAME_PROP[kind]]?.text === text
          ? []
          : ['the update is not stored'],
    );
  });
}

function gqlDelete(w: World, kind: 'project' | 'contact'): Case[] {
  const field = `delete${TYPE[kind]}`;
  return mutationCombos().map(({ user, pf, scope, expect }) =>
    gqlMutation(
      user,
      `${kind} of ${pf}, scope ${scope?.pf ?? 'none'}`,
      field,
      expect,
      pf,
      `mutation ($input: DeleteRecordInput!) { ${field}(input: $input) { deletedId } }`,
      (f) => ({ id: target(w, pf, kind, f), ...gqlScope(w, scope) }),
      async (_r, f) =>
        (await portfolioOfRecord(w, target(w, pf, kind, f))) ? ['the record is still there'] : [],
    ),
  );
}

function gqlLink(w: World, parent: 'project' | 'parcel', link: boolean): Case[] {
  const T = TYPE[parent];
  const field = `${link ? 'link' : 'unlink'}${T}Contact`;
  const combos = [
    ...linkCombos().map((c) => ({ ...c, scope: c.scope?.pf === c.pf ? undefined : c.scope })),
    ...USERS.flatMap((user) => PFS.map((pf) => ({ user, pf, cpf: pf, scope: own(pf) }))),
  ];
  return combos.map(({ user, pf, cpf, scope }) => {
    const expect = expected(user, [pf, cpf], scope, true);
    const parentId = (f?: Fresh) => (f ? f[parent] : seeded(w, pf, parent));
    return gqlMutation(
      user,
      `${parent} of ${pf}, contact of ${cpf}, scope ${scope?.pf ?? 'none'}`,
      field,
      expect,
      pf,
      `mutation ($input: ${T}ContactInput!) { ${field}(input: $input) { linked contact { id ${parent}s(first: 100) { nodes { id } } } ${parent} { id contacts(first: 100) { nodes { id } } } } }`,
      (f) => ({
        [`${parent}Id`]: parentId(f),
        contactId: linkContact(w, parent, pf, cpf, link, f),
        ...gqlScope(w, scope),
      }),
      async (_r, f) =>
        (await isLinked(w, parent, parentId(f), linkContact(w, parent, pf, cpf, link, f))) === link
          ? []
          : [`the pair is not ${link ? 'linked' : 'unlinked'}`],
    );
  });
}

/** Nested reads under a record: every list it reaches, two levels deep. */
const NESTED = `
  contacts(first: 100) { totalCount nodes { id portfolio { id } projects(first: 20) { nodes { id } } parcels(first: 20) { nodes { id } } } }
  projects(first: 100) { totalCount nodes { id portfolio { id } contacts(first: 20) { nodes { id properties } } } }
  parcels(first: 100) { totalCount nodes { id portfolio { id } contacts(first: 20) { nodes { id } } } }`;
const nestedFor = (kind: Kind) =>
  NESTED.split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith(PLURAL[kind]))
    .join('\n');

function gqlById(w: World, kind: Kind): Case[] {
  // Reach the record directly, then reach a record of each portfolio through its portfolio.
  const other = kind === 'contact' ? 'project' : 'contact';
  const query = `query ($id: ID!, $other: ID!) { ${kind}(id: $id) { id properties values { propertyId }
    portfolio { id organization { id } ${other}(id: $other) { id } } ${nestedFor(kind)} } }`;
  const cases: Case[] = [];
  for (const user of USERS)
    for (const pf of PFS)
      for (const opf of PFS) {
        const mine = expected(user, [pf], undefined, false);
        cases.push(
          gqlRead(
            user,
            `${kind} of ${pf}, ${other} of ${opf} through its portfolio`,
            query,
            {
              id: seeded(w, pf, kind),
              other: kind === 'contact' ? w.pf[opf].project : w.pf[opf].freeContact,
            },
            [
              [[kind], mine],
              [[kind, 'portfolio', other], mine === 'ok' && pf === opf ? 'ok' : 'notFound'],
            ],
          ),
        );
      }
  return cases;
}

function gqlNode(w: World): Case[] {
  const targets: [string, string, (u: U) => boolean][] = [
    ...(['A', 'B'] as Org[]).map((o): [string, string, (u: U) => boolean] => [
      `org ${o}`,
      w.orgId[o],
      (u) => ORGS_OF_USER[u].includes(o),
    ]),
    ...PFS.flatMap((pf): [string, string, (u: U) => boolean][] => [
      [`portfolio ${pf}`, w.pf[pf].pfId, (u) => READS[u].includes(pf)],
      ...(['project', 'parcel'] as const).map((k): [string, string, (u: U) => boolean] => [
        `${k} of ${pf}`,
        seeded(w, pf, k),
        (u) => READS[u].includes(pf),
      ]),
      [`contact of ${pf}`, w.pf[pf].projectContact, (u) => READS[u].includes(pf)],
    ]),
    ...[...USERS, ...EXTRA].map((t): [string, string, (u: U) => boolean] => [
      `user ${t}`,
      w.uid[t],
      (u) => u === t || ORGS_OF_USER[u].some((o) => seesUsers(u, o).includes(t)),
    ]),
    ['an id of no type', 'xyz_0000000000000000000000', () => false],
    ['an absent project', 'prj_0000000000000000000000', () => false],
  ];
  const query = `query ($id: ID!) { node(id: $id) { id ... on PropertyRecord { properties portfolio { id } }
    ... on Project { ${nestedFor('project')} } ... on Contact { ${nestedFor('contact')} } ... on Parcel { ${nestedFor('parcel')} }
    ... on Organization { portfolios { id } users { id } } ... on Portfolio { organization { id } projects(first: 5) { nodes { id } } } } }`;
  return USERS.flatMap((user) =>
    targets.map(([label, id, sees]) =>
      gqlRead(user, label, query, { id }, [[['node'], sees(user) ? 'ok' : 'notFound']]),
    ),
  );
}

function gqlOrganization(w: World): Case[] {
  // organization(id) → portfolio(id) → record(id): every org × portfolio × record portfolio.
  const query = `query ($org: ID!, $pf: ID!, $prj: ID!, $par: ID!, $con: ID!) { organization(id: $org) {
    id name viewerRole portfolios { id } users { id role } propertySchema(kind: PROJECT) { properties { id } }
    portfolio(id: $pf) { id projects(first: 3) { totalCount nodes { id } } parcels(first: 3) { nodes { id } } contacts(first: 3) { nodes { id } }
      project(id: $prj) { id } parcel(id: $par) { id } contact(id: $con) { id } } } }`;
  const cases: Case[] = [];
  for (const user of USERS)
    for (const [label, orgId, org] of ORG_VARIANTS(w))
      for (const pf of PFS)
        for (const rpf of PFS) {
          const orgOk = !!org && ORGS_OF_USER[user].includes(org);
          const pfOk = orgOk && ORG_OF[pf] === org && READS[user].includes(pf);
          const recOk = pfOk && rpf === pf ? 'ok' : 'notFound';
          cases.push(
            gqlRead(
              user,
              `${label}, portfolio ${pf}, records of ${rpf}`,
              query,
              {
                org: orgId,
                pf: w.pf[pf].pfId,
                prj: w.pf[rpf].project,
                par: w.pf[rpf].parcel,
                con: w.pf[rpf].freeContact,
              },
              [
                [['organization'], orgOk ? 'ok' : 'notFound'],
                [['organization', 'portfolio'], pfOk ? 'ok' : 'notFound'],
                [['organization', 'portfolio', 'project'], recOk],
                [['organization', 'portfolio', 'parcel'], recOk],
                [['organization', 'portfolio', 'contact'], recOk],
              ],
              (r) =>
                orgOk
                  ? sameSet(
                      'portfolios',
                      r.body.data.organization.portfolios.map((p: { id: string }) => p.id),
                      READS[user].filter((p) => ORG_OF[p] === org).map((p) => w.pf[p].pfId),
                    )
                  : [],
            ),
          );
        }
  return cases;
}

const ORG_TREE = `id name viewerRole users { id } portfolios { id organization { id }
  projects(first: 60) { totalCount nodes { id properties contacts(first: 10) { nodes { id } } parcels(first: 10) { nodes { id } } } }
  contacts(first: 5) { totalCount nodes { id } } parcels(first: 5) { totalCount nodes { id } } }`;

function orgTreeCheck(w: World, user: U, orgs: { id: string; portfolios: { id: string }[] }[]): string[] {
  return [
    ...sameSet(
      'organizations',
      orgs.map((o) => o.id),
      ORGS_OF_USER[user].map((o) => w.orgId[o]),
    ),
    ...sameSet(
      'portfolios',
      orgs.flatMap((o) => o.portfolios.map((p) => p.id)),
      READS[user].map((p) => w.pf[p].pfId),
    ),
    ...sameSet(
      'users',
      orgs.flatMap((o) => (o as { users?: { id: string }[] }).users?.map((u) => u.id) ?? []),
      ORGS_OF_USER[user].flatMap((o) => seesUsers(user, o).map((u) => w.uid[u])),
    ),
  ];
}

const GQL_CASES: Record<string, (w: World) => Case[]> = {
  'Query.viewer': (w) =>
    USERS.map((user) =>
      gqlRead(
        user,
        'viewer',
        `{ viewer { user { id } organizations { ${ORG_TREE} } } }`,
        {},
        [[['viewer'], 'ok']],
        (r) => [
          ...(r.body.data.viewer.user.id === w.uid[user] ? [] : ['viewer is someone else']),
          ...orgTreeCheck(w, user, r.body.data.viewer.organizations),
        ],
      ),
    ),
  'Query.organizations': (w) =>
    USERS.map((user) =>
      gqlRead(
        user,
        'organizations',
        `{ organizations { ${ORG_TREE} } }`,
        {},
        [[['organizations'], 'ok']],
        (r) => orgTreeCheck(w, user, r.body.data.organizations),
      ),
    ),
  'Query.organization': gqlOrganization,
  'Query.node': gqlNode,
  'Query.project': (w) => gqlById(w, 'project'),
  'Query.parcel': (w) => gqlById(w, 'parcel'),
  'Query.contact': (w) => gqlById(w, 'contact'),
  'Mutation.createProject': (w) => gqlCreate(w, 'project'),
  'Mutation.createContact': (w) => gqlCreate(w, 'contact'),
  'Mutation.updateProject': (w) => gqlUpdate(w, 'project'),
  'Mutation.updateContact': (w) => gqlUpdate(w, 'contact'),
  'Mutation.updateParcel': (w) => gqlUpdate(w, 'parcel'),
  'Mutation.deleteProject': (w) => gqlDelete(w, 'project'),
  'Mutation.deleteContact': (w) => gqlDelete(w, 'contact'),
  'Mutation.linkProjectContact': (w) => gqlLink(w, 'project', true),
  'Mutation.unlinkProjectContact': (w) => gqlLink(w, 'project', false),
  'Mutation.linkParcelContact': (w) => gqlLink(w, 'parcel', true),
  'Mutation.unlinkParcelContact': (w) => gqlLink(w, 'parcel', false),
};

// ---------- the runner ----------

/** Runs the cases of one entry in order and returns every problem found, one line each. */
async function runCases(w: World, entry: string, cases: Case[]): Promise<string[]> {
  const db = w.env.database.db;
  const problems: string[] = [];
  const first = await snapshot(db);
  const writes = await auditCursor(db);
  const landed = new Set<string>();
  for (const c of cases) {
    const name = `${entry} as ${c.user}, ${c.label}`;
    let fresh: Fresh | undefined;
    if (c.write && c.expect === 'ok') {
      fresh = await makeFresh(w, c.lands!);
      landed.add(w.pf[c.lands!].pfId);
    }
    await writes();
    const r = await c.run(w.env.as[c.user], fresh);
    const found = [...(await c.verify(r, fresh))];
    const leaked = await leakedIds(w, c.user, r.body);
    if (leaked.length) found.push(`answer shows ids out of reach: ${leaked.join(', ')}`);
    if (r.status >= 500) found.push(`status ${r.status}`);
    // Every row the request inserted, updated or deleted, anywhere.
    const rows = await writes();
    const where = (a: AuditRow) => `${a.op} ${a.tbl} ${a.old_pf ?? '-'}→${a.new_pf ?? '-'}`;
    if (c.expect !== 'ok' || !c.write) {
      if (rows.length)
        found.push(`a ${c.write ? 'refused write' : 'read'} changed rows: ${rows.map(where).join(', ')}`);
    } else {
      const home = w.pf[c.lands!].pfId;
      const outside = rows.filter(
        (a) => (a.old_pf ?? home) !== home || (a.new_pf ?? home) !== home || (!a.old_pf && !a.new_pf),
      );
      if (outside.length)
        found.push(`an allowed write changed rows outside its portfolio: ${outside.map(where).join(', ')}`);
      if (!rows.length) found.push('an allowed write changed nothing');
    }
    for (const p of found) problems.push(`${name}: ${p}`);
  }
  // The same, by content: only the portfolios of allowed writes hold other rows than before.
  const diff = changed(first, await snapshot(db)).filter(
    (k) => ![...landed].some((pf) => k.endsWith(`:${pf}`)),
  );
  if (diff.length)
    problems.push(`${entry}: rows changed outside the allowed writes' portfolios: ${diff.join(', ')}`);
  return problems;
}

const restKeys = REST_ROUTES.map((r) => `${r.method} ${r.path}`);
const schema = buildSchema();
/**
 * Webhook endpoints belong to an organization, not to a portfolio, and only its owners reach them, so
 * this runner's portfolio-scoped write checks do not fit them: test/webhooks.test.ts checks every demo
 * user against them (the owner manages; a member, viewer or guest gets FORBIDDEN; another org's owner
 * NOT_FOUND, and nothing changes).
 */
const ORG_LEVEL = new Set([
  'Query.webhookEndpoint',
  'Mutation.createWebhookEndpoint',
  'Mutation.deleteWebhookEndpoint',
  'Mutation.enableWebhookEndpoint',
  // Administration (issue 42) is the organization's owners' and admins': test/admin-schema.test.ts
  // and test/admin-people.test.ts check every demo user against it the same way.
  ...[
    'createProperty',
    'renameProperty',
    'setPropertyRequired',
    'moveProperty',
    'addPropertyOption',
    'renamePropertyOption',
    'recolorPropertyOption',
    'movePropertyOption',
    'removePropertyOption',
    'mergePropertyOptions',
    'changePropertyType',
    'deleteProperty',
    'inviteUser',
    'setMemberRole',
    'removeMember',
    'grantGuestAccess',
    'revokeGuestAccess',
    'createApiKey',
    'revokeApiKey',
  ].map((m) => `Mutation.${m}`),
  // Sync (issue 40): a source is the organization's; bulk calls carry up to 1,000 items, each with
  // its own outcome, which this runner's one-record cases do not model. test/sync-upsert.test.ts and
  // test/sync-links.test.ts check every demo user against them (owner, member, viewer, guest inside
  // and outside its portfolio, another org's owner) and that a refused call writes nothing.
  'Query.recordByExternalId',
  ...[
    'registerExternalSource',
    'upsertProjects',
    'upsertContacts',
    'upsertParcels',
    'linkRecords',
    'unlinkRecords',
  ].map((m) => `Mutation.${m}`),
]);
const gqlKeys = [
  ...Object.keys(schema.getQueryType()!.getFields()).map((f) => `Query.${f}`),
  ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((f) => `Mutation.${f}`),
  // Subscriptions run over WebSocket, not through this HTTP runner: test/subscriptions.test.ts checks
  // their access (another tenant, a guest outside their portfolio, a revoked key) at subscribe and per event.
].filter((k) => !ORG_LEVEL.has(k));

let world: World | undefined;
const getWorld = async (env: TestEnv) => {
  world ??= await loadWorld(env);
  return world;
};

/** Every entry's cases cover every user, and entries that can fail for some users also succeed for others. */
function coverageProblems(entry: string, cases: Case[]): string[] {
  const out: string[] = [];
  const users = new Set(cases.map((c) => c.user));
  for (const u of USERS) if (!users.has(u)) out.push(`${entry}: no case for ${u}`);
  const outcomes = new Set(cases.map((c) => c.expect));
  if (!outcomes.has('ok')) out.push(`${entry}: no case that succeeds`);
  const global = ['GET /organizations/v1', 'Query.viewer', 'Query.organizations'];
  if (!global.includes(entry) && !outcomes.has('notFound')) out.push(`${entry}: no case out of reach`);
  if (cases.some((c) => c.write) && !outcomes.has('forbidden')) out.push(`${entry}: no read-only case`);
  return out;
}

describe.skipIf(onCitus)('tenant isolation matrix', () => {
  test('the case table covers exactly the REST routes and the root GraphQL fields', () => {
    expect(Object.keys(REST_CASES).sort()).toEqual([...restKeys].sort());
    expect(Object.keys(GQL_CASES).sort()).toEqual([...gqlKeys].sort());
  });

  test('every entry has cases for every user, allowed and refused', async ({ env }) => {
    const w = await getWorld(env);
    const problems = [...Object.entries(REST_CASES), ...Object.entries(GQL_CASES)].flatMap(([entry, gen]) =>
      coverageProblems(entry, gen(w)),
    );
    expect(problems).toEqual([]);
  });

  for (const key of restKeys) {
    test(`REST ${key}`, async ({ env }) => {
      const w = await getWorld(env);
      const gen = REST_CASES[key];
      expect(gen, `no matrix entry for ${key}`).toBeDefined();
      expect(await runCases(w, key, gen(w))).toEqual([]);
    });
  }

  for (const key of gqlKeys) {
    test(`GraphQL ${key}`, async ({ env }) => {
      const w = await getWorld(env);
      const gen = GQL_CASES[key];
      expect(gen, `no matrix entry for ${key}`).toBeDefined();
      expect(await runCases(w, key, gen(w))).toEqual([]);
    });
  }

  test('the runner itself notices a wrong outcome, a leaked id and stray writes', async ({ env }) => {
    // A matrix whose checks cannot fail proves nothing: feed the runner cases that break each rule.
    const w = await getWorld(env);
    const db = env.database.db;
    const fake = (status: number, body: unknown): Res => ({
      status,
      headers: { 'content-type': 'application/json' },
      body,
      raw: JSON.stringify(body),
      sql: 0,
    });
    const notFound = fake(404, { error: { code: 'NOT_FOUND', message: 'Project was not found.' } });
    const stray = await makeFresh(w, 'B1');
    const cases: Case[] = [
      restRead('alice', 'wrong outcome', 'notFound', '/projects/v1', q(w, own('A1'))),
      {
        ...restRead('alice', 'leak', 'ok', '/organizations/v1', undefined),
        run: async () => fake(200, [{ id: w.pf.B1.project }]),
      },
      {
        label: 'refused write that wrote',
        user: 'nora',
        write: true,
        expect: 'notFound',
        run: async () => {
          await sql`update projects set properties = '{}'::jsonb where org_id = ${w.orgId.B} and id = ${stray.project}`.execute(
            db,
          );
          return notFound;
        },
        verify: restVerify('notFound'),
      },
      {
        label: 'allowed write that wrote elsewhere',
        user: 'alice',
        write: true,
        expect: 'ok',
        lands: 'A1',
        run: async () => {
          await sql`update contacts set properties = '{}'::jsonb where org_id = ${w.orgId.B} and id = ${stray.linked}`.execute(
            db,
          );
          return fake(200, {});
        },
        verify: () => [],
      },
    ];
    const problems = (await runCases(w, 'self-test', cases)).join('\n');
    expect(problems).toContain('wrong outcome: expected notFound, got ok');
    expect(problems).toContain(`leak: answer shows ids out of reach: ${w.pf.B1.project}`);
    expect(problems).toContain('refused write that wrote: a refused write changed rows: UPDATE projects');
    expect(problems).toContain(
      'allowed write that wrote elsewhere: an allowed write changed rows outside its portfolio: UPDATE contacts',
    );
    expect(problems).toContain("self-test: rows changed outside the allowed writes' portfolios: contacts:");
  });

  test('a guest sees members, themselves and guests sharing a portfolio; not other guests, even in people values', async ({
    env,
  }) => {
    const w = await getWorld(env);
    // The rule, written out for org A: gina (guest of A1) sees gail (A1) but not gus (A2 only).
    expect(seesUsers('gina', 'A').sort()).toEqual(['alice', 'bob', 'gail', 'gina', 'vera']);
    expect(seesUsers('alice', 'A')).toEqual(ORG_USERS.A);
    // A member names gus in a record of A1, which gina reads: his e-mail and name stay hidden.
    const { project } = await makeFresh(w, 'A1');
    const put = await env.as.alice.put(
      `/projects/v1/${project}`,
      { properties: { owner: { people: [w.uid.gus] } } },
      { orgId: w.orgId.A, portfolioId: w.pf.A1.pfId },
    );
    expect(put.status).toBe(200);
    const q = `query($id: ID!) { project(id: $id) { values { ... on PeopleValue { propertyId users { id email name } } } } }`;
    const owner = async (c: Client) =>
      (await c.gql(q, { id: project })).body.data.project.values.find(
        (v: { propertyId?: string }) => v.propertyId === 'owner',
      );
    expect((await owner(env.as.alice)).users).toEqual([
      { id: w.uid.gus, email: 'gus@guests.example', name: 'gus' },
    ]);
    expect((await owner(env.as.gina)).users).toEqual([]);
    const rest = await env.as.gina.get('/projects/v1', {
      orgId: w.orgId.A,
      portfolioId: w.pf.A1.pfId,
      limit: '5000',
    });
    const item = rest.body.items.find((p: { id: string }) => p.id === project);
    expect(item.properties.owner).toEqual({ people: [w.uid.gus], labels: [w.uid.gus] });
    expect(rest.raw).not.toContain('gus@guests.example');
    const users = await env.as.gina.get('/users/v1', { orgId: w.orgId.A });
    expect(users.raw).not.toContain('gus@guests.example');
    expect(users.body.map((u: { email: string }) => u.email)).toContain('gail@guests.example');
  });

  test('without an API key every route answers 401, and GraphQL too', async ({ env }) => {
    const problems: string[] = [];
    for (const route of REST_ROUTES) {
      const url = route.path
        .replace(':id', 'prj_0000000000000000000000')
        .replace(':contactId', 'con_0000000000000000000000');
      const r = await env.as.anon.send(route.method, url, {
        query: { orgId: env.demo.orgs.A.id, portfolioId: env.demo.orgs.A.portfolios.A1 },
        body: route.body ? {} : undefined,
      });
      if (r.status !== 401 || r.body?.error?.code !== 'UNAUTHENTICATED')
        problems.push(`${route.method} ${route.path}: ${r.status}`);
    }
    const g = await env.as.anon.gql('{ organizations { id } }');
    if (g.status !== 401 || g.body?.errors?.[0]?.extensions?.code !== 'UNAUTHENTICATED')
      problems.push(`graphql: ${g.status}`);
    expect(problems).toEqual([]);
  });

  test('an id out of reach answers exactly like an id that does not exist', async ({ env }) => {
    const w = await getWorld(env);
    const absent = {
      project: 'prj_0000000000000000000000',
      parcel: 'par_0000000000000000000000',
      contact: 'con_0000000000000000000000',
    };
    const problems: string[] = [];
    // alice, in A1's scope, names B1's records; the answers must equal those for ids that never existed.
    const scope = q(w, own('A1'));
    for (const route of REST_ROUTES.filter((r) => r.path.includes(':id'))) {
      const kind = route.path.split('/')[1].replace(/s$/, '') as Kind;
      const url = (id: string) => route.path.replace(':id', id).replace(':contactId', w.pf.A1.freeContact);
      const send = (id: string) =>
        env.as.alice.send(route.method, url(id), {
          query: scope,
          body: route.body
            ? route.body.contactId
              ? { contactId: w.pf.A1.freeContact }
              : { properties: { [NAME_PROP[kind]]: { text: 'x' } } }
            : undefined,
        });
      const foreign = await send(seeded(w, 'B1', kind));
      const none = await send(absent[kind]);
      if (foreign.status !== 404 || foreign.raw !== none.raw)
        problems.push(
          `${route.method} ${route.path}: ${foreign.status} ${foreign.raw} vs ${none.status} ${none.raw}`,
        );
    }
    expect(problems).toEqual([]);
  });
});
