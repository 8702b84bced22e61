import fc from 'fast-check';
import { createApiKey } from '../src/modules/auth/repository.js';
import { createPortfolio, createUser, grantGuest } from '../src/modules/org/repository.js';
import type { StoredValue } from '../src/modules/records/types.js';
import { acresOf, insertParcels, PARCEL_PROPS, PARCELS_AGG } from './aggregates-helpers.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { client } from './helpers/http.js';
import { freshOrg } from './records-helpers.js';

/**
 * Aggregates and grouped aggregates against a model: random parcels (values missing, empty, several
 * options, with and without a boundary) under a random filter, answered by the gateway to the owner
 * and to a guest of the portfolio, and computed here the straightforward way over the same records.
 */

interface Parcel {
  status?: 'a' | 'b' | 'c';
  tags?: ('x' | 'y' | 'z')[];
  price?: number;
  irrigated?: boolean;
  closing?: string;
  agent?: 'owner' | 'guest';
  note?: string;
  side?: number;
}

const parcel: fc.Arbitrary<Parcel> = fc.record(
  {
    status: fc.constantFrom('a', 'b', 'c'),
    // [] is stored only by older writers; the API clears with it, the model reads it as no value.
    tags: fc.subarray(['x', 'y', 'z'] as ('x' | 'y' | 'z')[]),
    // Quarters: exact in binary, so sums compare exactly.
    price: fc.integer({ min: -400, max: 400 }).map((n) => n / 4),
    irrigated: fc.boolean(),
    closing: fc.constantFrom(
      '2025-12-31',
      '2026-01-01',
      '2026-01-15',
      '2026-03-31',
      '2026-04-01',
      '2027-07-04',
    ),
    agent: fc.constantFrom('owner', 'guest'),
    note: fc.constantFrom('', 'alpha', 'beta'),
    side: fc.constantFrom(0.01, 0.02, 0.05),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Parcel>;

/** A filter as GraphQL takes it, and as the model reads it. */
interface Filter {
  gql?: unknown;
  test: (p: Parcel) => boolean;
}
const prop = (id: string, ops: Record<string, unknown>) => ({ property: { id, ...ops } });
const leaf: fc.Arbitrary<Filter> = fc.oneof(
  fc.subarray(['a', 'b', 'c'], { minLength: 1 }).map((s) => ({
    gql: prop('status', { select: { in: s } }),
    test: (p: Parcel) => p.status !== undefined && s.includes(p.status),
  })),
  fc.subarray(['a', 'b'], { minLength: 1 }).map((s) => ({
    gql: prop('status', { select: { notIn: s } }),
    test: (p: Parcel) => p.status === undefined || !s.includes(p.status),
  })),
  fc.integer({ min: -50, max: 50 }).map((k) => ({
    gql: prop('price', { number: { gt: k } }),
    test: (p: Parcel) => p.price !== undefined && p.price > k,
  })),
  fc.boolean().map((b) => ({
    gql: prop('irrigated', { checkbox: { eq: b } }),
    test: (p: Parcel) => p.irrigated === b,
  })),
  fc.subarray(['x', 'y', 'z'], { minLength: 1 }).map((s) => ({
    gql: prop('tags', { multiSelect: { containsAny: s } }),
    test: (p: Parcel) => (p.tags ?? []).some((t) => s.includes(t)),
  })),
  fc.boolean().map((b) => ({
    gql: prop('note', { text: { isEmpty: b } }),
    test: (p: Parcel) => (p.note === undefined || p.note === '') === b,
  })),
);
const filter: fc.Arbitrary<Filter> = fc.oneof(
  fc.constant({ test: () => true }),
  leaf,
  leaf.map((f) => ({ gql: { not: f.gql }, test: (p: Parcel) => !f.test(p) })),
);

type KeyName = 'status' | 'tags' | 'agent' | 'irrigated' | 'closing' | 'created';
const GROUP_BY: Record<KeyName, unknown> = {
  status: { propertyId: 'status' },
  tags: { propertyId: 'tags' },
  agent: { propertyId: 'agent' },
  irrigated: { propertyId: 'irrigated' },
  closing: { propertyId: 'closing', bucket: 'QUARTER' },
  created: { field: 'CREATED_AT', bucket: 'YEAR' },
};
const groupBy = fc.uniqueArray(
  fc.constantFrom<KeyName>('status', 'tags', 'agent', 'irrigated', 'closing', 'created'),
  {
    minLength: 1,
    maxLength: 2,
  },
);
const orderBy = fc.constantFrom(
  undefined,
  { by: 'COUNT', direction: 'DESC' },
  { by: 'SUM', propertyId: 'price', direction: 'ASC' },
  { by: 'KEY', direction: 'DESC' },
);

const QUERY = PARCELS_AGG(
  `aggregates {
    count sum(propertyId: "price") avg(propertyId: "price") min(propertyId: "price") max(propertyId: "price")
    acres: sum(field: ACRES) maxAcres: max(field: ACRES)
    minDate(propertyId: "closing") maxDate(propertyId: "closing")
    withValue(propertyId: "note") withoutValue(propertyId: "tags") statusSet: withValue(propertyId: "status")
  }
  groupedAggregates(groupBy: $groupBy, orderBy: $orderBy, first: $first) {
    totalGroups truncated groups { keys { value empty } aggregates { count sum(propertyId: "price") } }
  }`,
  '$filter: RecordFilter, $search: String, $groupBy: [AggregateGroupBy!]!, $orderBy: AggregateGroupOrder, $first: Int',
);

const round = (x: number | null) => (x === null ? null : Math.round(x * 1e6) / 1e6);
const sum = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) : null);
const minOf = (xs: number[]) => (xs.length ? Math.min(...xs) : null);
const maxOf = (xs: number[]) => (xs.length ? Math.max(...xs) : null);

