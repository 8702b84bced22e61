import type { Kysely } from 'kysely';
import type { Context } from '../../context.js';
import { inTransaction } from '../../db/transaction.js';
import type { DB, OrgRole } from '../../db/types.js';
import { AppError, notFound } from '../../errors.js';
import { forwardConnection, forwardSize } from '../../pagination/connection.js';
import {
  type AccessRole,
  type CreatedKey,
  createApiKey,
  findApiKey,
  revokeApiKey,
  type Viewer,
} from '../auth/index.js';
import { type Actor, actorOf, auditPage, CLI_ACTOR, writeLogged } from '../changes/index.js';
import * as repo from './repository.js';
import type { UserModel } from './types.js';

/**
 * People and keys of an organization, managed by its owners and admins (over GraphQL) or by the
 * command line. Each change is one transaction with its audit entry (change log, kind `access`).
 *
 * Rules (docs/admin.md): an owner or admin manages; an admin can neither make nor change an owner;
 * nobody raises their own role; an organization always keeps an owner: membership changes take
 * the organization's membership lock first and count the owners under it, so two concurrent
 * demotions of two owners cannot both pass. The command line has every power but the last rule.
 */

/** Who asks: an API caller (their viewer), or the command line. */
export type By = { viewer: Viewer } | 'cli';

export const ROLES: readonly OrgRole[] = ['owner', 'admin', 'member', 'viewer'];
const RANK: Record<OrgRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
const MANAGERS: ReadonlySet<AccessRole> = new Set(['owner', 'admin']);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const actorOfBy = (by: By): Actor => (by === 'cli' ? CLI_ACTOR : actorOf(by));

/**
 * One administration transaction, run again (up to three times in all) when the database cancels
 * it as a deadlock's victim: on Citus, users, memberships, guest grants and keys are reference
 * tables, and two transactions that write several of them can deadlock across nodes. Nothing of a
 * cancelled attempt stays, so running it again is safe. Inside a caller's transaction it runs once.
 */
async function transaction<T>(db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(db, work);
    } catch (err) {
      if (db.isTransaction || attempt >= 3 || (err as { code?: string }).code !== '40P01') throw err;
    }
  }
}

const managersOnly = () =>
  new AppError(
    'FORBIDDEN',
    'Only owners and admins of the organization can manage its people, keys and property schema. Ask an owner to make you an admin.',
  );

/**
 * The one access check of administration over the API: an owner or admin of `orgId` passes;
 * members, viewers and guests get FORBIDDEN; anyone else NOT_FOUND, as if the organization did not exist.
 */
export function requireManager(viewer: Viewer, orgId: string): OrgRole {
  const role = viewer.roleIn(orgId);
  if (role === undefined) throw notFound('Organization');
  if (!MANAGERS.has(role)) throw managersOnly();
  return role as OrgRole;
}

/** The caller's role as it is now, inside the membership lock: their key's view may be older. */
async function callerRole(tx: Kysely<DB>, by: By, orgId: string): Promise<OrgRole> {
  if (by === 'cli') return 'owner';
  const role = await repo.memberRole(tx, orgId, by.viewer.userId);
  if (!role || !MANAGERS.has(role)) throw managersOnly();
  return role;
}

async function audit(
  tx: Kysely<DB>,
  by: By,
  orgId: string,
  subjectId: string,
  changes: Record<string, unknown>,
): Promise<void> {
  await writeLogged(tx, {
    orgId,
    actor: actorOfBy(by),
    entries: [{ kind: 'access', op: 'access', recordId: subjectId, portfolioId: null, changes }],
  });
}

function checkRole(role: string, field = 'role'): OrgRole {
  if (!ROLES.includes(role as OrgRole))
    throw new AppError('VALIDATION_FAILED', `"${role}" is not an organization role.`, [
      {
        field,
        reason: `use one of ${ROLES.join(', ')}; to let someone reach single portfolios, invite them as a guest with portfolioIds`,
      },
    ]);
  return role as OrgRole;
}

