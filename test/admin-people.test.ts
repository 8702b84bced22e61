import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/main.js';
import type { Database } from '../src/db/database.js';
import { hashApiKey } from '../src/modules/auth/index.js';
import type { DemoOutput } from '../src/seed/demo.js';
import { openSeededDatabase } from './helpers/database.js';
import { type Client, client } from './helpers/http.js';
import { logSink } from './helpers/logs.js';

/**
 * Users, members, guests and keys over GraphQL (issue 42): who may do what, every refusal with
 * its code and message, the audit entries, the last owner (under concurrency too), and keys that
 * stop working at once when revoked.
 */

let database: Database;
let demo: DemoOutput;
let app: FastifyInstance;
let alice: Client;
let bob: Client;
let nora: Client;
let org: string;
let a1: string;
let a2: string;

beforeAll(async () => {
  ({ database, demo } = await openSeededDatabase());
  app = await buildApp({ database });
  alice = client(app, demo.users.alice.apiKey);
  bob = client(app, demo.users.bob.apiKey);
  nora = client(app, demo.users.nora.apiKey);
  org = demo.orgs.A.id;
  a1 = demo.orgs.A.portfolios.A1;
  a2 = demo.orgs.A.portfolios.A2;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const INPUT: Record<string, string> = {
  inviteUser: 'InviteUserInput',
  setMemberRole: 'SetMemberRoleInput',
  removeMember: 'RemoveMemberInput',
  grantGuestAccess: 'GuestAccessInput',
  revokeGuestAccess: 'GuestAccessInput',
  createApiKey: 'CreateApiKeyInput',
  revokeApiKey: 'RevokeApiKeyInput',
};
const SELECT: Record<string, string> = {
  inviteUser: 'user { id email name } role userCreated apiKey apiKeyId',
  setMemberRole: 'user { id } role',
  removeMember: 'userId',
  grantGuestAccess: 'user { id } portfolioId portfolioIds',
  revokeGuestAccess: 'user { id } portfolioId portfolioIds',
  createApiKey: 'apiKey id prefix userId',
  revokeApiKey: 'revokedId',
};

type Result = { data?: any; code?: string; message?: string; details?: { field: string; reason: string }[] };

async function run(c: Client, name: string, input: Record<string, unknown>): Promise<Result> {
  const r = await c.gql(`mutation ($input: ${INPUT[name]}!) { ${name}(input: $input) { ${SELECT[name]} } }`, {
    input: { organizationId: org, ...input },
  });
  const e = r.body.errors?.[0];
  return e
    ? { code: e.extensions.code, message: e.message, details: e.extensions.details }
    : { data: r.body.data[name] };
}

let n = 0;
/** Invites a new person into org A with a role; returns their id and their first key's client. */
async function invite(role: string, by = alice, extra: Record<string, unknown> = {}) {
  const r = await run(by, 'inviteUser', {
    email: `p${++n}-${Date.now()}@example.test`,
    name: `Person ${n}`,
    role,
    ...extra,
  });
  expect(r.data).toMatchObject({ userCreated: true, role });
  return {
    id: r.data.user.id as string,
    c: client(app, r.data.apiKey),
    keyId: r.data.apiKeyId as string,
    key: r.data.apiKey as string,
  };
}

const roleOf = async (userId: string) =>
  (
    await sql<{
      role: string;
    }>`select role from org_members where org_id = ${org} and user_id = ${userId}`.execute(database.db)
  ).rows[0]?.role;

const owners = async () =>
  Number(
    (
      await sql<{
        n: string;
      }>`select count(*)::text as n from org_members where org_id = ${org} and role = 'owner'`.execute(
        database.db,
      )
    ).rows[0].n,
  );

describe('who may administer', () => {
  test('members, viewers and guests get FORBIDDEN; another organization NOT_FOUND', async () => {
    for (const who of ['bob', 'vera', 'gina'] as const) {
      const r = await run(client(app, demo.users[who].apiKey), 'inviteUser', {
        email: 'x@example.test',
        name: 'X',
        role: 'MEMBER',
      });
      expect(r.code).toBe('FORBIDDEN');
      expect(r.message).toMatch(/Only owners and admins of the organization/);
    }
    expect((await run(nora, 'setMemberRole', { userId: demo.users.bob.uid, role: 'VIEWER' })).code).toBe(
      'NOT_FOUND',
    );
    const audit = await bob.gql('query ($o: ID!) { organization(id: $o) { auditLog { nodes { id } } } }', {
      o: org,
    });
    expect(audit.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await roleOf(demo.users.bob.uid)).toBe('member');
  });
});

describe('invites', () => {
  test('a new person gets a user, a membership and a first key, shown once and stored hashed', async () => {
    const p = await invite('MEMBER');
    const orgs = await p.c.get('/organizations/v1');
    expect(orgs.status).toBe(200);
    expect(JSON.stringify(orgs.body)).toContain(org);
    expect(await roleOf(p.id)).toBe('member');
    const stored = await sql<{
      key_hash: string;
    }>`select key_hash from api_keys where id = ${p.keyId}`.execute(database.db);
    expect(stored.rows[0].key_hash).toBe(hashApiKey(p.key));
    const leaks = await sql<{
      n: string;
    }>`select count(*)::text as n from change_log where org_id = ${org} and changes::text like ${`%${p.key.slice(4)}%`}`.execute(
      database.db,
    );
    expect(leaks.rows[0].n).toBe('0');
  });

  test('an existing user is invited as they are, with no key; a guest gets portfolios', async () => {
    const r = await run(alice, 'inviteUser', { email: 'nora@northwind.example', role: 'VIEWER' });
    expect(r.data).toMatchObject({ userCreated: false, apiKey: null, apiKeyId: null, role: 'VIEWER' });
    expect((await nora.get('/projects/v1', { orgId: org, portfolioId: a1, limit: 1 })).status).toBe(200);
    const g = await invite('GUEST', alice, { portfolioIds: [a2] });
    expect((await g.c.get('/projects/v1', { orgId: org, portfolioId: a2, limit: 1 })).status).toBe(200);
    expect((await g.c.get('/projects/v1', { orgId: org, portfolioId: a1, limit: 1 })).status).toBe(404);
  });

  test('two organizations inviting one new e-mail at once: one user, and never a 500', async () => {
    const email = `both-${Date.now()}@example.test`;
    const [a, b] = await Promise.all([
      run(alice, 'inviteUser', { email, name: 'Both', role: 'MEMBER' }),
      nora.gql(`mutation ($i: InviteUserInput!) { inviteUser(input: $i) { userCreated } }`, {
        i: { organizationId: demo.orgs.B.id, email, name: 'Both', role: 'MEMBER' },
      }),
    ]);
    const results = [a.data ? 'ok' : a.code, b.body.data ? 'ok' : b.body.errors[0].extensions.code];
    expect(results).toContain('ok');
    for (const r of results) expect(['ok', 'VALIDATION_FAILED']).toContain(r);
    if (b.body.errors)
      expect(b.body.errors[0].message).toMatch(/was created while this invite ran. Send the invite again/);
    if (a.code) expect(a.message).toMatch(/was created while this invite ran. Send the invite again/);
    const users = await sql<{
      n: string;
    }>`select count(*)::text as n from users where email = ${email}`.execute(database.db);
    expect(users.rows[0].n).toBe('1');
  });

  test('bad invites are refused, each saying what to do instead', async () => {
    const bad = await run(alice, 'inviteUser', { email: 'not-an-address', role: 'GUEST' });
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(bad.details).toEqual([
      { field: 'email', reason: 'must be an e-mail address like name@example.com' },
      { field: 'portfolioIds', reason: 'a guest needs at least one portfolio of the organization' },
    ]);
    const withPf = await run(alice, 'inviteUser', {
      email: 'q@example.test',
      name: 'Q',
      role: 'MEMBER',
      portfolioIds: [a1],
    });
    expect(withPf.details?.[0].reason).toMatch(/only guests are given portfolios/);
    const member = await run(alice, 'inviteUser', { email: 'bob@sunfield.example', role: 'ADMIN' });
    expect(member.message).toBe(
      'bob@sunfield.example is already a member of the organization. Change their role with setMemberRole instead.',
    );
    const nameless = await run(alice, 'inviteUser', { email: 'nobody-yet@example.test', role: 'MEMBER' });
    expect(nameless.message).toBe(
      'No user has the e-mail nobody-yet@example.test yet, so the invite must name them.',
    );
    const foreign = await run(alice, 'inviteUser', {
      email: 'g2@example.test',
      name: 'G',
      role: 'GUEST',
      portfolioIds: [demo.orgs.B.portfolios.B1],
    });
    expect(foreign.details?.[0].reason).toMatch(/no portfolio .* in this organization/);
    const none = await sql<{
      n: string;
    }>`select count(*)::text as n from users where email in ('q@example.test', 'nobody-yet@example.test', 'g2@example.test')`.execute(
      database.db,
    );
    expect(none.rows[0].n).toBe('0');
  });
});

describe('roles and the last owner', () => {
  test('an admin cannot make owners, change owners or raise their own role', async () => {
    const admin = await invite('ADMIN');
    const m = await invite('MEMBER', admin.c);
    const own = await run(admin.c, 'setMemberRole', { userId: admin.id, role: 'OWNER' });
    expect(own).toMatchObject({
      code: 'FORBIDDEN',
      message: 'Nobody can raise their own role (you are admin). Ask an owner of the organization to do it.',
    });
    const makeOwner = await run(admin.c, 'setMemberRole', { userId: m.id, role: 'OWNER' });
    expect(makeOwner.message).toMatch(/^Only owners can make someone an owner/);
    const inviteOwner = await run(admin.c, 'inviteUser', {
      email: `o-${Date.now()}@example.test`,
      name: 'O',
      role: 'OWNER',
    });
    expect(inviteOwner.code).toBe('FORBIDDEN');
    const demote = await run(admin.c, 'setMemberRole', { userId: demo.users.alice.uid, role: 'MEMBER' });
    expect(demote.message).toMatch(/^Only owners can make someone an owner or change an owner’s role/);
    const remove = await run(admin.c, 'removeMember', { userId: demo.users.alice.uid });
    expect(remove.message).toBe('Only owners can remove an owner. Ask an owner of the organization.');
    expect((await run(admin.c, 'setMemberRole', { userId: m.id, role: 'VIEWER' })).data.role).toBe('VIEWER');
    expect(await roleOf(m.id)).toBe('viewer');
    // Lowering one's own role is allowed; then the old role's powers are gone at once.
    expect((await run(admin.c, 'setMemberRole', { userId: admin.id, role: 'MEMBER' })).data.role).toBe(
      'MEMBER',
    );
    expect((await run(admin.c, 'setMemberRole', { userId: m.id, role: 'MEMBER' })).code).toBe('FORBIDDEN');
    const guest = await run(alice, 'setMemberRole', { userId: m.id, role: 'GUEST' });
    expect(guest.details?.[0].reason).toMatch(/invite them as a guest with portfolioIds/);
    const notMember = await run(alice, 'removeMember', { userId: demo.users.gina.uid });
    expect(notMember).toMatchObject({
      code: 'NOT_FOUND',
      message: `User ${demo.users.gina.uid} is not a member of the organization; there is nothing to remove.`,
    });
    const stranger = await run(alice, 'setMemberRole', { userId: demo.users.gina.uid, role: 'MEMBER' });
    expect(stranger).toMatchObject({
      code: 'NOT_FOUND',
      message: `User ${demo.users.gina.uid} is not a member of the organization. Invite them with inviteUser first.`,
    });
  });

  test('the last owner can be neither demoted nor removed, and says how to go on', async () => {
    expect(await owners()).toBe(1);
    const demote = await run(alice, 'setMemberRole', { userId: demo.users.alice.uid, role: 'ADMIN' });
    expect(demote).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `User ${demo.users.alice.uid} is the organization's last owner, so they cannot be made admin. Make another member an owner first (setMemberRole), then try again.`,
    });
    const remove = await run(alice, 'removeMember', { userId: demo.users.alice.uid });
    expect(remove.message).toMatch(/last owner, so they cannot be removed/);
    expect(await roleOf(demo.users.alice.uid)).toBe('owner');
  });

  test('two owners demoting each other at once: one wins, the organization keeps an owner', async () => {
    const second = await invite('OWNER');
    expect(await owners()).toBe(2);
    const [x, y] = await Promise.all([
      run(alice, 'setMemberRole', { userId: second.id, role: 'ADMIN' }),
      run(second.c, 'setMemberRole', { userId: demo.users.alice.uid, role: 'ADMIN' }),
    ]);
    expect([x, y].filter((r) => r.data)).toHaveLength(1);
    const refused = [x, y].find((r) => !r.data)!;
    expect(['VALIDATION_FAILED', 'FORBIDDEN']).toContain(refused.code);
    expect(await owners()).toBe(1);
    // Put alice back as the one owner, for the tests after this one.
    const winner = (await roleOf(demo.users.alice.uid)) === 'owner' ? alice : second.c;
    if (winner !== alice) {
      await run(second.c, 'setMemberRole', { userId: demo.users.alice.uid, role: 'OWNER' });
      await run(alice, 'removeMember', { userId: second.id });
    } else await run(alice, 'removeMember', { userId: second.id });
    expect(await owners()).toBe(1);
  });

  test('two owners removing each other at once: the second removal is refused', async () => {
    const second = await invite('OWNER');
    const [x, y] = await Promise.all([
      run(alice, 'removeMember', { userId: second.id }),
      run(second.c, 'removeMember', { userId: demo.users.alice.uid }),
    ]);
    expect([x, y].filter((r) => r.data)).toHaveLength(1);
    expect(await owners()).toBe(1);
    if ((await roleOf(demo.users.alice.uid)) !== 'owner') {
      // alice was removed: the second owner invites her back as an owner and leaves.
      await run(second.c, 'inviteUser', { email: 'alice@sunfield.example', role: 'OWNER' });
      await run(alice, 'removeMember', { userId: second.id });
    }
    expect(await roleOf(demo.users.alice.uid)).toBe('owner');
  });
});

