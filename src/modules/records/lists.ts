import type { RecordKind } from '../../db/types.js';

/**
 * Every list of records the API pages through: a portfolio's records, or one side of a link.
 * Each is ordered by a stable key, (created_at, id) or (linked_at, other id), and paged by keyset.
 */
export type ListName =
  | 'portfolio-projects'
  | 'portfolio-parcels'
  | 'portfolio-contacts'
  | 'project-contacts'
  | 'contact-projects'
  | 'parcel-contacts'
  | 'contact-parcels'
  | 'project-parcels'
  | 'parcel-projects';

export interface ListDef {
  childKind: RecordKind;
  /** Link table, or undefined for portfolio lists. */
  linkTable?: 'project_contacts' | 'parcel_contacts' | 'project_parcels';
  /** Column naming the parent (portfolio_id on portfolio lists). */
  parentCol: string;
  /** Column of the link table naming the child. */
  childCol?: string;
}

export const LISTS: Record<ListName, ListDef> = {
  'portfolio-projects': { childKind: 'project', parentCol: 'portfolio_id' },
  'portfolio-parcels': { childKind: 'parcel', parentCol: 'portfolio_id' },
  'portfolio-contacts': { childKind: 'contact', parentCol: 'portfolio_id' },
  'project-contacts': {
    childKind: 'contact',
    linkTable: 'project_contacts',
    parentCol: 'project_id',
    childCol: 'contact_id',
  },
  'contact-projects': {
    childKind: 'project',
    linkTable: 'project_contacts',
    parentCol: 'contact_id',
    childCol: 'project_id',
  },
  'parcel-contacts': {
    childKind: 'contact',
    linkTable: 'parcel_contacts',
    parentCol: 'parcel_id',
    childCol: 'contact_id',
  },
  'contact-parcels': {
    childKind: 'parcel',
    linkTable: 'parcel_contacts',
    parentCol: 'contact_id',
    childCol: 'parcel_id',
  },
  'project-parcels': {
    childKind: 'parcel',
    linkTable: 'project_parcels',
    parentCol: 'project_id',
    childCol: 'parcel_id',
  },
  'parcel-projects': {
    childKind: 'project',
    linkTable: 'project_parcels',
    parentCol: 'parcel_id',
    childCol: 'project_id',
  },
};

/**
 * The GraphQL fields that page through each list, by parent type: the resolvers (records and links)
 * and the planned executor (src/graphql/plan) both read this one table.
 */
export const LIST_FIELDS: Record<string, Record<string, ListName>> = {
  Portfolio: { projects: 'portfolio-projects', parcels: 'portfolio-parcels', contacts: 'portfolio-contacts' },
  Project: { contacts: 'project-contacts', parcels: 'project-parcels' },
  Parcel: { contacts: 'parcel-contacts', projects: 'parcel-projects' },
  Contact: { projects: 'contact-projects', parcels: 'contact-parcels' },
};
