import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.js';
import { invalid } from './checks.js';
import * as repo from './repository.js';

/**
 * External id sources: an organization declares a source before ids of it are used, and a call
 * naming an undeclared one is refused. Apart from upserts and links, which both require a source.
 */

const SOURCE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Refuses a source the organization has not declared, naming it and the declared ones. */
export async function requireSource(db: Kysely<DB>, orgId: string, source: string): Promise<void> {
  const known = await repo.sourcesOf(db, orgId);
  if (known.includes(source)) return;
  throw invalid(
    'source',
    `Unknown source "${source}": declare it first with registerExternalSource${
      known.length ? ` (declared: ${known.map((s) => `"${s}"`).join(', ')})` : ' (none is declared yet)'
    }.`,
    `unknown source "${source}"`,
  );
}

/** Declares a source of an organization (no access check: the caller has made it); all its sources. */
export async function declareSource(db: Kysely<DB>, orgId: string, name: string): Promise<string[]> {
  if (typeof name !== 'string' || !SOURCE_NAME.test(name))
    throw invalid(
      'name',
      `Source name "${name}" is not usable: 1 to 64 letters, digits, ".", "_" or "-".`,
      '1 to 64 letters, digits, ".", "_" or "-"',
    );
  await repo.addSource(db, orgId, name);
  return repo.sourcesOf(db, orgId);
}