describe('guests', () => {
  test('grant and revoke a portfolio; the guest reaches it at once, then not', async () => {
    const g = await invite('GUEST', alice, { portfolioIds: [a1] });
    expect((await g.c.get('/projects/v1', { orgId: org, portfolioId: a2, limit: 1 })).status).toBe(404);
    const granted = await run(alice, 'grantGuestAccess', { portfolioId: a2, userId: g.id });
    expect(granted.data).toEqual({ user: { id: g.id }, portfolioId: a2, portfolioIds: [a1, a2].sort() });
    expect((await g.c.get('/projects/v1', { orgId: org, portfolioId: a2, limit: 1 })).status).toBe(200);
    const revoked = await run(alice, 'revokeGuestAccess', { portfolioId: a2, userId: g.id });
    expect(revoked.data.portfolioIds).toEqual([a1]);
    expect((await g.c.get('/projects/v1', { orgId: org, portfolioId: a2, limit: 1 })).status).toBe(404);
    const again = await run(alice, 'revokeGuestAccess', { portfolioId: a2, userId: g.id });
    expect(again).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/is not a guest of portfolio/),
    });
    const member = await run(alice, 'grantGuestAccess', { portfolioId: a2, userId: demo.users.bob.uid });
    expect(member.message).toMatch(/is a member of the organization and reaches every portfolio already/);
    const foreign = await run(alice, 'grantGuestAccess', {
      portfolioId: demo.orgs.B.portfolios.B1,
      userId: g.id,
    });
    expect(foreign.code).toBe('NOT_FOUND');
  });
});

