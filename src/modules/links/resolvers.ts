import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context.js';
import type { MutationResolvers, Resolvers } from '../../generated/graphql.js';
import { LIST_FIELDS, type ListName, listPage, type RecordModel } from '../records/index.js';
import { setContactLink } from './service.js';

const links = (list: ListName) => (r: RecordModel, args: object, ctx: Context, info: GraphQLResolveInfo) =>
  listPage(ctx, list, r.orgId, r.id, args, info);

/** Link (true) or unlink (false) a contact and a project; the payload has both sides. */
const projectContact =
  (linked: boolean): MutationResolvers['linkProjectContact'] =>
  async (_p, { input }, ctx) => {
    const r = await setContactLink(ctx, 'project_contacts', { ...input, parentId: input.projectId }, linked);
    return { project: r.parent, contact: r.contact, linked: r.linked, userErrors: [] };
  };

const parcelContact =
  (linked: boolean): MutationResolvers['linkParcelContact'] =>
  async (_p, { input }, ctx) => {
    const r = await setContactLink(ctx, 'parcel_contacts', { ...input, parentId: input.parcelId }, linked);
    return { parcel: r.parent, contact: r.contact, linked: r.linked, userErrors: [] };
  };

export const linkResolvers: Resolvers = {
  Project: { contacts: links(LIST_FIELDS.Project.contacts), parcels: links(LIST_FIELDS.Project.parcels) },
  Parcel: { contacts: links(LIST_FIELDS.Parcel.contacts), projects: links(LIST_FIELDS.Parcel.projects) },
  Contact: { projects: links(LIST_FIELDS.Contact.projects), parcels: links(LIST_FIELDS.Contact.parcels) },
  Mutation: {
    linkProjectContact: projectContact(true),
    unlinkProjectContact: projectContact(false),
    linkParcelContact: parcelContact(true),
    unlinkParcelContact: parcelContact(false),
  },
};
