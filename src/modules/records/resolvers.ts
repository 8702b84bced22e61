import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import type { Resolvers } from '../../generated/graphql.js';
import { propertyType } from '../properties/index.js';
import { AGGREGATE_FUNCTIONS, type AggregateArgs, type AggregateFunction, measureSig } from './aggregate.js';
import { LIST_FIELDS, type ListName } from './lists.js';
import { listPage } from './pages.js';
import * as service from './service.js';
import {
  type AggregatesModel,
  type ConnectionModel,
  type GroupedAggregatesArgs,
  RECORD_TYPENAME,
  type RecordModel,
} from './types.js';
import { type UserErrorModel, UserErrors } from './user-errors.js';
import * as values from './values.js';

/**
 * A write's payload: the record and no userErrors; when its values were refused, null and every
 * problem as userErrors; when an update's `expectedUpdatedAt` is stale, the record as it is now and a
 * CONFLICT. Other failures (401, 403, 404) stay GraphQL errors.
 */
async function refusable<P extends object>(
  write: () => Promise<RecordModel | service.UpdateResult>,
  payload: (r: RecordModel | null) => P,
): Promise<P & { userErrors: UserErrorModel[] }> {
  try {
    const out = await write();
    if (!('conflict' in out)) return { ...payload(out), userErrors: [] };
    return { ...payload(out.record), userErrors: out.conflict ? [conflictError(out.record)] : [] };
  } catch (err) {
    if (err instanceof UserErrors) return { ...payload(null), userErrors: err.userErrors };
    throw err;
  }
}

/**
 * Fields every record type shares. `properties` and `values` answer at once, without a promise,
 * when the request already holds the schema and users they read (values.ts loadedReads): a page
 * loads them before it returns, and graphql-jit and graphql-js take a resolver's value as it is,
 * where a promise for each of the thousands of records of a nested page costs the executor a
 * microtask and a wait apiece. Otherwise they return the promise, and the executor waits for it.
 */
const recordFields = {
  portfolio: async (r: RecordModel, _a: unknown, ctx: Context) =>
    (await ctx.loaders.portfolio.load({ orgId: r.orgId, id: r.portfolioId }))!,
  properties: (r: RecordModel, _a: unknown, ctx: Context) => {
    const reads = values.loadedReads(ctx, r);
    return reads ? values.restPropertiesIn(r, reads.schema, reads.users) : values.restProperties(ctx, r);
  },
  values: (r: RecordModel, _a: unknown, ctx: Context) => {
    const reads = values.loadedReads(ctx, r);
    return reads ? values.valuesIn(r, reads.schema, reads.users) : values.recordValues(ctx, r);
  },
  value: (r: RecordModel, a: { propertyId: string }, ctx: Context) =>
    values.recordValue(ctx, r, a.propertyId),
};

const page =
  (list: ListName) =>
  (p: { orgId: string; id: string }, args: object, ctx: Context, info: GraphQLResolveInfo) =>
    listPage(ctx, list, p.orgId, p.id, args, info);

const connection = {
  nodes: (c: { edges: { node: RecordModel }[] }) => c.edges.map((e) => e.node),
  totalCount: (c: { totalCount: () => Promise<number> }) => c.totalCount(),
  totalCountIsEstimate: async (c: ConnectionModel) => (await c.totalCountIsEstimate?.()) ?? false,
  facets: (c: ConnectionModel, a: { propertyId: string }) => c.facets?.(a.propertyId) ?? [],
  aggregates: (c: ConnectionModel, _a: unknown, _ctx: Context, info: GraphQLResolveInfo) =>
    c.aggregates!(info),
  groupedAggregates: (
    c: ConnectionModel,
    a: GroupedAggregatesArgs,
    _ctx: Context,
    info: GraphQLResolveInfo,
  ) => c.groupedAggregates!(a, info),
};

/** Each aggregate is looked up in what the `aggregates` field's one statement answered. */
const aggregate =
  (fn: AggregateFunction) =>
  (a: AggregatesModel, args: AggregateArgs): any =>
    a.values.get(measureSig(fn, args)) ?? null;

/**
 * The record changed after `expectedUpdatedAt`, so nothing was written: the update's payload carries
 * this CONFLICT user error beside the record as it is now.
 */
const conflictError = (record: RecordModel): UserErrorModel => ({
  code: 'CONFLICT',
  message: `The ${record.kind} changed after expectedUpdatedAt (it is now ${record.updatedAt.toISOString()}); nothing was written. The payload holds it as it is now.`,
  propertyId: null,
  path: ['input', 'expectedUpdatedAt'],
});

const byId =
  (kind: RecordKind) =>
  async (_p: unknown, { id }: { id: string }, ctx: Context) =>
    (await service.findRecord(ctx, kind, id)) ?? null;

const inPortfolio =
  (kind: RecordKind) =>
  async (p: { orgId: string; id: string }, { id }: { id: string }, ctx: Context) => {
    const r = await service.findRecord(ctx, kind, id);
    return r && r.orgId === p.orgId && r.portfolioId === p.id ? r : null;
  };

export const recordResolvers: Resolvers = {
  Query: {
    project: byId('project'),
    parcel: byId('parcel'),
    contact: byId('contact'),
  },
  Portfolio: {
    projects: page(LIST_FIELDS.Portfolio.projects),
    parcels: page(LIST_FIELDS.Portfolio.parcels),
    contacts: page(LIST_FIELDS.Portfolio.contacts),
    project: inPortfolio('project'),
    parcel: inPortfolio('parcel'),
    contact: inPortfolio('contact'),
  },
  PropertyRecord: {
    __resolveType: (r) => RECORD_TYPENAME[r.kind],
  },
  Project: {
    ...recordFields,
    location: (r) =>
      r.location
        ? { longitude: r.location.coordinates[0], latitude: r.location.coordinates[1], geojson: r.location }
        : null,
  },
  Parcel: {
    ...recordFields,
    geometry: (r, _a, ctx) => ctx.loaders.geometry.load(r.id),
  },
  Contact: recordFields,
  ProjectConnection: connection,
  ParcelConnection: connection,
  ContactConnection: connection,
  RecordAggregates: Object.fromEntries(AGGREGATE_FUNCTIONS.map((fn) => [fn, aggregate(fn)])),
  PropertyValue: {
    __resolveType: (v) => propertyType(v.def.type)?.shape.graphqlType ?? null,
  },
  // Value types' fields are plain data on the values themselves (values.ts typedValue).
  Mutation: {
    createProject: async (_p, { input }, ctx) =>
      refusable(
        () => service.createRecord(ctx, 'project', input),
        (project) => ({ project }),
      ),
    updateProject: async (_p, { input }, ctx) =>
      refusable(
        () => service.updateRecord(ctx, 'project', input),
        (project) => ({ project }),
      ),
    deleteProject: async (_p, { input }, ctx) => ({
      deletedId: await service.deleteRecord(ctx, 'project', input),
      userErrors: [],
    }),
    createContact: async (_p, { input }, ctx) =>
      refusable(
        () => service.createRecord(ctx, 'contact', input),
        (contact) => ({ contact }),
      ),
    updateContact: async (_p, { input }, ctx) =>
      refusable(
        () => service.updateRecord(ctx, 'contact', input),
        (contact) => ({ contact }),
      ),
    deleteContact: async (_p, { input }, ctx) => ({
      deletedId: await service.deleteRecord(ctx, 'contact', input),
      userErrors: [],
    }),
    updateParcel: async (_p, { input }, ctx) =>
      refusable(
        () => service.updateRecord(ctx, 'parcel', input),
        (parcel) => ({ parcel }),
      ),
  },
};