/** The refusals of a role change, in the order a caller can act on them. */
function checkRoleChange(by: By, byRole: OrgRole, userId: string, from: OrgRole | undefined, to: OrgRole) {
  if (by !== 'cli' && by.viewer.userId === userId && from && RANK[to] > RANK[from])
    throw new AppError(
      'FORBIDDEN',
      `Nobody can raise their own role (you are ${from}). Ask an owner of the organization to do it.`,
    );
  if (byRole !== 'owner' && (to === 'owner' || from === 'owner'))
    throw new AppError(
      'FORBIDDEN',
      'Only owners can make someone an owner or change an owner’s role. Ask an owner of the organization.',
    );
}

/** Refuses a change that would leave the organization without an owner (called under the lock). */
async function keepAnOwner(tx: Kysely<DB>, orgId: string, userId: string, what: string) {
  if ((await repo.countOwners(tx, orgId)) <= 1)
    throw new AppError(
      'VALIDATION_FAILED',
      `User ${userId} is the organization's last owner, so they cannot be ${what}. Make another member an owner first (setMemberRole), then try again.`,
      [{ field: 'userId', reason: 'an organization must keep at least one owner' }],
    );
}

export interface MemberResult {
  user: UserModel;
  role: OrgRole;
}

/**
 * Sets a member's role, or (with `add`, the CLI's `member add`) makes a user a member with it.
 * Setting the role a member already has changes and logs nothing.
 */
export function setMemberRole(
  db: Kysely<DB>,
  by: By,
  orgId: string,
  userId: string,
  role: string,
  opts: { add?: boolean } = {},
): Promise<MemberResult> {
  const to = checkRole(role);
  return transaction(db, async (tx) => {
    await repo.lockMemberships(tx, orgId);
    const byRole = await callerRole(tx, by, orgId);
    const user = await repo.findUser(tx, userId);
    const from = user && (await repo.memberRole(tx, orgId, user.id));
    if (!user || (!from && !opts.add))
      throw new AppError(
        'NOT_FOUND',
        `User ${userId} is not a member of the organization. Invite them with inviteUser first.`,
      );
    checkRoleChange(by, byRole, user.id, from, to);
    if (from === to) return { user, role: to };
    if (from === 'owner') await keepAnOwner(tx, orgId, user.id, `made ${to}`);
    await repo.addMember(tx, orgId, user.id, to);
    await audit(tx, by, orgId, user.id, { action: from ? 'role' : 'add', before: from ?? null, after: to });
    return { user, role: to };
  });
}

/** Removes a member from the organization (their guest grants, if any, stay). */
export function removeMember(db: Kysely<DB>, by: By, orgId: string, userId: string): Promise<string> {
  return transaction(db, async (tx) => {
    await repo.lockMemberships(tx, orgId);
    const byRole = await callerRole(tx, by, orgId);
    const from = await repo.memberRole(tx, orgId, userId);
    if (!from)
      throw new AppError(
        'NOT_FOUND',
        `User ${userId} is not a member of the organization; there is nothing to remove.`,
      );
    if (byRole !== 'owner' && from === 'owner')
      throw new AppError('FORBIDDEN', 'Only owners can remove an owner. Ask an owner of the organization.');
    if (from === 'owner') await keepAnOwner(tx, orgId, userId, 'removed');
    await repo.deleteMember(tx, orgId, userId);
    await audit(tx, by, orgId, userId, { action: 'remove', before: from, after: null });
    return userId;
  });
}

export interface InviteInput {
  email: string;
  name?: string | null;
  role: AccessRole;
  portfolioIds?: readonly string[] | null;
}

export interface InviteResult {
  user: UserModel;
  role: AccessRole;
  /** Whether the invite created the user (then `key` is their first key). */
  created: boolean;
  key: CreatedKey | null;
}

