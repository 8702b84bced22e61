import type { Kysely } from 'kysely';
import type { DB, RecordKind } from '../../db/types.js';
import { isForeignKeyViolation, notFound } from '../../errors.js';
import { type Actor, ringChanges } from '../changes/index.js';
import { setContactLinks } from '../links/index.js';
import { checkBatchSize, invalid } from './checks.js';
import * as repo from './repository.js';
import { requireSource } from './sources.js';
import type { BulkLinkAnswer, BulkLinkInput, BulkLinkItemResult, BulkUserError, RecordRef } from './types.js';

/**
 * Bulk links: link or unlink up to 1,000 contact pairs of one portfolio, each side by id or by
 * external id. Apart from upserts, with which it shares only the whole-call checks.
 */

const PARENT = { project_contacts: 'project', parcel_contacts: 'parcel' } as const;

/**
 * Links or unlinks up to 1,000 pairs of one portfolio, each side by id or by external id. Answers
 * each pair's outcome in input order; valid pairs are written in one transaction (none under
 * allOrNone when a pair failed). The caller has checked access (see setLinksFor).
 */
export async function setLinks(
  db: Kysely<DB>,
  who: { orgId: string; actor: Actor },
  input: BulkLinkInput,
  linked: boolean,
): Promise<BulkLinkAnswer> {
  const { orgId, actor } = who;
  const { portfolioId, type } = input;
  checkBatchSize('pairs', input.pairs.length);
  const byExternal = input.pairs.some((p) => p.from.externalId != null || p.to.externalId != null);
  const source = input.source ?? null;
  if (byExternal && source === null)
    throw invalid(
      'source',
      'source is required when a pair names a record by externalId.',
      'required with externalId',
    );
  if (source !== null) await requireSource(db, orgId, source);
  const parentKind = PARENT[type];
  const refs = (k: 'from' | 'to') => input.pairs.map((p) => p[k]);
  const ids = (rs: RecordRef[]) => rs.flatMap((r) => (r.id ? [r.id] : []));
  const exts = (rs: RecordRef[]) => rs.flatMap((r) => (r.externalId != null ? [r.externalId] : []));
  const [parents, contacts, targets] = await Promise.all([
    repo.findByIds(db, orgId, parentKind, null, ids(refs('from'))),
    repo.findByIds(db, orgId, 'contact', null, ids(refs('to'))),
    source === null
      ? []
      : repo.findByExternalIds(db, orgId, source, [...exts(refs('from')), ...exts(refs('to'))]),
  ]);
  const byId = new Map<RecordKind, Map<string, { id: string; portfolioId: string }>>([
    [parentKind, new Map(parents.map((r) => [r.id, r]))],
    ['contact', new Map(contacts.map((r) => [r.id, r]))],
  ]);
  const byExt = new Map(targets.map((t) => [t.externalId, t]));
  const resolve = (ref: RecordRef, kind: RecordKind): string | string[] => {
    if (ref.id) {
      const r = byId.get(kind)?.get(ref.id);
      return r && r.portfolioId === portfolioId ? r.id : [`no ${kind} with id "${ref.id}" in this portfolio`];
    }
    const t = ref.externalId != null ? byExt.get(ref.externalId) : undefined;
    if (!t || t.kind !== kind || t.portfolioId !== portfolioId)
      return [`no ${kind} with external id "${ref.externalId}" of ${source} in this portfolio`];
    return t.id;
  };
  const label = (i: number) => `Pair ${i}`;
  const results: BulkLinkItemResult[] = input.pairs.map((p, index) => {
    const from = resolve(p.from, parentKind);
    const to = resolve(p.to, 'contact');
    const userErrors: BulkUserError[] = [];
    for (const [side, v] of [
      ['from', from],
      ['to', to],
    ] as const)
      if (Array.isArray(v))
        userErrors.push({
          code: 'NOT_FOUND',
          message: `${label(index)}: ${side}: ${v[0]}`,
          propertyId: null,
          path: ['input', 'pairs', String(index), side],
        });
    return {
      index,
      fromId: typeof from === 'string' ? from : null,
      toId: typeof to === 'string' ? to : null,
      outcome: userErrors.length ? 'FAILED' : 'UNCHANGED',
      userErrors,
    };
  });
  const seen = new Map<string, number>();
  for (const r of results)
    if (r.fromId && r.toId) seen.set(`${r.fromId}|${r.toId}`, (seen.get(`${r.fromId}|${r.toId}`) ?? 0) + 1);
  for (const r of results) {
    const n = r.fromId && r.toId ? seen.get(`${r.fromId}|${r.toId}`)! : 0;
    if (n > 1 && r.outcome !== 'FAILED') {
      r.outcome = 'FAILED';
      r.userErrors.push({
        code: 'DUPLICATE',
        message: `${label(r.index)}: the pair ${r.fromId} – ${r.toId} appears ${n} times in this call; send each once`,
        propertyId: null,
        path: ['input', 'pairs', String(r.index)],
      });
    }
  }
  const anyFailed = results.some((r) => r.outcome === 'FAILED');
  if (anyFailed && input.allOrNone === true) {
    for (const r of results)
      if (r.outcome !== 'FAILED') {
        r.outcome = 'FAILED';
        r.userErrors.push({
          code: 'NOT_WRITTEN',
          message: `${label(r.index)}: valid, but not written: another pair failed under allOrNone`,
          propertyId: null,
          path: ['input', 'pairs', String(r.index)],
        });
      }
  } else {
    const todo = results.filter((r) => r.outcome !== 'FAILED');
    const changed = await setContactLinks(
      db,
      type,
      { orgId, portfolioId },
      todo.map((r) => [r.fromId!, r.toId!]),
      actor,
      linked,
    ).catch((err) => {
      // A record deleted while the call ran: the links' foreign keys refuse it, nothing is written.
      throw isForeignKeyViolation(err) ? notFound('Record') : err;
    });
    for (const r of todo)
      if (changed.has(`${r.fromId}|${r.toId}`)) r.outcome = linked ? 'CREATED' : 'DELETED';
    if (changed.size) ringChanges(db, orgId);
  }
  const tally = (f: (r: BulkLinkItemResult) => boolean) => results.filter(f).length;
  return {
    results,
    changed: tally((r) => r.outcome === 'CREATED' || r.outcome === 'DELETED'),
    unchanged: tally((r) => r.outcome === 'UNCHANGED'),
    failed: tally((r) => r.outcome === 'FAILED'),
  };
}