describe('keys', () => {
  test('a key made for a member works; revoked, it gets 401 at once; revoking again is NOT_FOUND', async () => {
    const k = await run(alice, 'createApiKey', { userId: demo.users.bob.uid, label: 'laptop' });
    expect(k.data).toMatchObject({ userId: demo.users.bob.uid, apiKey: expect.stringMatching(/^sdg_/) });
    const c = client(app, k.data.apiKey);
    expect((await c.get('/organizations/v1')).status).toBe(200);
    expect((await run(alice, 'revokeApiKey', { id: k.data.id })).data).toEqual({ revokedId: k.data.id });
    const after = await c.get('/organizations/v1');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHENTICATED');
    const again = await run(alice, 'revokeApiKey', { id: k.data.id });
    expect(again).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/No live API key has that id/),
    });
  });

  test('the secret of a key reaches no log line, at the most detailed level', async () => {
    const sink = logSink('trace');
    const logged = await buildApp({ database, logger: sink.logger });
    try {
      const c = client(logged, demo.users.alice.apiKey);
      const k = await run(c, 'createApiKey', { label: 'logged?' });
      const invited = await run(c, 'inviteUser', {
        email: `l-${Date.now()}@example.test`,
        name: 'L',
        role: 'VIEWER',
      });
      expect(sink.lines.length).toBeGreaterThan(0);
      const text = JSON.stringify(sink.lines);
      for (const secret of [k.data.apiKey, invited.data.apiKey]) expect(text).not.toContain(secret.slice(4));
    } finally {
      await logged.close();
    }
  });

  test('keys of users beyond the caller are refused: other organizations, owners, admin keys', async () => {
    // nora belongs to org B, which alice does not manage (nora was invited into A above).
    const foreign = await run(alice, 'createApiKey', { userId: demo.users.nora.uid });
    expect(foreign.code).toBe('FORBIDDEN');
    expect(foreign.message).toMatch(/only they \(or the command line\) can make or revoke it/);
    const admin = await invite('ADMIN');
    const ofOwner = await run(admin.c, 'createApiKey', { userId: demo.users.alice.uid });
    expect(ofOwner.code).toBe('FORBIDDEN');
    const adminKey = await run(alice, 'createApiKey', { admin: true });
    expect(adminKey.message).toBe(
      'Only an admin key can make an admin key. Leave admin out, or make it with sdg key create --admin.',
    );
    const aliceKey = await sql<{
      id: string;
    }>`select id from api_keys where key_hash = ${hashApiKey(demo.users.alice.apiKey)}`.execute(database.db);
    const fromB = await nora.gql(
      'mutation ($i: RevokeApiKeyInput!) { revokeApiKey(input: $i) { revokedId } }',
      {
        i: { organizationId: demo.orgs.B.id, id: aliceKey.rows[0].id },
      },
    );
    expect(fromB.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await alice.get('/organizations/v1')).status).toBe(200);
  });
});