/**
 * Invites a person: there is no e-mail to send, so an invite makes the user (when the e-mail is
 * new) and their membership or guest grants at once, and answers a first API key for a new user,
 * shown once, for the inviter to hand over. An existing user keeps their keys and gets none.
 */
export function inviteUser(db: Kysely<DB>, by: By, orgId: string, input: InviteInput): Promise<InviteResult> {
  const email = input.email.trim();
  const problems = [];
  if (!EMAIL.test(email) || email.length > 254)
    problems.push({ field: 'email', reason: 'must be an e-mail address like name@example.com' });
  const guest = input.role === 'guest';
  if (guest && !input.portfolioIds?.length)
    problems.push({
      field: 'portfolioIds',
      reason: 'a guest needs at least one portfolio of the organization',
    });
  if (!guest && input.portfolioIds?.length)
    problems.push({
      field: 'portfolioIds',
      reason:
        'only guests are given portfolios; members reach every portfolio (leave portfolioIds out, or use role GUEST)',
    });
  if (problems.length) throw new AppError('VALIDATION_FAILED', 'The invite is invalid.', problems);
  const role = guest ? 'guest' : checkRole(input.role);
  return transaction(db, async (tx) => {
    await repo.lockMemberships(tx, orgId);
    const byRole = await callerRole(tx, by, orgId);
    let user = await repo.findUser(tx, email);
    const member = user && (await repo.memberRole(tx, orgId, user.id));
    if (member)
      throw new AppError(
        'VALIDATION_FAILED',
        `${email} is already ${member === 'owner' || member === 'admin' ? 'an' : 'a'} ${member} of the organization. Change their role with setMemberRole instead.`,
        [{ field: 'email', reason: 'already a member' }],
      );
    if (role !== 'guest') checkRoleChange(by, byRole, user?.id ?? '', undefined, role);
    const portfolios = new Set((await repo.listPortfolios(tx, orgId)).map((p) => p.id));
    const unknown = (input.portfolioIds ?? []).filter((p) => !portfolios.has(p));
    if (unknown.length)
      throw new AppError('VALIDATION_FAILED', 'Some portfolios are not in the organization.', [
        {
          field: 'portfolioIds',
          reason: `no portfolio ${unknown.join(', ')} in this organization; list them with organization { portfolios { id } }`,
        },
      ]);
    const created = !user;
    if (!user) {
      const name = input.name?.trim();
      if (!name)
        throw new AppError(
          'VALIDATION_FAILED',
          `No user has the e-mail ${email} yet, so the invite must name them.`,
          [{ field: 'name', reason: 'give the new person’s name' }],
        );
      try {
        user = await repo.createUser(tx, email, name);
      } catch (err) {
        // Another organization's invite made the same user a moment ago (its e-mail is unique).
        if ((err as { code?: string }).code === '23505')
          throw new AppError(
            'VALIDATION_FAILED',
            `A user with the e-mail ${email} was created while this invite ran. Send the invite again: it will invite that user.`,
            [{ field: 'email', reason: 'created concurrently; retry' }],
          );
        throw err;
      }
    }
    if (role === 'guest') for (const p of input.portfolioIds!) await repo.grantGuest(tx, orgId, p, user.id);
    else await repo.addMember(tx, orgId, user.id, role);
    const key = created ? await createApiKey(tx, user.id, `invited to ${orgId}`) : null;
    await audit(tx, by, orgId, user.id, {
      action: 'invite',
      email,
      role,
      portfolioIds: role === 'guest' ? [...input.portfolioIds!] : null,
      userCreated: created,
      keyId: key?.id ?? null,
    });
    return { user, role, created, key };
  });
}

export interface GuestResult {
  user: UserModel;
  portfolioId: string;
  /** The portfolios the user is a guest of now. */
  portfolioIds: string[];
}

