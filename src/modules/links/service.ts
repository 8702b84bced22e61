import type { Context } from '../../context.js';
import { AppError, notFound } from '../../errors.js';
import { actorOf, ringChanges } from '../changes/index.js';
import { assertCanWrite, findRecord, type RecordModel, requireRecord, type Scope } from '../records/index.js';
import * as repo from './repository.js';

export interface ContactLinkInput extends Scope {
  parentId: string;
  contactId: unknown;
}

const PARENT = { project_contacts: 'project', parcel_contacts: 'parcel' } as const;

/**
 * Link or unlink a contact and a project/parcel. Order of checks: the parent must be reachable (404),
 * the contactId well-formed (400) and in the same portfolio (404), then the role must allow writes (403).
 */
export async function setContactLink(
  ctx: Context,
  table: repo.ContactLinkTable,
  input: ContactLinkInput,
  linked: boolean,
): Promise<{ parent: RecordModel; contact: RecordModel; linked: boolean }> {
  const parent = await requireRecord(ctx, PARENT[table], input.parentId, input);
  if (typeof input.contactId !== 'string' || input.contactId.trim() === '') {
    throw new AppError('VALIDATION_FAILED', 'contactId must be a non-empty string.', [
      { field: 'contactId', reason: 'must be a non-empty string, the id of a contact in the same portfolio' },
    ]);
  }
  const contact = await findRecord(ctx, 'contact', input.contactId);
  if (!contact || contact.orgId !== parent.orgId || contact.portfolioId !== parent.portfolioId)
    throw notFound('Contact');
  assertCanWrite(ctx, parent.orgId, linked ? 'link records' : 'unlink records');
  const key = {
    orgId: parent.orgId,
    portfolioId: parent.portfolioId,
    parentId: parent.id,
    contactId: contact.id,
  };
  // A side deleted since it was read: the link's foreign keys refuse it.
  if (linked && !(await repo.link(ctx.db, table, key, actorOf(ctx)))) throw notFound('Record');
  if (!linked) await repo.unlink(ctx.db, table, key, actorOf(ctx));
  ringChanges(ctx.db, parent.orgId);
  return { parent, contact, linked };
}
