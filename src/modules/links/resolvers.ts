import type { Context } from '../../context.js';
import type { Resolvers } from '../../generated/graphql.js';
import type { ListName } from '../records/lists.js';
import { listPage } from '../records/pages.js';
import type { RecordModel } from '../records/types.js';
import { setContactLink } from './service.js';

const links = (list: ListName) => (r: RecordModel, args: object, ctx: Context) =>
  listPage(ctx, list, r.orgId, r.id, args);

export const linkResolvers: Resolvers = {
  Project: { contacts: links('project-contacts'), parcels: links('project-parcels') },
  Parcel: { contacts: links('parcel-contacts'), projects: links('parcel-projects') },
  Contact: { projects: links('contact-projects'), parcels: links('contact-parcels') },
  Mutation: {
    linkProjectContact: async (_p, { input }, ctx) => {
      const r = await setContactLink(ctx, 'project_contacts', { ...input, parentId: input.projectId }, true);
      return { project: r.parent, contact: r.contact, linked: r.linked };
    },
    unlinkProjectContact: async (_p, { input }, ctx) => {
      const r = await setContactLink(ctx, 'project_contacts', { ...input, parentId: input.projectId }, false);
      return { project: r.parent, contact: r.contact, linked: r.linked };
    },
    linkParcelContact: async (_p, { input }, ctx) => {
      const r = await setContactLink(ctx, 'parcel_contacts', { ...input, parentId: input.parcelId }, true);
      return { parcel: r.parent, contact: r.contact, linked: r.linked };
    },
    unlinkParcelContact: async (_p, { input }, ctx) => {
      const r = await setContactLink(ctx, 'parcel_contacts', { ...input, parentId: input.parcelId }, false);
      return { parcel: r.parent, contact: r.contact, linked: r.linked };
    },
  },
};
