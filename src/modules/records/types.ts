import type { GraphQLResolveInfo } from 'graphql';
import type { RecordKind } from '../../db/types.js';
import type { StoredValue } from '../properties/index.js';
import type { PropertyDefModel } from '../schema/index.js';

export type { StoredValue };

export interface GeoPointModel {
  type: 'Point';
  coordinates: [number, number];
}

/** A project, parcel or contact as the domain sees it. */
export interface RecordModel {
  kind: RecordKind;
  orgId: string;
  portfolioId: string;
  id: string;
  properties: Record<string, StoredValue>;
  createdAt: Date;
  updatedAt: Date;
  /** Projects: the computed location. */
  location?: GeoPointModel | null;
  /** Parcels: the cadastral geometry. */
  geometry?: unknown;
  /** Parcels: the geometry's geodesic area in acres (null without one). */
  acres?: number | null;
}

export interface ValueModel {
  orgId: string;
  propertyId: string;
  def: PropertyDefModel;
  value: StoredValue;
}

export interface EdgeModel {
  node: RecordModel;
  cursor: string;
  linkedAt: Date | null;
}

export interface PageInfoModel {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface ConnectionModel {
  edges: EdgeModel[];
  pageInfo: PageInfoModel;
  /** Computed only when a client asks for it. */
  totalCount: () => Promise<number>;
  /** Whether totalCount is an estimate (repository.ts EXACT_COUNT_LIMIT); absent means exact. */
  totalCountIsEstimate?: () => Promise<boolean>;
  /** Facet counts of one property under the list's filter; absent on lists that have none. */
  facets?: (propertyId: string) => Promise<FacetModel[]>;
  /** The aggregates its selection (`info`) asks for, under the list's filter (aggregate.ts). */
  aggregates?: (info: GraphQLResolveInfo) => Promise<AggregatesModel>;
  groupedAggregates?: (args: GroupedAggregatesArgs, info: GraphQLResolveInfo) => Promise<GroupsModel>;
}

/** RecordAggregates: each aggregate's answer by its sig (aggregate.ts measureSig). */
export interface AggregatesModel {
  values: ReadonlyMap<string, unknown>;
}

export interface GroupedAggregatesArgs {
  groupBy: { propertyId?: string | null; field?: string | null; bucket?: string | null }[];
  orderBy?: {
    by: string;
    propertyId?: string | null;
    field?: string | null;
    direction?: string | null;
  } | null;
  first?: number | null;
}

export interface GroupKeyModel {
  value: string | null;
  label: string | null;
  empty: boolean;
}

export interface GroupModel {
  keys: GroupKeyModel[];
  aggregates: AggregatesModel;
}

export interface GroupsModel {
  groups: GroupModel[];
  totalGroups: number;
  truncated: boolean;
}

export interface FacetModel {
  value: string | null;
  label: string | null;
  count: number;
}

export const RECORD_TABLE = { project: 'projects', parcel: 'parcels', contact: 'contacts' } as const;
/** A record kind's GraphQL type, id type (src/ids.ts) and name in messages. */
export const RECORD_TYPENAME = { project: 'Project', parcel: 'Parcel', contact: 'Contact' } as const;