/** The first day of a date's quarter. */
const quarterOf = (d: string) => {
  const [y, m] = d.split('-').map(Number);
  return `${String(y).padStart(4, '0')}-${String(Math.floor((m - 1) / 3) * 3 + 1).padStart(2, '0')}-01`;
};

describe('aggregates against a model', () => {
  test('equal a straightforward computation, for the owner and for a guest', async ({ env }) => {
    const org = await freshOrg(env, { parcel: PARCEL_PROPS }, { defaults: false });
    const db = env.database.db;
    const guestUser = await createUser(db, `guest-${org.orgId}@example.test`, 'Guest');
    const guestKey = (await createApiKey(db, guestUser.id)).apiKey;
    const guest = client(env.app, guestKey);
    const uids = { owner: org.ownerUid, guest: guestUser.id };
    const year = String(new Date().getUTCFullYear());

    await fc.assert(
      fc.asyncProperty(
        fc.array(parcel, { maxLength: 10 }),
        filter,
        groupBy,
        orderBy,
        fc.integer({ min: 1, max: 6 }),
        async (parcels, f, keys, order, first) => {
          const pf = await createPortfolio(db, org.orgId, 'model');
          await grantGuest(db, org.orgId, pf.id, guestUser.id);
          const scope = { orgId: org.orgId, portfolioId: pf.id };
          const ids = await insertParcels(
            env,
            scope,
            parcels.map((p) => ({ properties: stored(p, uids), side: p.side })),
          );
          const acres = await acresOf(env, ids);
          const rows = parcels.map((p, i) => ({ ...p, acres: acres.get(ids[i]) ?? null, id: ids[i] }));
          const match = rows.filter((p) => f.test(p));

          // The model: every aggregate over the records the filter lists.
          const prices = match.flatMap((p) => (p.price === undefined ? [] : [p.price]));
          const acreList = match.flatMap((p) => (p.acres == null ? [] : [p.acres]));
          const days = match.flatMap((p) => (p.closing ? [p.closing] : [])).sort();
          const aggregates = {
            count: match.length,
            sum: sum(prices),
            avg: prices.length ? round(sum(prices)! / prices.length) : null,
            min: minOf(prices),
            max: maxOf(prices),
            acres: round(sum(acreList)),
            maxAcres: round(maxOf(acreList)),
            minDate: days[0] ?? null,
            maxDate: days.at(-1) ?? null,
            withValue: match.filter((p) => p.note !== undefined && p.note !== '').length,
            withoutValue: match.filter((p) => !p.tags?.length).length,
            statusSet: match.filter((p) => p.status !== undefined).length,
          };
          const keyValues = (k: KeyName, p: Parcel): (string | null)[] => {
            if (k === 'tags') return p.tags?.length ? [...new Set(p.tags)] : [null];
            if (k === 'status') return [p.status ?? null];
            if (k === 'agent') return [p.agent ? uids[p.agent] : null];
            if (k === 'irrigated') return [p.irrigated === undefined ? null : String(p.irrigated)];
            if (k === 'closing') return [p.closing ? quarterOf(p.closing) : null];
            return [`${year}-01-01`];
          };
          const groups = new Map<string, { keys: (string | null)[]; members: Parcel[] }>();
          for (const p of match) {
            const combos = keys.reduce<(string | null)[][]>(
              (acc, k) => acc.flatMap((c) => keyValues(k, p).map((v) => [...c, v])),
              [[]],
            );
            for (const c of combos) {
              const name = JSON.stringify(c);
              if (!groups.has(name)) groups.set(name, { keys: c, members: [] });
              groups.get(name)!.members.push(p);
            }
          }
          const keyCmp = (a: (string | null)[], b: (string | null)[], desc: boolean) => {
            for (let i = 0; i < a.length; i++) {
              if (a[i] === b[i]) continue;
              if (a[i] === null) return 1;
              if (b[i] === null) return -1;
              const c = a[i]! < b[i]! ? -1 : 1; // options a<b<c, 'false'<'true', days and ids as text
              return desc ? -c : c;
            }
            return 0;
          };
          const modelGroups = [...groups.values()].map((g) => ({
            keys: g.keys,
            count: g.members.length,
            sum: sum(g.members.flatMap((p) => (p.price === undefined ? [] : [p.price]))),
          }));
          modelGroups.sort((a, b) => {
            if (order?.by === 'COUNT') return b.count - a.count || keyCmp(a.keys, b.keys, false);
            if (order?.by === 'SUM') {
              if (a.sum !== b.sum) {
                if (a.sum === null) return 1;
                if (b.sum === null) return -1;
                return a.sum - b.sum;
              }
              return keyCmp(a.keys, b.keys, false);
            }
            return keyCmp(a.keys, b.keys, order?.by === 'KEY');
          });
          const expected = {
            aggregates,
            groupedAggregates: {
              totalGroups: modelGroups.length,
              truncated: modelGroups.length > first,
              groups: modelGroups.slice(0, first).map((g) => ({
                keys: g.keys.map((v) => ({ value: v, empty: v === null })),
                aggregates: { count: g.count, sum: g.sum },
              })),
            },
          };

          const vars = {
            pf: pf.id,
            filter: f.gql,
            groupBy: keys.map((k) => GROUP_BY[k]),
            orderBy: order,
            first,
          };
          for (const who of [org.owner, guest]) {
            const r = await who.gql(QUERY, vars);
            expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
            const got = r.body.data.node.parcels;
            got.aggregates.avg = round(got.aggregates.avg);
            got.aggregates.acres = round(got.aggregates.acres);
            got.aggregates.maxAcres = round(got.aggregates.maxAcres);
            expect(got).toEqual(expected);
          }
        },
      ),
      { numRuns: 25, endOnFailure: true },
    );
  });
});

/** A model parcel's values as stored. */
function stored(p: Parcel, uids: Record<'owner' | 'guest', string>): Record<string, StoredValue> {
  const v: Record<string, StoredValue> = {};
  if (p.status) v.status = { select: [p.status] };
  if (p.tags) v.tags = { select: p.tags };
  if (p.price !== undefined) v.price = { number: p.price };
  if (p.irrigated !== undefined) v.irrigated = { checkbox: p.irrigated };
  if (p.closing) v.closing = { date: { start: p.closing } };
  if (p.agent) v.agent = { people: [uids[p.agent]] };
  if (p.note !== undefined) v.note = { text: p.note };
  return v;
}
