import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import type { Resolvers } from '../../generated/graphql.js';
import { actorOf } from '../changes/index.js';
import { requireManager } from '../org/index.js';
import * as admin from './admin.js';

/** Who changes the schema: an owner or admin of the organization (else FORBIDDEN or NOT_FOUND). */
function manager(ctx: Context, i: { organizationId: string; kind: RecordKind; propertyId: string }) {
  requireManager(ctx.viewer, i.organizationId);
  return { actor: actorOf(ctx), ref: { orgId: i.organizationId, kind: i.kind, propertyId: i.propertyId } };
}

export const schemaResolvers: Resolvers = {
  Organization: {
    propertySchema: (o, { kind }, ctx) => ctx.loaders.schema.load({ orgId: o.id, kind }),
  },
  Mutation: {
    createProperty: async (_p, { input: i }, ctx) => {
      requireManager(ctx.viewer, i.organizationId);
      const property = await admin.createProperty(ctx.db, actorOf(ctx), i.organizationId, i.kind, {
        id: i.id,
        name: i.name,
        type: i.type,
        options: i.options ?? undefined,
        required: i.required ?? false,
      });
      return { property };
    },
    renameProperty: async (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return { property: await admin.renameProperty(ctx.db, m.actor, m.ref, i.name) };
    },
    setPropertyRequired: async (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return { property: await admin.setPropertyRequired(ctx.db, m.actor, m.ref, i.required) };
    },
    moveProperty: async (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return { property: await admin.moveProperty(ctx.db, m.actor, m.ref, i.position) };
    },
    addPropertyOption: async (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return { property: await admin.addPropertyOption(ctx.db, m.actor, m.ref, i.option, i.position) };
    },
    renamePropertyOption: async (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return { property: await admin.renamePropertyOption(ctx.db, m.actor, m.ref, i.optionId, i.name) };
    },
    recolorPropertyOption: async (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return { property: await admin.recolorPropertyOption(ctx.db, m.actor, m.ref, i.optionId, i.color) };
    },
    movePropertyOption: async (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return { property: await admin.movePropertyOption(ctx.db, m.actor, m.ref, i.optionId, i.position) };
    },
    removePropertyOption: async (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return { property: await admin.removePropertyOption(ctx.db, m.actor, m.ref, i.optionId) };
    },
    mergePropertyOptions: (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return admin.mergePropertyOptions(ctx.db, m.actor, m.ref, i.optionId, i.intoOptionId);
    },
    changePropertyType: (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return admin.changePropertyType(ctx.db, m.actor, m.ref, i);
    },
    deleteProperty: (_p, { input: i }, ctx) => {
      const m = manager(ctx, i);
      return admin.deleteProperty(ctx.db, m.actor, m.ref, i.dryRun === true);
    },
  },
};