async function guestTarget(tx: Kysely<DB>, orgId: string, portfolioId: string, userId: string) {
  const portfolios = await repo.listPortfolios(tx, orgId, new Set([portfolioId]));
  if (!portfolios.length) throw notFound('Portfolio');
  const user = await repo.findUser(tx, userId);
  if (!user || user.id !== userId) throw notFound('User');
  return user;
}

/** Lets a user reach one more portfolio as a guest; granting a granted portfolio changes nothing. */
export function grantGuestAccess(
  db: Kysely<DB>,
  by: By,
  orgId: string,
  portfolioId: string,
  userId: string,
): Promise<GuestResult> {
  return transaction(db, async (tx) => {
    await repo.lockMemberships(tx, orgId);
    await callerRole(tx, by, orgId);
    const user = await guestTarget(tx, orgId, portfolioId, userId);
    const member = await repo.memberRole(tx, orgId, user.id);
    if (member)
      throw new AppError(
        'VALIDATION_FAILED',
        `${user.email} is a ${member} of the organization and reaches every portfolio already. To limit them to some portfolios, remove them (removeMember) and grant those.`,
        [{ field: 'userId', reason: 'already a member' }],
      );
    const before = await repo.guestPortfolioIds(tx, orgId, user.id);
    if (!before.includes(portfolioId)) {
      await repo.grantGuest(tx, orgId, portfolioId, user.id);
      await audit(tx, by, orgId, user.id, { action: 'guest_grant', portfolioId });
    }
    return { user, portfolioId, portfolioIds: [...new Set([...before, portfolioId])].sort() };
  });
}

/** Takes a portfolio back from a guest; their last one leaves them outside the organization. */
export function revokeGuestAccess(
  db: Kysely<DB>,
  by: By,
  orgId: string,
  portfolioId: string,
  userId: string,
): Promise<GuestResult> {
  return transaction(db, async (tx) => {
    await repo.lockMemberships(tx, orgId);
    await callerRole(tx, by, orgId);
    const user = await guestTarget(tx, orgId, portfolioId, userId);
    if (!(await repo.revokeGuest(tx, orgId, portfolioId, user.id)))
      throw new AppError(
        'NOT_FOUND',
        `User ${user.id} is not a guest of portfolio ${portfolioId}; their grants are in organization { users { guestOf } }.`,
      );
    await audit(tx, by, orgId, user.id, { action: 'guest_revoke', portfolioId });
    return { user, portfolioId, portfolioIds: await repo.guestPortfolioIds(tx, orgId, user.id) };
  });
}

/**
 * Whether the API caller may make or revoke keys of `userId`: their own always; another user's only
 * when the caller manages every organization that user reaches (a key works in all of them), and
 * owns those where the user is an owner (else an admin could act as an owner).
 */
async function mayManageKeysOf(
  tx: Kysely<DB>,
  by: By,
  orgId: string,
  userId: string,
  what: string,
): Promise<void> {
  const orgs = await repo.userOrgRoles(tx, userId);
  if (!orgs.has(orgId)) throw notFound(what);
  if (by === 'cli' || by.viewer.userId === userId) return;
  for (const [org, role] of orgs) {
    const mine = await repo.memberRole(tx, org, by.viewer.userId);
    if (!mine || !MANAGERS.has(mine) || (role === 'owner' && mine !== 'owner'))
      throw new AppError(
        'FORBIDDEN',
        `A key of user ${userId} would act for them in ${org === orgId ? 'this organization as an owner' : 'an organization you do not manage'}, so only they (or the command line) can make or revoke it. Ask them to create their own key.`,
      );
  }
}

/**
 * Makes an API key for a user; the secret is in the answer only, stored as its hash and never
 * logged. The audit entry goes to every organization the user reaches (the key works in each); the
 * API caller must manage them all (mayManageKeysOf). Over the API, only an admin key makes an admin key.
 */