describe('the audit', () => {
  test('every change is an entry: who, what, to whom, when; the CLI too; none in the portfolio feed', async () => {
    const p = await invite('VIEWER');
    await run(alice, 'setMemberRole', { userId: p.id, role: 'MEMBER' });
    const out: string[] = [];
    const code = await runCli(
      ['member', 'add', '--org', org, '--user', p.id, '--role', 'admin'],
      { out: (s) => out.push(s), err: () => {} },
      database,
    );
    expect(code).toBe(0);
    const r = await alice.gql(
      `query ($o: ID!) { organization(id: $o) { auditLog(first: 3) { nodes { action subjectUserId userId apiKeyId source at details } } } }`,
      { o: org },
    );
    const [cli, role, invited] = r.body.data.organization.auditLog.nodes;
    expect(cli).toMatchObject({
      action: 'ROLE',
      subjectUserId: p.id,
      userId: null,
      source: 'CLI',
      details: { before: 'member', after: 'admin' },
    });
    expect(role).toMatchObject({
      action: 'ROLE',
      userId: demo.users.alice.uid,
      apiKeyId: expect.stringMatching(/^key_/),
      source: 'API',
      details: { before: 'viewer', after: 'member' },
    });
    expect(invited).toMatchObject({
      action: 'INVITE',
      details: { role: 'viewer', userCreated: true, keyId: p.keyId },
    });
    expect(new Date(invited.at).getTime()).toBeLessThanOrEqual(new Date(role.at).getTime());
    // A schema change after them marks the point the feed must reach: once it shows, the
    // administration entries before it would show too, if the feed let them in.
    const mark = `mark_${Date.now()}`;
    const made = await alice.gql(
      'mutation ($i: CreatePropertyInput!) { createProperty(input: $i) { property { id } } }',
      { i: { organizationId: org, kind: 'CONTACT', id: mark, name: 'Mark', type: 'TEXT' } },
    );
    expect(made.body.errors).toBeUndefined();
    await vi.waitFor(
      async () => {
        const feed = await alice.gql(
          `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) { changes(first: 5000) { nodes { recordId } } } } }`,
          { o: org, p: a1 },
        );
        const ids = feed.body.data.organization.portfolio.changes.nodes.map(
          (c: { recordId: string }) => c.recordId,
        );
        expect(ids).toContain(mark);
        expect(ids).not.toContain(p.id);
      },
      { timeout: 15_000, interval: 200 },
    );
  });

  test('a key the CLI makes is audited in every organization of its user', async () => {
    const code = await runCli(
      ['key', 'create', '--user', 'nora@northwind.example'],
      { out: () => {}, err: () => {} },
      database,
    );
    expect(code).toBe(0);
    for (const [c, o] of [
      [alice, org],
      [nora, demo.orgs.B.id],
    ] as const) {
      const r = await c.gql(
        'query ($o: ID!) { organization(id: $o) { auditLog(first: 1) { nodes { action subjectUserId source details } } } }',
        { o },
      );
      expect(r.body.data.organization.auditLog.nodes[0]).toMatchObject({
        action: 'KEY_CREATE',
        subjectUserId: demo.users.nora.uid,
        source: 'CLI',
        details: { keyId: expect.stringMatching(/^key_/), prefix: expect.stringMatching(/^sdg_/) },
      });
    }
  });

  test('the CLI refuses to demote the last owner too', async () => {
    const err: string[] = [];
    const code = await runCli(
      ['member', 'add', '--org', org, '--user', 'alice@sunfield.example', '--role', 'member'],
      { out: () => {}, err: (s) => err.push(s) },
      database,
    );
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/last owner/);
    expect(await roleOf(demo.users.alice.uid)).toBe('owner');
  });
});
