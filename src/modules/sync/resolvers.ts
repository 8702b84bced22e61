import { GraphQLError } from 'graphql';
import type { Context } from '../../context.js';
import { AppError } from '../../errors.js';
import type { Resolvers } from '../../generated/graphql.js';
import type { RecordModel } from '../records/index.js';
import { externalIdsLoader } from './loaders.js';
import * as service from './service.js';
import type { LinkType } from './types.js';

/** External ids on records, the lookup by external id, sources, bulk upserts and bulk links. */

const externalIds = (r: RecordModel, _a: unknown, ctx: Context) =>
  externalIdsLoader(ctx).load({ orgId: r.orgId, kind: r.kind, id: r.id });

const LINK_TABLE: Record<string, LinkType> = {
  PROJECT_CONTACT: 'project_contacts',
  PARCEL_CONTACT: 'parcel_contacts',
};

/**
 * A bulk call refused as a whole for its input (over the limit, an unknown source, a reused
 * idempotency key) answers its code's HTTP status, as a refusal before execution does, rather than
 * 200: a sync client that checks only the status must not read it as done. The error carries the
 * status in `extensions.http`, which the response's head takes (graphql/apollo-executor.ts).
 */
async function refusedWhole<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (
      err instanceof AppError &&
      (err.code === 'VALIDATION_FAILED' || err.code === 'IDEMPOTENCY_KEY_REUSED')
    )
      throw new GraphQLError(err.message, {
        originalError: err,
        extensions: { code: err.code, http: { status: err.status, headers: new Map() } },
      });
    throw err;
  }
}

export const syncResolvers: Resolvers = {
  Query: {
    recordByExternalId: (_p, a, ctx) => service.findByExternalId(ctx, a.orgId, a.source, a.externalId),
  },
  Organization: {
    externalSources: (o, _a, ctx) => service.sourcesFor(ctx, o.id),
  },
  Project: { externalIds },
  Parcel: { externalIds },
  Contact: { externalIds },
  Mutation: {
    registerExternalSource: async (_p, { input }, ctx) => ({
      sources: await service.registerSource(ctx, input.orgId, input.name),
    }),
    upsertProjects: (_p, { input }, ctx) => refusedWhole(() => service.upsertFor(ctx, 'project', input)),
    upsertContacts: (_p, { input }, ctx) => refusedWhole(() => service.upsertFor(ctx, 'contact', input)),
    upsertParcels: (_p, { input }, ctx) => refusedWhole(() => service.upsertFor(ctx, 'parcel', input)),
    linkRecords: (_p, { input }, ctx) =>
      refusedWhole(() => service.setLinksFor(ctx, { ...input, type: LINK_TABLE[input.type] }, true)),
    unlinkRecords: (_p, { input }, ctx) =>
      refusedWhole(() => service.setLinksFor(ctx, { ...input, type: LINK_TABLE[input.type] }, false)),
  },
};
