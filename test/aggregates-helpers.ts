import { bulkInsertRecords } from '../src/modules/records/repository.js';
import type { StoredValue } from '../src/modules/records/types.js';
import type { NewProperty } from '../src/modules/schema/repository.js';
import type { TestEnv } from './helpers/fixtures.js';
import { square } from './helpers/geo.js';
import type { Scope } from './records-helpers.js';

/** Shared helpers of the dashboard tests (test/aggregates-*.test.ts). */

const opts = (...ids: string[]) => ids.map((id) => ({ id, name: id.toUpperCase(), color: '#000000' }));

/** Parcel properties of every type that aggregates or groups, plus text. */
export const PARCEL_PROPS: NewProperty[] = [
  { id: 'status', name: 'Status', type: 'select', options: opts('a', 'b', 'c') },
  { id: 'tags', name: 'Tags', type: 'multi_select', options: opts('x', 'y', 'z') },
  { id: 'price', name: 'Price', type: 'number' },
  { id: 'irrigated', name: 'Irrigated', type: 'checkbox' },
  { id: 'closing', name: 'Closing', type: 'date' },
  { id: 'agent', name: 'Agent', type: 'people' },
  { id: 'note', name: 'Note', type: 'text' },
];

/** A parcel to insert: its values, and its boundary as a square of `side` degrees (none without). */
export interface ParcelSpec {
  properties: Record<string, StoredValue>;
  side?: number;
}

/** Inserts parcels into a portfolio; squares are laid apart so none overlaps another. */
export function insertParcels(env: TestEnv, scope: Scope, parcels: ParcelSpec[]): Promise<string[]> {
  return bulkInsertRecords(
    env.database.db,
    'parcel',
    scope.orgId,
    scope.portfolioId,
    parcels.map((p, i) => ({
      properties: p.properties,
      geometry: p.side ? square(-100 + (i % 50) * 0.1, 30 + Math.floor(i / 50) * 0.1, p.side) : undefined,
    })),
  );
}

/** Acres of each parcel as the gateway stored them, by id. */
export async function acresOf(env: TestEnv, ids: string[]): Promise<Map<string, number | null>> {
  const rows = await env.database.db
    .selectFrom('parcels')
    .select(['id', 'acres'])
    .where('id', 'in', ids.length ? ids : [''])
    .execute();
  return new Map(rows.map((r) => [r.id, r.acres as number | null]));
}

export const PARCELS_AGG = (inner: string, args = '$filter: RecordFilter, $search: String') => `query(
  $pf: ID!, ${args}) { node(id: $pf) { ... on Portfolio { parcels(first: 0, filter: $filter, search: $search) {
    ${inner} } } } }`;