export function createUserKey(
  db: Kysely<DB>,
  by: By,
  orgId: string | null,
  userId: string,
  opts: { label?: string | null; admin?: boolean | null } = {},
): Promise<CreatedKey> {
  if (opts.admin && by !== 'cli' && !by.viewer.admin)
    throw new AppError(
      'FORBIDDEN',
      'Only an admin key can make an admin key. Leave admin out, or make it with sdg key create --admin.',
    );
  return transaction(db, async (tx) => {
    if (orgId) {
      await callerRole(tx, by, orgId);
      await mayManageKeysOf(tx, by, orgId, userId, 'User');
    }
    const key = await createApiKey(tx, userId, opts.label ?? undefined, { admin: opts.admin === true });
    for (const org of (await repo.userOrgRoles(tx, userId)).keys())
      await audit(tx, by, org, userId, {
        action: 'key_create',
        keyId: key.id,
        prefix: key.prefix,
        label: opts.label ?? null,
        admin: opts.admin === true,
      });
    return key;
  });
}

/** Revokes a live key (by id, or the key itself from the CLI); the next request with it gets 401. */
export function revokeUserKey(
  db: Kysely<DB>,
  by: By,
  orgId: string | null,
  idOrKey: string,
): Promise<{ id: string; userId: string }> {
  return transaction(db, async (tx) => {
    if (orgId) await callerRole(tx, by, orgId);
    const key = await findApiKey(tx, idOrKey);
    if (!key || key.revoked)
      throw new AppError(
        'NOT_FOUND',
        'No live API key has that id. Pass the key id (key_…); a revoked key stays revoked.',
      );
    if (orgId) await mayManageKeysOf(tx, by, orgId, key.userId, 'API key');
    await revokeApiKey(tx, key.id);
    for (const org of (await repo.userOrgRoles(tx, key.userId)).keys())
      await audit(tx, by, org, key.userId, { action: 'key_revoke', keyId: key.id, prefix: key.prefix });
    return { id: key.id, userId: key.userId };
  });
}

/** The API's side: the caller must be an owner or admin of the organization (requireManager). */
export const byViewer = (ctx: Context, orgId: string): By => {
  requireManager(ctx.viewer, orgId);
  return { viewer: ctx.viewer };
};

/** The organization's administration entries, newest first (owners and admins). */
export async function auditLog(
  ctx: Context,
  orgId: string,
  args: { first?: number | null; after?: string | null },
) {
  requireManager(ctx.viewer, orgId);
  const n = forwardSize(args.first);
  const scope = `audit:${orgId}`;
  let before: { tx: string; seq: string } | undefined;
  if (args.after != null) {
    const [tx, seq] = ctx.cursors.decode(scope, args.after, 2) as string[];
    if (!/^\d{1,20}$/.test(String(tx)) || !/^\d{1,20}$/.test(String(seq)))
      throw new AppError('INVALID_CURSOR', 'The cursor is malformed.');
    before = { tx: String(tx), seq: String(seq) };
  }
  const rows = n ? await auditPage(ctx.db, orgId, n + 1, before) : [];
  const page = forwardConnection(rows, n, args.after, (e) => ctx.cursors.encode(scope, [e.tx, e.seq]));
  return {
    pageInfo: page.pageInfo,
    nodes: page.edges.map(({ node: e }) => {
      const { action, ...details } = e.changes as { action: string };
      return {
        id: `chg_${e.seq}`,
        action: action.toUpperCase() as AuditActionName,
        subjectUserId: e.subjectId,
        userId: e.userId,
        apiKeyId: e.keyId,
        source: e.source,
        at: e.at,
        details,
      };
    }),
  };
}

type AuditActionName =
  | 'INVITE'
  | 'ADD'
  | 'ROLE'
  | 'REMOVE'
  | 'GUEST_GRANT'
  | 'GUEST_REVOKE'
  | 'KEY_CREATE'
  | 'KEY_REVOKE';
