import type { RecordKind } from '../db/types.js';
import type { AccessRole as Role } from '../modules/auth/viewer.js';
import type { PropertyTypeName as PropertyType } from '../modules/properties/registry.js';
import type { ChangeOp as ChangeOperation } from '../modules/changes/types.js';
import type { ChangeSourceName as ChangeSource } from '../modules/changes/types.js';
import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { OrgModel, PortfolioModel, UserModel, ViewerModel } from '../modules/org/types.js';
import type { PropertySchemaModel, PropertyDefModel } from '../modules/schema/types.js';
import type { ValueModel, RecordModel, ConnectionModel, EdgeModel, AggregatesModel, GroupsModel, GroupModel } from '../modules/records/types.js';
import type { ChangeConnectionModel, ChangeEdgeModel, ChangeModel, PropertyChangeModel } from '../modules/changes/types.js';
import type { WebhookDeliveryConnectionModel, WebhookDeliveryEdgeModel, WebhookEndpointModel, WebhookDeliveryModel, CreateWebhookEndpointPayloadModel, WebhookEndpointPayloadModel } from '../modules/webhooks/types.js';
import type { FeatureCollectionModel } from '../modules/maps/types.js';
import type { Context } from '../context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type EnumResolverSignature<T, AllowedValues = any> = { [key in keyof T]?: AllowedValues };
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** An ISO 8601 calendar date, `YYYY-MM-DD`. */
  Date: { input: string; output: string; }
  /** An ISO 8601 date-time in UTC, with milliseconds, for example `2026-03-01T12:00:00.000Z`. */
  DateTime: { input: Date; output: Date; }
  /**
   * Any JSON value. Used for `properties`, the raw map of property id to property value object,
   * exactly as REST v1 reads and writes it.
   */
  JSON: { input: unknown; output: unknown; }
};

/** Input of addPropertyOption. */
export type AddPropertyOptionInput = {
  /** The record kind. */
  kind: RecordKind;
  /** The new option. */
  option: SelectOptionInput;
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** Its place among the options, from 0; the end when absent. */
  position?: InputMaybe<Scalars['Int']['input']>;
  /** The select or multi_select property. */
  propertyId: Scalars['ID']['input'];
};

/** One group: its key values, in `groupBy`'s order, and the aggregates of its records. */
export type AggregateGroup = {
  __typename?: 'AggregateGroup';
  /** Aggregates over the group's records. */
  aggregates: RecordAggregates;
  /** One per group key. */
  keys: Array<AggregateGroupKey>;
};

/**
 * One group key: a select, multi_select, people or checkbox property; or, with a `bucket`, a date
 * property or a time field of the record (its UTC day). Exactly one of `propertyId` and `field`.
 */
export type AggregateGroupBy = {
  /** For a date property or a time field: the span of each group. */
  bucket?: InputMaybe<DateBucket>;
  /** A time field of the record (needs `bucket`). */
  field?: InputMaybe<AggregateTimeField>;
  /** A select, multi_select, people, checkbox or (with `bucket`) date property. */
  propertyId?: InputMaybe<Scalars['ID']['input']>;
};

/** A group's value of one key. */
export type AggregateGroupKey = {
  __typename?: 'AggregateGroupKey';
  /** true for the group of records without a value. */
  empty: Scalars['Boolean']['output'];
  /** The option or user name, `Checked` / `Unchecked`, or the bucket (`2026-05-04`, `2026-W19`, `2026-05`, `2026-Q2`, `2026`); `No value` for records without one. */
  label?: Maybe<Scalars['String']['output']>;
  /** The option id, user id, `true` / `false`, or the bucket's first day (YYYY-MM-DD); null for records without a value. */
  value?: Maybe<Scalars['String']['output']>;
};

/** The order of groups. Ties, and groups whose aggregate is null (last), follow the key order. */
export type AggregateGroupOrder = {
  /** KEY (default), COUNT, or an aggregate of a number property or of `ACRES`. */
  by: AggregateGroupOrderBy;
  /** ASC (the default) or DESC. */
  direction?: InputMaybe<OrderDirection>;
  /** For SUM, AVG, MIN and MAX: `ACRES` (parcels). */
  field?: InputMaybe<AggregateNumberField>;
  /** For SUM, AVG, MIN and MAX: a number property. */
  propertyId?: InputMaybe<Scalars['ID']['input']>;
};

/** What orders the groups. */
export type AggregateGroupOrderBy =
  /** The group's mean of `propertyId` or `field`. */
  | 'AVG'
  /** How many records each group holds. */
  | 'COUNT'
  /** The keys: options in schema order, users by id, unticked before ticked, days in order; records without a value last. */
  | 'KEY'
  /** The group's greatest value of `propertyId` or `field`. */
  | 'MAX'
  /** The group's least value of `propertyId` or `field`. */
  | 'MIN'
  /** The group's sum of `propertyId` or `field`. */
  | 'SUM';

/** The groups of a list's records. */
export type AggregateGroups = {
  __typename?: 'AggregateGroups';
  /** Up to `first` groups, in order. Groups without records are not listed. */
  groups: Array<AggregateGroup>;
  /** How many groups there are, listed or not. */
  totalGroups: Scalars['Int']['output'];
  /** true when there are more groups than `first`: the rest were cut. */
  truncated: Scalars['Boolean']['output'];
};

/** A number field of the record that sum, avg, min and max take. */
export type AggregateNumberField =
  /** Parcels only: the boundary's area in acres (parcels without one are skipped). */
  | 'ACRES';

/** A time field of the record, for minTime and maxTime, or to group by. */
export type AggregateTimeField =
  /** Creation time. */
  | 'CREATED_AT'
  /** Last update time. */
  | 'UPDATED_AT';

/** What an administration entry did. */
export type AuditAction =
  /** A user became a member (the command line's `member add`). */
  | 'ADD'
  /** A guest was granted a portfolio (`details`: portfolioId). */
  | 'GUEST_GRANT'
  /** A guest's portfolio was taken back (`details`: portfolioId). */
  | 'GUEST_REVOKE'
  /** A person was invited (`details`: email, role, portfolioIds, userCreated, keyId). */
  | 'INVITE'
  /** An API key was created (`details`: keyId, prefix, label, admin); never the secret. */
  | 'KEY_CREATE'
  /** An API key was revoked (`details`: keyId, prefix). */
  | 'KEY_REVOKE'
  /** A member was removed (`details`: before). */
  | 'REMOVE'
  /** A member's role changed (`details`: before, after). */
  | 'ROLE';

/** One administration entry of the change log: who did what to whom, when. */
export type AuditEntry = {
  __typename?: 'AuditEntry';
  /** What was done. */
  action: AuditAction;
  /** The API key it was done with; null for the command line. */
  apiKeyId?: Maybe<Scalars['ID']['output']>;
  /** When. */
  at: Scalars['DateTime']['output'];
  /** The action's particulars, as listed under AuditAction. */
  details: Scalars['JSON']['output'];
  /** The entry's id (`chg_…`). */
  id: Scalars['ID']['output'];
  /** API or CLI. */
  source: ChangeSource;
  /** The user it was done to. */
  subjectUserId: Scalars['ID']['output'];
  /** Who did it; null for the command line. */
  userId?: Maybe<Scalars['ID']['output']>;
};

/** A page of administration entries. */
export type AuditLogPage = {
  __typename?: 'AuditLogPage';
  /** The entries alone. */
  nodes: Array<AuditEntry>;
  /** Paging. */
  pageInfo: PageInfo;
};

/**
 * A box in longitude and latitude (WGS 84). It may not cross the antimeridian: use two boxes joined
 * by `or`.
 */
export type BoundingBox = {
  /** Eastern edge, not less than west. */
  east: Scalars['Float']['input'];
  /** Northern edge, not less than south. */
  north: Scalars['Float']['input'];
  /** Southern edge, in degrees of latitude (-90..90). */
  south: Scalars['Float']['input'];
  /** Western edge, in degrees of longitude (-180..180). */
  west: Scalars['Float']['input'];
};

/** Input of linkRecords and unlinkRecords: up to 1,000 pairs of one portfolio. */
export type BulkLinkInput = {
  /** When true, nothing is written if any pair fails; every valid pair then answers NOT_WRITTEN. */
  allOrNone?: InputMaybe<Scalars['Boolean']['input']>;
  /** The organization. */
  orgId: Scalars['ID']['input'];
  /** The pairs, at most 1,000. */
  pairs: Array<LinkPairInput>;
  /** The portfolio both records of every pair belong to. */
  portfolioId: Scalars['ID']['input'];
  /** The source of the pairs' `externalId`s; required when any side is named by external id. */
  source?: InputMaybe<Scalars['String']['input']>;
  /** What the pairs join. */
  type: LinkType;
};

/** Result of a bulk link or unlink. */
export type BulkLinkPayload = {
  __typename?: 'BulkLinkPayload';
  /** How many pairs changed (linked or unlinked). */
  changed: Scalars['Int']['output'];
  /** How many failed. */
  failed: Scalars['Int']['output'];
  /** One result per pair, in the order of `pairs`. */
  results: Array<BulkLinkResult>;
  /** How many pairs were already so. */
  unchanged: Scalars['Int']['output'];
};

/** One pair's answer in a bulk link or unlink. */
export type BulkLinkResult = {
  __typename?: 'BulkLinkResult';
  /** The project or parcel id; null when it was not found. */
  fromId?: Maybe<Scalars['ID']['output']>;
  /** The pair's position in `pairs`, from 0. */
  index: Scalars['Int']['output'];
  /** CREATED (linked), DELETED (unlinked), UNCHANGED (already so) or FAILED. */
  outcome: BulkOutcome;
  /** The contact id; null when it was not found. */
  toId?: Maybe<Scalars['ID']['output']>;
  /** Why it failed; empty unless outcome is FAILED. */
  userErrors: Array<UserError>;
};

/** What a bulk write did with one item. */
export type BulkOutcome =
  /** A new record (or link) was written. */
  | 'CREATED'
  /** A link or unlink removed a link. */
  | 'DELETED'
  /** The item was refused (see its userErrors), or, under allOrNone, not written. */
  | 'FAILED'
  /** The record already held these values (or the pair was already so): nothing was written. */
  | 'UNCHANGED'
  /** The record's values changed and were written. */
  | 'UPDATED';

/** One entry of the change log, written in the same transaction as the change itself. */
export type Change = {
  __typename?: 'Change';
  /** The API key it was made with (`key_…`); null for the command line. */
  apiKeyId?: Maybe<Scalars['ID']['output']>;
  /** When the change was made. */
  at: Scalars['DateTime']['output'];
  /** The entry's id (`chg_…`), unique and stable; use it to drop duplicates. */
  id: Scalars['ID']['output'];
  /** What happened. */
  operation: ChangeOperation;
  /** The portfolio of the record; null for SCHEMA. */
  portfolioId?: Maybe<Scalars['ID']['output']>;
  /** CREATE, UPDATE and DELETE: each property that changed, before and after (absent on the side where it was not set). */
  properties: Array<PropertyChange>;
  /** The record as it is now; null once deleted, and for SCHEMA. */
  record?: Maybe<PropertyRecord>;
  /** The record's id (for SCHEMA, the property id). */
  recordId: Scalars['ID']['output'];
  /** The kind of record changed (for SCHEMA, the kind whose schema changed). */
  recordKind: RecordKind;
  /** LINK and UNLINK: the other record. */
  relatedId?: Maybe<Scalars['ID']['output']>;
  /** SCHEMA: the property definition before (null when new) and after, as `{ before, after }`. */
  schema?: Maybe<Scalars['JSON']['output']>;
  /** API or CLI. */
  source: ChangeSource;
  /** Who made it; null for the command line, or when the user no longer belongs to the organization. */
  user?: Maybe<User>;
  /** The id of the user who made it; null for the command line. */
  userId?: Maybe<Scalars['ID']['output']>;
};

/** A page of changes. */
export type ChangeConnection = {
  __typename?: 'ChangeConnection';
  /** The changes, each with its cursor. */
  edges: Array<ChangeEdge>;
  /** The changes alone. */
  nodes: Array<Change>;
  /** Paging. On `changes`, `endCursor` is the position to store: the last change's, or the `after` given when nothing is new. */
  pageInfo: PageInfo;
};

/** A change and its cursor. */
export type ChangeEdge = {
  __typename?: 'ChangeEdge';
  /** Opaque position of this change. */
  cursor: Scalars['String']['output'];
  /** The change. */
  node: Change;
};

export { ChangeOperation };

/** Input of changePropertyType. */
export type ChangePropertyTypeInput = {
  /** Clear the values that do not convert (each logged) instead of refusing the change. */
  clearUnconvertible?: InputMaybe<Scalars['Boolean']['input']>;
  /** Only report what would convert; change nothing. */
  dryRun?: InputMaybe<Scalars['Boolean']['input']>;
  /** The record kind. */
  kind: RecordKind;
  /** For a select or multi_select target: its options (a select's own are kept when absent). Values match them by id, then by name. */
  options?: InputMaybe<Array<SelectOptionInput>>;
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
  /** The new type; to or from PEOPLE is refused. */
  type: PropertyType;
};

/** Result of changePropertyType. */
export type ChangePropertyTypePayload = {
  __typename?: 'ChangePropertyTypePayload';
  /** How many values convert. */
  convertible: Scalars['Int']['output'];
  /** Whether nothing was changed. */
  dryRun: Scalars['Boolean']['output'];
  /** The property: with its new type, or (on a dry run) as it is. */
  property: PropertyDefinition;
  /** How many records were written (0 on a dry run). */
  recordsChanged: Scalars['Int']['output'];
  /** The first 100 values that do not convert. */
  unconvertible: Array<UnconvertibleValue>;
  /** How many values do not. */
  unconvertibleCount: Scalars['Int']['output'];
};

export { ChangeSource };

/** Checkbox operators. */
export type CheckboxFilter = {
  /** Ticked (true) or unticked (false); records without a value match neither. */
  eq?: InputMaybe<Scalars['Boolean']['input']>;
  /** true: no value; false: ticked or unticked. */
  isEmpty?: InputMaybe<Scalars['Boolean']['input']>;
};

/** A checkbox value. */
export type CheckboxValue = PropertyValue & {
  __typename?: 'CheckboxValue';
  /** Whether the box is ticked. */
  checked: Scalars['Boolean']['output'];
  /** The property's definition. */
  property: PropertyDefinition;
  /** The property id. */
  propertyId: Scalars['ID']['output'];
};

/** A person or company: land owner, broker, counsel. */
export type Contact = Node & PropertyRecord & {
  __typename?: 'Contact';
  /** When it was created. */
  createdAt: Scalars['DateTime']['output'];
  /** The ids other systems know this record by, one per source, ordered by source. */
  externalIds: Array<ExternalId>;
  /** Every change to this contact, newest first: who made it, when, and which properties changed from what to what. */
  history: ChangeConnection;
  /** The contact id (`con_…`). */
  id: Scalars['ID']['output'];
  /** Parcels this contact is linked to, in link order. */
  parcels: ParcelConnection;
  /** The portfolio the contact belongs to. */
  portfolio: Portfolio;
  /** Projects this contact is linked to, in link order. */
  projects: ProjectConnection;
  /** The raw property map, as REST v1 returns it. */
  properties: Scalars['JSON']['output'];
  /** When it was last changed. */
  updatedAt: Scalars['DateTime']['output'];
  /** One typed value, or null. */
  value?: Maybe<PropertyValue>;
  /** The set properties as typed values. */
  values: Array<PropertyValue>;
};


/** A person or company: land owner, broker, counsel. */
export type ContactHistoryArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** A person or company: land owner, broker, counsel. */
export type ContactParcelsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A person or company: land owner, broker, counsel. */
export type ContactProjectsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A person or company: land owner, broker, counsel. */
export type ContactValueArgs = {
  propertyId: Scalars['ID']['input'];
};

/** A page of contacts. */
export type ContactConnection = {
  __typename?: 'ContactConnection';
  /** Counts, sums, averages, minimums and maximums over every record of the list under its filter and search, not only this page (docs/graphql.md#dashboards-aggregates). */
  aggregates: RecordAggregates;
  /** The edges of this page. */
  edges: Array<ContactEdge>;
  /** Counts per option (select, multi_select), per user (people) or per state (checkbox: true, false) of one property, under the filter and search. */
  facets: Array<Facet>;
  /** The list's records under its filter and search, grouped by one or two keys, with aggregates per group. */
  groupedAggregates: AggregateGroups;
  /** The contacts of this page, without edge data. */
  nodes: Array<Contact>;
  /** Paging information. */
  pageInfo: PageInfo;
  /** How many contacts the list holds under the filter and search; computed only when asked for. */
  totalCount: Scalars['Int']['output'];
  /** True when totalCount is an estimate: under a filter or search, more than 1,000 contacts match and the count is extrapolated from a sample of the list (docs/graphql.md#totalcount-at-county-scale). Without a filter or search the count is always exact. */
  totalCountIsEstimate: Scalars['Boolean']['output'];
};


/** A page of contacts. */
export type ContactConnectionFacetsArgs = {
  propertyId: Scalars['ID']['input'];
};


/** A page of contacts. */
export type ContactConnectionGroupedAggregatesArgs = {
  first?: InputMaybe<Scalars['Int']['input']>;
  groupBy: Array<AggregateGroupBy>;
  orderBy?: InputMaybe<AggregateGroupOrder>;
};

/** A contact in a page. */
export type ContactEdge = {
  __typename?: 'ContactEdge';
  /** Opaque cursor for `after` / `before`. */
  cursor: Scalars['String']['output'];
  /** When the link was made; null on portfolio lists. */
  linkedAt?: Maybe<Scalars['DateTime']['output']>;
  /** The contact. */
  node: Contact;
};

/** Result of a contact write. */
export type ContactPayload = {
  __typename?: 'ContactPayload';
  /** The contact as stored; null when the write was refused (see userErrors); after a CONFLICT, as it is now. */
  contact?: Maybe<Contact>;
  /** Why the write was refused; empty when it succeeded. A CONFLICT leaves the record unchanged. */
  userErrors: Array<UserError>;
};

/** Input of createApiKey. */
export type CreateApiKeyInput = {
  /** An admin key (may send documents outside the trusted list); only an admin key can make one. */
  admin?: InputMaybe<Scalars['Boolean']['input']>;
  /** A label, to tell keys apart. */
  label?: InputMaybe<Scalars['String']['input']>;
  /** The organization whose owner or admin you are. */
  organizationId: Scalars['ID']['input'];
  /** The user the key acts as; yourself when absent. Another user's key needs you to manage every organization they belong to (and own those they own). */
  userId?: InputMaybe<Scalars['ID']['input']>;
};

/** Result of createApiKey. */
export type CreateApiKeyPayload = {
  __typename?: 'CreateApiKeyPayload';
  /** The secret (`sdg_…`). Shown only here; the gateway keeps its hash. */
  apiKey: Scalars['String']['output'];
  /** The key's id (`key_…`), to revoke it. */
  id: Scalars['ID']['output'];
  /** The first characters of the key, safe to show. */
  prefix: Scalars['String']['output'];
  /** The user it acts as. */
  userId: Scalars['ID']['output'];
};

/** Input of createProperty. */
export type CreatePropertyInput = {
  /** The new property's id, the key of its values: a letter, then letters, digits, - or _ (at most 64). */
  id: Scalars['ID']['input'];
  /** The record kind whose schema gets the property. */
  kind: RecordKind;
  /** Its display name. */
  name: Scalars['String']['input'];
  /** Its options (select and multi_select only, at least one). */
  options?: InputMaybe<Array<SelectOptionInput>>;
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** Whether creates must set it; refused while records of the kind exist (create it optional, fill it, then require it). */
  required?: InputMaybe<Scalars['Boolean']['input']>;
  /** The type of its values. */
  type: PropertyType;
};

/** Input of a create. */
export type CreateRecordInput = {
  /** The organization. */
  orgId: Scalars['ID']['input'];
  /** The portfolio that will hold the record. */
  portfolioId: Scalars['ID']['input'];
  /** Property id → value object, as in REST v1. Give this or `values`, not both. */
  properties?: InputMaybe<Scalars['JSON']['input']>;
  /** The same as typed entries, one per property: what a typed client (codegen) sends. */
  values?: InputMaybe<Array<PropertyValueEntry>>;
};

/** Input of createWebhookEndpoint. */
export type CreateWebhookEndpointInput = {
  /** The events to send (at least one); see WebhookEndpoint.events. */
  events: Array<Scalars['String']['input']>;
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** Only changes in these portfolios of the organization; every portfolio when absent. */
  portfolioIds?: InputMaybe<Array<Scalars['ID']['input']>>;
  /** An http(s) URL; loopback, link-local and private addresses are refused unless the gateway allows them. */
  url: Scalars['String']['input'];
};

/** Result of createWebhookEndpoint. */
export type CreateWebhookEndpointPayload = {
  __typename?: 'CreateWebhookEndpointPayload';
  /** The endpoint. */
  endpoint: WebhookEndpoint;
  /** The signing secret (`whsec_…`). Shown only here: store it with the receiver. */
  secret: Scalars['String']['output'];
};

/** A span of days that groups dates: the group's key is its first day. */
export type DateBucket =
  /** One day. */
  | 'DAY'
  /** A calendar month. */
  | 'MONTH'
  /** A calendar quarter (January, April, July, October). */
  | 'QUARTER'
  /** An ISO week, Monday to Sunday. */
  | 'WEEK'
  /** A calendar year. */
  | 'YEAR';

/** Date operators, on the value's start date. Several operators in one group must all hold. */
export type DateFilter = {
  /** Strictly after this day. */
  after?: InputMaybe<Scalars['Date']['input']>;
  /** Strictly before this day. */
  before?: InputMaybe<Scalars['Date']['input']>;
  /** Within [from, to], both days included. */
  between?: InputMaybe<DateRange>;
  /** On this day. */
  eq?: InputMaybe<Scalars['Date']['input']>;
  /** true: no value; false: any value. */
  isEmpty?: InputMaybe<Scalars['Boolean']['input']>;
};

/** An inclusive range of days. */
export type DateRange = {
  /** First day included (YYYY-MM-DD). */
  from: Scalars['Date']['input'];
  /** Last day included (YYYY-MM-DD). */
  to: Scalars['Date']['input'];
};

/** A range of instants: `from` included, `to` excluded. Either end may be left out. */
export type DateTimeRange = {
  /** Earliest instant included. */
  from?: InputMaybe<Scalars['DateTime']['input']>;
  /** First instant excluded. */
  to?: InputMaybe<Scalars['DateTime']['input']>;
};

/** A date value. */
export type DateValue = PropertyValue & {
  __typename?: 'DateValue';
  /** The property's definition. */
  property: PropertyDefinition;
  /** The property id. */
  propertyId: Scalars['ID']['output'];
  /** The date. */
  start: Scalars['Date']['output'];
};

/** A date value. */
export type DateValueInput = {
  /** The date. */
  start: Scalars['Date']['input'];
};

/** Result of a delete. */
export type DeletePayload = {
  __typename?: 'DeletePayload';
  /** The id of the deleted record. */
  deletedId: Scalars['ID']['output'];
  /** Always empty for now; there for clients that read every payload the same way. */
  userErrors: Array<UserError>;
};

/** Input of deleteProperty. */
export type DeletePropertyInput = {
  /** Only count the records holding values; change nothing. */
  dryRun?: InputMaybe<Scalars['Boolean']['input']>;
  /** The record kind. */
  kind: RecordKind;
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
};

/** Result of deleteProperty. */
export type DeletePropertyPayload = {
  __typename?: 'DeletePropertyPayload';
  /** Whether nothing was changed. */
  dryRun: Scalars['Boolean']['output'];
  /** The property id. */
  propertyId: Scalars['ID']['output'];
  /** How many records hold (or held) a value of it. */
  recordsWithValues: Scalars['Int']['output'];
};

/** Input of a delete. */
export type DeleteRecordInput = {
  /** The record id. */
  id: Scalars['ID']['input'];
  /** When given, the record must belong to this organization. */
  orgId?: InputMaybe<Scalars['ID']['input']>;
  /** When given, the record must belong to this portfolio. */
  portfolioId?: InputMaybe<Scalars['ID']['input']>;
};

/** Result of deleteWebhookEndpoint. */
export type DeleteWebhookEndpointPayload = {
  __typename?: 'DeleteWebhookEndpointPayload';
  /** The id of the endpoint removed. */
  deletedId: Scalars['ID']['output'];
};

/** A point and a distance from it. */
export type DistanceFilter = {
  /** Latitude of the point, in degrees (-90..90). */
  latitude: Scalars['Float']['input'];
  /** Longitude of the point, in degrees (-180..180). */
  longitude: Scalars['Float']['input'];
  /** Distance in metres, more than 0 and at most 1,000,000. */
  meters: Scalars['Float']['input'];
};

/**
 * An id another system (a source) knows a record by. Unique within the organization: one record per
 * source and id.
 */
export type ExternalId = {
  __typename?: 'ExternalId';
  /** The record's id in that source. */
  id: Scalars['String']['output'];
  /** The source's name, as declared with registerExternalSource. */
  source: Scalars['String']['output'];
};

/** A source and one of its ids, in filters. */
export type ExternalIdInput = {
  /** The id in that source. */
  id: Scalars['String']['input'];
  /** The source's name. */
  source: Scalars['String']['input'];
};

/** How many records of the list have one option, user or checkbox state (or no value) in a property. */
export type Facet = {
  __typename?: 'Facet';
  /** How many records, under the connection's filter and search. */
  count: Scalars['Int']['output'];
  /** The option name, user name, or `Checked` / `Unchecked`; null for records without a value. */
  label?: Maybe<Scalars['String']['output']>;
  /** The option id, user id, or `true` / `false` for a checkbox; null for records without a value. */
  value?: Maybe<Scalars['ID']['output']>;
};

/** One record as a GeoJSON Feature. */
export type Feature = {
  __typename?: 'Feature';
  /** A parcel's boundary (Polygon or MultiPolygon), a project's location (Point); null without one. */
  geometry?: Maybe<Scalars['JSON']['output']>;
  /** The record id, usable as the map's feature id. */
  id: Scalars['ID']['output'];
  /**
   * The record's values, flat for map styles: a scalar value as it is; a select or people value as
   * the option or user id, with its display name under `<propertyId>.label`; a multi-select value as
   * its option ids joined by commas, with their names joined by ", " under `<propertyId>.label`.
   * Also `_id` (the record id) and, on parcels, `_acres` (the boundary's area). Vector tiles carry
   * the same keys.
   */
  properties: Scalars['JSON']['output'];
  /** Always `Feature`. */
  type: Scalars['String']['output'];
};

/** A page of records as a GeoJSON FeatureCollection (RFC 7946), with the paging of the record lists. */
export type FeatureCollection = {
  __typename?: 'FeatureCollection';
  /** The page's records, in the list's order. */
  features: Array<Feature>;
  /** Where the page sits in the list; `endCursor` is the `after` of the next page. */
  pageInfo: PageInfo;
  /** How many records match, over every page. */
  totalCount: Scalars['Int']['output'];
  /** True when totalCount is an estimate, as on the record connections: under a filter with more than 1,000 matches (docs/graphql.md#totalcount-at-county-scale). */
  totalCountIsEstimate: Scalars['Boolean']['output'];
  /** Always `FeatureCollection`. */
  type: Scalars['String']['output'];
};

/** A WGS 84 point. */
export type GeoPoint = {
  __typename?: 'GeoPoint';
  /** The point as GeoJSON, `{ type: "Point", coordinates: [lon, lat] }`. */
  geojson: Scalars['JSON']['output'];
  /** Latitude in degrees. */
  latitude: Scalars['Float']['output'];
  /** Longitude in degrees. */
  longitude: Scalars['Float']['output'];
};

/** Input of grantGuestAccess and revokeGuestAccess. */
export type GuestAccessInput = {
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The portfolio. */
  portfolioId: Scalars['ID']['input'];
  /** The user (not a member of the organization). */
  userId: Scalars['ID']['input'];
};

/** Result of grantGuestAccess and revokeGuestAccess. */
export type GuestAccessPayload = {
  __typename?: 'GuestAccessPayload';
  /** The portfolio granted or revoked. */
  portfolioId: Scalars['ID']['output'];
  /** Every portfolio of the organization they reach now. */
  portfolioIds: Array<Scalars['ID']['output']>;
  /** The guest. */
  user: User;
};

/** Input of inviteUser. */
export type InviteUserInput = {
  /** The person's e-mail: an existing user with it is invited as they are; otherwise a user is created. */
  email: Scalars['String']['input'];
  /** The person's name; needed when the e-mail is new. */
  name?: InputMaybe<Scalars['String']['input']>;
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** GUEST only: the portfolios they may reach. */
  portfolioIds?: InputMaybe<Array<Scalars['ID']['input']>>;
  /** Their role: OWNER (owners only), ADMIN, MEMBER, VIEWER, or GUEST with `portfolioIds`. */
  role: Role;
};

/** Result of inviteUser. */
export type InviteUserPayload = {
  __typename?: 'InviteUserPayload';
  /** A new user's first API key, shown only here: hand it to them. Null for a user who existed. */
  apiKey?: Maybe<Scalars['String']['output']>;
  /** That key's id (`key_…`), to revoke it. */
  apiKeyId?: Maybe<Scalars['ID']['output']>;
  /** Their role now. */
  role: Role;
  /** The user invited. */
  user: User;
  /** Whether the invite created the user. */
  userCreated: Scalars['Boolean']['output'];
};

/** One pair of a bulk link or unlink. */
export type LinkPairInput = {
  /** The project or parcel. */
  from: RecordRef;
  /** The contact. */
  to: RecordRef;
};

/** Which records a bulk link joins. */
export type LinkType =
  /** A parcel (`from`) and a contact (`to`). */
  | 'PARCEL_CONTACT'
  /** A project (`from`) and a contact (`to`). */
  | 'PROJECT_CONTACT';

/** A map layer of a portfolio. */
export type MapLayer =
  /** Parcels, drawn by their boundary. */
  | 'PARCELS'
  /** Projects, drawn as a point at their location. */
  | 'PROJECTS';

/** Result of setMemberRole. */
export type MemberPayload = {
  __typename?: 'MemberPayload';
  /** Their role now. */
  role: Role;
  /** The member. */
  user: User;
};

/** Input of mergePropertyOptions. */
export type MergePropertyOptionsInput = {
  /** The option that stays. */
  intoOptionId: Scalars['ID']['input'];
  /** The record kind. */
  kind: RecordKind;
  /** The option that goes: its values move to `intoOptionId`. */
  optionId: Scalars['ID']['input'];
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
};

/** Result of mergePropertyOptions. */
export type MergePropertyOptionsPayload = {
  __typename?: 'MergePropertyOptionsPayload';
  /** The property, without the merged option. */
  property: PropertyDefinition;
  /** How many records had their value moved. */
  recordsChanged: Scalars['Int']['output'];
};

/** Input of moveProperty. */
export type MovePropertyInput = {
  /** The record kind. */
  kind: RecordKind;
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** Its new place, from 0. */
  position: Scalars['Int']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
};

/** Input of movePropertyOption. */
export type MovePropertyOptionInput = {
  /** The record kind. */
  kind: RecordKind;
  /** The option. */
  optionId: Scalars['ID']['input'];
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** Its new place among the options, from 0. */
  position: Scalars['Int']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
};

/** Multi-select operators, with option ids of the property. */
export type MultiSelectFilter = {
  /** The value holds every one of these options. */
  containsAll?: InputMaybe<Array<Scalars['ID']['input']>>;
  /** The value holds at least one of these options. */
  containsAny?: InputMaybe<Array<Scalars['ID']['input']>>;
  /** true: no value or no option; false: at least one option. */
  isEmpty?: InputMaybe<Scalars['Boolean']['input']>;
};

/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type Mutation = {
  __typename?: 'Mutation';
  /** Adds one option to a select or multi_select property. */
  addPropertyOption: PropertyPayload;
  /** Changes a property's type, converting its values; `dryRun` lists the values that would not convert. */
  changePropertyType: ChangePropertyTypePayload;
  /** Creates an API key for yourself or for a user of the organization; the secret is in the answer only. */
  createApiKey: CreateApiKeyPayload;
  /** Creates a contact. */
  createContact: ContactPayload;
  /** Creates a project. `properties` uses the REST v1 value objects; the required properties must be set. */
  createProject: ProjectPayload;
  /** Adds a property to a record kind's schema (owners and admins). */
  createProperty: PropertyPayload;
  /** Registers a webhook endpoint (organization owners only). The answer carries its signing secret, shown only this once. */
  createWebhookEndpoint: CreateWebhookEndpointPayload;
  /** Deletes a contact and its links; the linked records stay. */
  deleteContact: DeletePayload;
  /** Deletes a project and its links; the linked records stay. */
  deleteProject: DeletePayload;
  /** Deletes a property and its values; `dryRun` counts the records holding values. */
  deleteProperty: DeletePropertyPayload;
  /** Removes a webhook endpoint and its delivery log (organization owners only). */
  deleteWebhookEndpoint: DeleteWebhookEndpointPayload;
  /** Turns on an endpoint that was disabled after repeated failures, with its failure count reset; its pending deliveries go out again. */
  enableWebhookEndpoint: WebhookEndpointPayload;
  /** Lets a guest reach one more portfolio. */
  grantGuestAccess: GuestAccessPayload;
  /** Invites a person: creates the user when the e-mail is new, and their membership or guest grants. A new user's first API key is in the answer, shown once. */
  inviteUser: InviteUserPayload;
  /** Links a contact to a parcel of the same portfolio; linking a linked pair changes nothing. */
  linkParcelContact: ParcelContactPayload;
  /** Links a contact to a project of the same portfolio; linking a linked pair changes nothing. */
  linkProjectContact: ProjectContactPayload;
  /** Links up to 1,000 pairs of records, each side named by id or by external id; linking a linked pair changes nothing. */
  linkRecords: BulkLinkPayload;
  /** Moves every value of one option to another and removes the first, in one transaction; each changed record is logged. */
  mergePropertyOptions: MergePropertyOptionsPayload;
  /** Moves a property to a position in its schema's order. */
  moveProperty: PropertyPayload;
  /** Moves one option to a position in the property's option order. */
  movePropertyOption: PropertyPayload;
  /** Gives one option another colour. */
  recolorPropertyOption: PropertyPayload;
  /** Declares an external id source of the organization (owners and admins). Declaring a declared one changes nothing. */
  registerExternalSource: RegisterExternalSourcePayload;
  /** Removes a member from the organization; the last owner cannot be removed. */
  removeMember: RemoveMemberPayload;
  /** Removes an option no record holds; one in use is refused (merge it with mergePropertyOptions). */
  removePropertyOption: PropertyPayload;
  /** Renames a property; its id, and so its values, stay. */
  renameProperty: PropertyPayload;
  /** Renames one option; values keep pointing at it by id. */
  renamePropertyOption: PropertyPayload;
  /** Revokes an API key at once: its next request gets 401. */
  revokeApiKey: RevokeApiKeyPayload;
  /** Takes a portfolio back from a guest. */
  revokeGuestAccess: GuestAccessPayload;
  /** Sets a member's role. Nobody raises their own role; only owners make or change owners; the last owner stays an owner. */
  setMemberRole: MemberPayload;
  /** Makes a property required or optional; required is refused while records lack a value. */
  setPropertyRequired: PropertyPayload;
  /** Removes a parcel–contact link; both records stay. Unlinking an unlinked pair succeeds. */
  unlinkParcelContact: ParcelContactPayload;
  /** Removes a project–contact link; both records stay. Unlinking an unlinked pair succeeds. */
  unlinkProjectContact: ProjectContactPayload;
  /** Unlinks up to 1,000 pairs of records; unlinking an unlinked pair changes nothing. */
  unlinkRecords: BulkLinkPayload;
  /** Changes only the listed properties of a contact. */
  updateContact: ContactPayload;
  /** Changes only the listed properties of a parcel. Parcels cannot be created or deleted here. */
  updateParcel: ParcelPayload;
  /** Changes only the listed properties of a project; `{ text: null }` and the like clear one. */
  updateProject: ProjectPayload;
  /** Creates or updates up to 1,000 contacts by external id, in one call. */
  upsertContacts: UpsertRecordsPayload;
  /** Creates or updates up to 1,000 parcels, with their geometry, by external id (owners and admins only). */
  upsertParcels: UpsertRecordsPayload;
  /** Creates or updates up to 1,000 projects by external id, in one call (see docs/sync.md). */
  upsertProjects: UpsertRecordsPayload;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationAddPropertyOptionArgs = {
  input: AddPropertyOptionInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationChangePropertyTypeArgs = {
  input: ChangePropertyTypeInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationCreateApiKeyArgs = {
  input: CreateApiKeyInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationCreateContactArgs = {
  input: CreateRecordInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationCreateProjectArgs = {
  input: CreateRecordInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationCreatePropertyArgs = {
  input: CreatePropertyInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationCreateWebhookEndpointArgs = {
  input: CreateWebhookEndpointInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationDeleteContactArgs = {
  input: DeleteRecordInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationDeleteProjectArgs = {
  input: DeleteRecordInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationDeletePropertyArgs = {
  input: DeletePropertyInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationDeleteWebhookEndpointArgs = {
  input: WebhookEndpointIdInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationEnableWebhookEndpointArgs = {
  input: WebhookEndpointIdInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationGrantGuestAccessArgs = {
  input: GuestAccessInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationInviteUserArgs = {
  input: InviteUserInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationLinkParcelContactArgs = {
  input: ParcelContactInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationLinkProjectContactArgs = {
  input: ProjectContactInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationLinkRecordsArgs = {
  input: BulkLinkInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationMergePropertyOptionsArgs = {
  input: MergePropertyOptionsInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationMovePropertyArgs = {
  input: MovePropertyInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationMovePropertyOptionArgs = {
  input: MovePropertyOptionInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationRecolorPropertyOptionArgs = {
  input: RecolorPropertyOptionInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationRegisterExternalSourceArgs = {
  input: RegisterExternalSourceInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationRemoveMemberArgs = {
  input: RemoveMemberInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationRemovePropertyOptionArgs = {
  input: PropertyOptionInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationRenamePropertyArgs = {
  input: RenamePropertyInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationRenamePropertyOptionArgs = {
  input: RenamePropertyOptionInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationRevokeApiKeyArgs = {
  input: RevokeApiKeyInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationRevokeGuestAccessArgs = {
  input: GuestAccessInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationSetMemberRoleArgs = {
  input: SetMemberRoleInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationSetPropertyRequiredArgs = {
  input: SetPropertyRequiredInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUnlinkParcelContactArgs = {
  input: ParcelContactInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUnlinkProjectContactArgs = {
  input: ProjectContactInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUnlinkRecordsArgs = {
  input: BulkLinkInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUpdateContactArgs = {
  input: UpdateRecordInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUpdateParcelArgs = {
  input: UpdateRecordInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUpdateProjectArgs = {
  input: UpdateRecordInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUpsertContactsArgs = {
  input: UpsertRecordsInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUpsertParcelsArgs = {
  input: UpsertRecordsInput;
};


/**
 * Every write. Expected failures are data: a write refused for its values (a value that does not fit
 * its property, an unknown or read-only property, a required one missing) answers with the payload's
 * `userErrors`, all of them at once, and its record null; nothing is written. Failures of the request
 * itself stay GraphQL errors with `extensions.code`: UNAUTHENTICATED (no valid key), FORBIDDEN (a
 * read-only role), NOT_FOUND (absent or out of reach), and malformed input (VALIDATION_FAILED, for
 * example an empty id).
 */
export type MutationUpsertProjectsArgs = {
  input: UpsertRecordsInput;
};

/**
 * An object with a globally unique id. Ids carry a short type prefix (`prj_`, `con_`, …) and are the
 * same strings REST v1 uses.
 */
export type Node = {
  /** The globally unique id. */
  id: Scalars['ID']['output'];
};

/** Where records without a value go. */
export type NullsOrder =
  /** Before every value. */
  | 'FIRST'
  /** After every value (the default). */
  | 'LAST';

/** Number operators. Several operators in one group must all hold. */
export type NumberFilter = {
  /** Within [min, max], both included. */
  between?: InputMaybe<NumberRange>;
  /** Equal to. */
  eq?: InputMaybe<Scalars['Float']['input']>;
  /** Greater than. */
  gt?: InputMaybe<Scalars['Float']['input']>;
  /** Greater than or equal to. */
  gte?: InputMaybe<Scalars['Float']['input']>;
  /** true: no value; false: any value. */
  isEmpty?: InputMaybe<Scalars['Boolean']['input']>;
  /** Less than. */
  lt?: InputMaybe<Scalars['Float']['input']>;
  /** Less than or equal to. */
  lte?: InputMaybe<Scalars['Float']['input']>;
};

/** An inclusive number range. */
export type NumberRange = {
  /** Highest value included. */
  max: Scalars['Float']['input'];
  /** Lowest value included. */
  min: Scalars['Float']['input'];
};

/** A number value. */
export type NumberValue = PropertyValue & {
  __typename?: 'NumberValue';
  /** The number. */
  number: Scalars['Float']['output'];
  /** The property's definition. */
  property: PropertyDefinition;
  /** The property id. */
  propertyId: Scalars['ID']['output'];
};

/** Sort direction. */
export type OrderDirection =
  /** Smallest first. */
  | 'ASC'
  /** Largest first. */
  | 'DESC';

/** A company using the service; the tenant boundary. */
export type Organization = Node & {
  __typename?: 'Organization';
  /** The organization's administration entries (invites, roles, guest grants, keys), newest first. Owners and admins only; others get FORBIDDEN. */
  auditLog: AuditLogPage;
  /** The external id sources declared here (see registerExternalSource), by name. */
  externalSources: Array<Scalars['String']['output']>;
  /** The organization id (`org_…`). */
  id: Scalars['ID']['output'];
  /** Display name. */
  name: Scalars['String']['output'];
  /** One portfolio of this organization, or null when it does not exist or is out of reach. */
  portfolio?: Maybe<Portfolio>;
  /** The portfolios the caller can reach, oldest first. */
  portfolios: Array<Portfolio>;
  /** The property schema of one record kind: which properties exist and their types. */
  propertySchema: PropertySchema;
  /** Members, and guests who reach any of this organization's portfolios. */
  users: Array<User>;
  /** The caller's role here; GUEST when the caller only reaches some portfolios. */
  viewerRole: Role;
  /** The webhook endpoints registered here, oldest first. Owners only: anyone else gets FORBIDDEN. */
  webhookEndpoints: Array<WebhookEndpoint>;
};


/** A company using the service; the tenant boundary. */
export type OrganizationAuditLogArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** A company using the service; the tenant boundary. */
export type OrganizationPortfolioArgs = {
  id: Scalars['ID']['input'];
};


/** A company using the service; the tenant boundary. */
export type OrganizationPropertySchemaArgs = {
  kind: RecordKind;
};

/** Relay page information. */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** Cursor of the last edge, or null on an empty page. */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** Whether items exist after `endCursor`. */
  hasNextPage: Scalars['Boolean']['output'];
  /** Whether items exist before `startCursor`. */
  hasPreviousPage: Scalars['Boolean']['output'];
  /** Cursor of the first edge, or null on an empty page. */
  startCursor?: Maybe<Scalars['String']['output']>;
};

/** A parcel of land. Parcels come from cadastral data; the API can update and link them only. */
export type Parcel = Node & PropertyRecord & {
  __typename?: 'Parcel';
  /** The boundary's geodesic area in acres, holes subtracted, computed when it is written; null without a boundary. */
  acres?: Maybe<Scalars['Float']['output']>;
  /** Contacts linked to this parcel, in link order. */
  contacts: ContactConnection;
  /** When it was created. */
  createdAt: Scalars['DateTime']['output'];
  /** The ids other systems know this record by, one per source, ordered by source. */
  externalIds: Array<ExternalId>;
  /** The parcel boundary as a GeoJSON geometry (Polygon or MultiPolygon), or null. */
  geometry?: Maybe<Scalars['JSON']['output']>;
  /** Every change to this parcel, newest first: who made it, when, and which properties changed from what to what. */
  history: ChangeConnection;
  /** The parcel id (`par_…`). */
  id: Scalars['ID']['output'];
  /** The portfolio the parcel belongs to. */
  portfolio: Portfolio;
  /** Projects this parcel belongs to, in link order. */
  projects: ProjectConnection;
  /** The raw property map, as REST v1 returns it. */
  properties: Scalars['JSON']['output'];
  /** When it was last changed. */
  updatedAt: Scalars['DateTime']['output'];
  /** One typed value, or null. */
  value?: Maybe<PropertyValue>;
  /** The set properties as typed values. */
  values: Array<PropertyValue>;
};


/** A parcel of land. Parcels come from cadastral data; the API can update and link them only. */
export type ParcelContactsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A parcel of land. Parcels come from cadastral data; the API can update and link them only. */
export type ParcelHistoryArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** A parcel of land. Parcels come from cadastral data; the API can update and link them only. */
export type ParcelProjectsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A parcel of land. Parcels come from cadastral data; the API can update and link them only. */
export type ParcelValueArgs = {
  propertyId: Scalars['ID']['input'];
};

/** A page of parcels. */
export type ParcelConnection = {
  __typename?: 'ParcelConnection';
  /** Counts, sums, averages, minimums and maximums over every record of the list under its filter and search, not only this page (docs/graphql.md#dashboards-aggregates). */
  aggregates: RecordAggregates;
  /** The edges of this page. */
  edges: Array<ParcelEdge>;
  /** Counts per option (select, multi_select), per user (people) or per state (checkbox: true, false) of one property, under the filter and search. */
  facets: Array<Facet>;
  /** The list's records under its filter and search, grouped by one or two keys, with aggregates per group. */
  groupedAggregates: AggregateGroups;
  /** The parcels of this page, without edge data. */
  nodes: Array<Parcel>;
  /** Paging information. */
  pageInfo: PageInfo;
  /** How many parcels the list holds under the filter and search; computed only when asked for. */
  totalCount: Scalars['Int']['output'];
  /** True when totalCount is an estimate: under a filter or search, more than 1,000 parcels match and the count is extrapolated from a sample of the list (docs/graphql.md#totalcount-at-county-scale). Without a filter or search the count is always exact. */
  totalCountIsEstimate: Scalars['Boolean']['output'];
};


/** A page of parcels. */
export type ParcelConnectionFacetsArgs = {
  propertyId: Scalars['ID']['input'];
};


/** A page of parcels. */
export type ParcelConnectionGroupedAggregatesArgs = {
  first?: InputMaybe<Scalars['Int']['input']>;
  groupBy: Array<AggregateGroupBy>;
  orderBy?: InputMaybe<AggregateGroupOrder>;
};

/** Input of a parcel–contact link or unlink. */
export type ParcelContactInput = {
  /** The contact; it must be in the parcel's portfolio. */
  contactId: Scalars['ID']['input'];
  /** When given, the parcel must belong to this organization. */
  orgId?: InputMaybe<Scalars['ID']['input']>;
  /** The parcel. */
  parcelId: Scalars['ID']['input'];
  /** When given, the parcel must belong to this portfolio. */
  portfolioId?: InputMaybe<Scalars['ID']['input']>;
};

/** Result of a parcel–contact link or unlink: both sides. */
export type ParcelContactPayload = {
  __typename?: 'ParcelContactPayload';
  /** The contact. */
  contact: Contact;
  /** Whether the pair is linked after the call. */
  linked: Scalars['Boolean']['output'];
  /** The parcel. */
  parcel: Parcel;
  /** Always empty for now: a link has no values to refuse (missing or out-of-reach records are NOT_FOUND errors). There for clients that read every payload the same way. */
  userErrors: Array<UserError>;
};

/** A parcel in a page. */
export type ParcelEdge = {
  __typename?: 'ParcelEdge';
  /** Opaque cursor for `after` / `before`. */
  cursor: Scalars['String']['output'];
  /** When the link was made; null on portfolio lists. */
  linkedAt?: Maybe<Scalars['DateTime']['output']>;
  /** The parcel. */
  node: Parcel;
};

/** Result of a parcel write. */
export type ParcelPayload = {
  __typename?: 'ParcelPayload';
  /** The parcel as stored; null when the write was refused (see userErrors); after a CONFLICT, as it is now. */
  parcel?: Maybe<Parcel>;
  /** Why the write was refused; empty when it succeeded. A CONFLICT leaves the record unchanged. */
  userErrors: Array<UserError>;
};

/** People operators, with user ids of the organization. */
export type PeopleFilter = {
  /** The value is one of these users. */
  in?: InputMaybe<Array<Scalars['ID']['input']>>;
  /** true: no value; false: any value. */
  isEmpty?: InputMaybe<Scalars['Boolean']['input']>;
  /** true adds the caller to `in` ("owned by me"). */
  me?: InputMaybe<Scalars['Boolean']['input']>;
};

/** A people value. */
export type PeopleValue = PropertyValue & {
  __typename?: 'PeopleValue';
  /** The property's definition. */
  property: PropertyDefinition;
  /** The property id. */
  propertyId: Scalars['ID']['output'];
  /** The chosen users. */
  users: Array<User>;
};

/** A group of projects, parcels and contacts inside an organization. */
export type Portfolio = Node & {
  __typename?: 'Portfolio';
  /**
   * The sync feed: every change to this portfolio's records (and the organization's schema changes)
   * after the cursor, in the order transactions took effect, with no gaps and no repeats also while
   * writes run. Store `pageInfo.endCursor` and pass it back as `after` to get what changed since.
   * Without `after`, from the oldest retained change.
   */
  changes: ChangeConnection;
  /** A cursor at the feed's present end: store it after a full read of the portfolio, then follow `changes(after:)`. */
  changesCursor: Scalars['String']['output'];
  /** A contact of this portfolio, or null. */
  contact?: Maybe<Contact>;
  /** Contacts of this portfolio, oldest first. */
  contacts: ContactConnection;
  /** When it was created. */
  createdAt: Scalars['DateTime']['output'];
  /** The portfolio id (`pf_…`). */
  id: Scalars['ID']['output'];
  /**
   * The box around the layer's records that match, as [west, south, east, north] in degrees; null
   * when none has geometry. TileJSON's `bounds`.
   */
  mapBounds?: Maybe<Array<Scalars['Float']['output']>>;
  /** Display name. */
  name: Scalars['String']['output'];
  /** The owning organization. */
  organization: Organization;
  /** A parcel of this portfolio, or null. */
  parcel?: Maybe<Parcel>;
  /**
   * Parcels of this portfolio as a GeoJSON FeatureCollection: the same records, order, paging and
   * cursors as `parcels` with the same arguments (docs/maps.md).
   */
  parcelFeatures: FeatureCollection;
  /** Parcels of this portfolio, oldest first. */
  parcels: ParcelConnection;
  /** A project of this portfolio, or null. */
  project?: Maybe<Project>;
  /**
   * Projects of this portfolio as a GeoJSON FeatureCollection, each at its location (a Point; null
   * without one): the same records, order, paging and cursors as `projects` with the same arguments.
   */
  projectFeatures: FeatureCollection;
  /** Projects of this portfolio, oldest first. */
  projects: ProjectConnection;
  /**
   * One Mapbox Vector Tile of a layer of this portfolio, filtered like the lists: the records whose
   * geometry reaches the tile, clipped to it and simplified for its zoom. Counts as many nodes as the
   * most records a tile draws (20,000). HTTP serves the same tiles at
   * `/tiles/v1/portfolios/{portfolioId}/{layer}/{z}/{x}/{y}.mvt` (docs/maps.md).
   */
  tile: VectorTile;
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioChangesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioContactArgs = {
  id: Scalars['ID']['input'];
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioContactsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioMapBoundsArgs = {
  filter?: InputMaybe<RecordFilter>;
  layer: MapLayer;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioParcelArgs = {
  id: Scalars['ID']['input'];
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioParcelFeaturesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioParcelsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioProjectArgs = {
  id: Scalars['ID']['input'];
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioProjectFeaturesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioProjectsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A group of projects, parcels and contacts inside an organization. */
export type PortfolioTileArgs = {
  fields?: InputMaybe<Array<Scalars['String']['input']>>;
  filter?: InputMaybe<RecordFilter>;
  layer: MapLayer;
  search?: InputMaybe<Scalars['String']['input']>;
  x: Scalars['Int']['input'];
  y: Scalars['Int']['input'];
  z: Scalars['Int']['input'];
};

/** A solar project. */
export type Project = Node & PropertyRecord & {
  __typename?: 'Project';
  /** Contacts linked to this project, in link order. */
  contacts: ContactConnection;
  /** When it was created. */
  createdAt: Scalars['DateTime']['output'];
  /** The ids other systems know this record by, one per source, ordered by source. */
  externalIds: Array<ExternalId>;
  /** Every change to this project, newest first: who made it, when, and which properties changed from what to what. */
  history: ChangeConnection;
  /** The project id (`prj_…`). */
  id: Scalars['ID']['output'];
  /** The area-weighted centroid of the linked parcels; null when the project has no parcels. */
  location?: Maybe<GeoPoint>;
  /** Parcels linked to this project, in link order (read-only links). */
  parcels: ParcelConnection;
  /** The portfolio the project belongs to. */
  portfolio: Portfolio;
  /** The raw property map, as REST v1 returns it (with the computed `location`). */
  properties: Scalars['JSON']['output'];
  /** When it was last changed. */
  updatedAt: Scalars['DateTime']['output'];
  /** One typed value, or null. */
  value?: Maybe<PropertyValue>;
  /** The set properties as typed values. */
  values: Array<PropertyValue>;
};


/** A solar project. */
export type ProjectContactsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A solar project. */
export type ProjectHistoryArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** A solar project. */
export type ProjectParcelsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<RecordFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<RecordOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** A solar project. */
export type ProjectValueArgs = {
  propertyId: Scalars['ID']['input'];
};

/** A page of projects. */
export type ProjectConnection = {
  __typename?: 'ProjectConnection';
  /** Counts, sums, averages, minimums and maximums over every record of the list under its filter and search, not only this page (docs/graphql.md#dashboards-aggregates). */
  aggregates: RecordAggregates;
  /** The edges of this page. */
  edges: Array<ProjectEdge>;
  /** Counts per option (select, multi_select), per user (people) or per state (checkbox: true, false) of one property, under the filter and search. */
  facets: Array<Facet>;
  /** The list's records under its filter and search, grouped by one or two keys, with aggregates per group. */
  groupedAggregates: AggregateGroups;
  /** The projects of this page, without edge data. */
  nodes: Array<Project>;
  /** Paging information. */
  pageInfo: PageInfo;
  /** How many projects the list holds under the filter and search; computed only when asked for. */
  totalCount: Scalars['Int']['output'];
  /** True when totalCount is an estimate: under a filter or search, more than 1,000 projects match and the count is extrapolated from a sample of the list (docs/graphql.md#totalcount-at-county-scale). Without a filter or search the count is always exact. */
  totalCountIsEstimate: Scalars['Boolean']['output'];
};


/** A page of projects. */
export type ProjectConnectionFacetsArgs = {
  propertyId: Scalars['ID']['input'];
};


/** A page of projects. */
export type ProjectConnectionGroupedAggregatesArgs = {
  first?: InputMaybe<Scalars['Int']['input']>;
  groupBy: Array<AggregateGroupBy>;
  orderBy?: InputMaybe<AggregateGroupOrder>;
};

/** Input of a project–contact link or unlink. */
export type ProjectContactInput = {
  /** The contact; it must be in the project's portfolio. */
  contactId: Scalars['ID']['input'];
  /** When given, the project must belong to this organization. */
  orgId?: InputMaybe<Scalars['ID']['input']>;
  /** When given, the project must belong to this portfolio. */
  portfolioId?: InputMaybe<Scalars['ID']['input']>;
  /** The project. */
  projectId: Scalars['ID']['input'];
};

/** Result of a project–contact link or unlink: both sides. */
export type ProjectContactPayload = {
  __typename?: 'ProjectContactPayload';
  /** The contact. */
  contact: Contact;
  /** Whether the pair is linked after the call. */
  linked: Scalars['Boolean']['output'];
  /** The project. */
  project: Project;
  /** Always empty for now: a link has no values to refuse (missing or out-of-reach records are NOT_FOUND errors). There for clients that read every payload the same way. */
  userErrors: Array<UserError>;
};

/** A project in a page, with the link's own data when the list is a link list. */
export type ProjectEdge = {
  __typename?: 'ProjectEdge';
  /** Opaque cursor for `after` / `before`. */
  cursor: Scalars['String']['output'];
  /** When the link was made; null on portfolio lists, which are not link lists. */
  linkedAt?: Maybe<Scalars['DateTime']['output']>;
  /** The project. */
  node: Project;
};

/** Result of a project write. */
export type ProjectPayload = {
  __typename?: 'ProjectPayload';
  /** The project as stored; null when the write was refused (see userErrors); after a CONFLICT, as it is now. */
  project?: Maybe<Project>;
  /** Why the write was refused; empty when it succeeded. A CONFLICT leaves the record unchanged. */
  userErrors: Array<UserError>;
};

/** One property's change. */
export type PropertyChange = {
  __typename?: 'PropertyChange';
  /** The value after, typed; null when it was cleared. */
  after?: Maybe<PropertyValue>;
  /** The value before, typed (with option names and user names); null when it was not set. */
  before?: Maybe<PropertyValue>;
  /** The property's definition now; null when it left the schema. */
  property?: Maybe<PropertyDefinition>;
  /** The property id. */
  propertyId: Scalars['ID']['output'];
  /** Both values as stored, `{ before, after }`, in the REST v1 value format. */
  stored: Scalars['JSON']['output'];
};

/** One property of a record kind's schema. */
export type PropertyDefinition = {
  __typename?: 'PropertyDefinition';
  /** The key used in `properties` maps. */
  id: Scalars['ID']['output'];
  /** Human-readable name. */
  name: Scalars['String']['output'];
  /** The options of a select or multi_select property; empty for other types. */
  options: Array<SelectOption>;
  /** Display order, from 0. */
  position: Scalars['Int']['output'];
  /** Whether a create must set it and an update may not clear it. */
  required: Scalars['Boolean']['output'];
  /** The type of value the property holds. */
  type: PropertyType;
};

/**
 * A condition on one property: its id and exactly one operator group, the one that fits its type
 * (`text` for text, url and email; `select` for select; `multiSelect` for multi_select; …).
 */
export type PropertyFilter = {
  /** For checkbox properties. */
  checkbox?: InputMaybe<CheckboxFilter>;
  /** For date properties (compares the start date). */
  date?: InputMaybe<DateFilter>;
  /** The property id, from the organization's property schema. */
  id: Scalars['ID']['input'];
  /** For multi_select properties. */
  multiSelect?: InputMaybe<MultiSelectFilter>;
  /** For number properties. */
  number?: InputMaybe<NumberFilter>;
  /** For people properties. */
  people?: InputMaybe<PeopleFilter>;
  /** For select properties. */
  select?: InputMaybe<SelectFilter>;
  /** For text, url and email properties. */
  text?: InputMaybe<TextFilter>;
};

/** Input naming one option of a property. */
export type PropertyOptionInput = {
  /** The record kind. */
  kind: RecordKind;
  /** The option. */
  optionId: Scalars['ID']['input'];
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
};

/** Result of a property schema change. */
export type PropertyPayload = {
  __typename?: 'PropertyPayload';
  /** The property as it is now. */
  property: PropertyDefinition;
};

/** Fields every record with dynamic properties (project, parcel, contact) has. */
export type PropertyRecord = {
  /** When it was created. */
  createdAt: Scalars['DateTime']['output'];
  /** The ids other systems know this record by, one per source, ordered by source. */
  externalIds: Array<ExternalId>;
  /** The record id. */
  id: Scalars['ID']['output'];
  /** The portfolio the record belongs to. */
  portfolio: Portfolio;
  /** The raw property map, identical to the `properties` of REST v1, labels included. */
  properties: Scalars['JSON']['output'];
  /** When it was last changed; strictly increases on every update. */
  updatedAt: Scalars['DateTime']['output'];
  /** One typed value, or null when it is not set. */
  value?: Maybe<PropertyValue>;
  /** The set properties as typed values, in schema order. */
  values: Array<PropertyValue>;
};


/** Fields every record with dynamic properties (project, parcel, contact) has. */
export type PropertyRecordValueArgs = {
  propertyId: Scalars['ID']['input'];
};

/** The property schema of one record kind in one organization. */
export type PropertySchema = {
  __typename?: 'PropertySchema';
  /** The record kind. */
  kind: RecordKind;
  /** Properties in display order. */
  properties: Array<PropertyDefinition>;
};

export { PropertyType };

/** A typed property value. */
export type PropertyValue = {
  /** The property's definition. */
  property: PropertyDefinition;
  /** The property id. */
  propertyId: Scalars['ID']['output'];
};

/** One property's new value in a typed write. */
export type PropertyValueEntry = {
  /** The property id, from the organization's property schema. */
  propertyId: Scalars['ID']['input'];
  /** Its value: exactly one member, the one that fits the property's type. */
  value: PropertyValueInput;
};

/**
 * A property value: exactly one member. Which one fits is the property's type: `text` for text, url
 * and email; `number`; `date`; `select` for select (one option id) and multi_select; `people` (one
 * user id); `checkbox`. `clear: true` removes the value of a property of any type.
 */
export type PropertyValueInput =
  /** A checkbox value. */
  { checkbox: Scalars['Boolean']['input']; clear?: never; date?: never; number?: never; people?: never; select?: never; text?: never; }
  |  /** Must be true: clears the property's value (required properties cannot be cleared). */
  { checkbox?: never; clear: Scalars['Boolean']['input']; date?: never; number?: never; people?: never; select?: never; text?: never; }
  |  /** A date. */
  { checkbox?: never; clear?: never; date: DateValueInput; number?: never; people?: never; select?: never; text?: never; }
  |  /** A finite number. */
  { checkbox?: never; clear?: never; date?: never; number: Scalars['Float']['input']; people?: never; select?: never; text?: never; }
  |  /** User ids of the organization: exactly one. */
  { checkbox?: never; clear?: never; date?: never; number?: never; people: Array<Scalars['ID']['input']>; select?: never; text?: never; }
  |  /** Option ids: exactly one for select, any number for multi_select (`[]` clears it). */
  { checkbox?: never; clear?: never; date?: never; number?: never; people?: never; select: Array<Scalars['ID']['input']>; text?: never; }
  |  /** A text, url or email value (at most 10,000 characters). */
  { checkbox?: never; clear?: never; date?: never; number?: never; people?: never; select?: never; text: Scalars['String']['input']; };

/** The root of every read. */
export type Query = {
  __typename?: 'Query';
  /** A contact by id, or null. */
  contact?: Maybe<Contact>;
  /** Any object by its global id, or null when it does not exist or is out of reach. */
  node?: Maybe<Node>;
  /** One organization, or null when it does not exist or the caller cannot reach it. */
  organization?: Maybe<Organization>;
  /** Every organization the caller can reach, as a member or as a guest of one of its portfolios. */
  organizations: Array<Organization>;
  /** A parcel by id, or null. */
  parcel?: Maybe<Parcel>;
  /** A project by id, or null. */
  project?: Maybe<Project>;
  /** The record that carries this external id in the organization, or null when none does or it is out of reach. */
  recordByExternalId?: Maybe<PropertyRecord>;
  /** The user whose API key made this request. */
  viewer: Viewer;
  /** One webhook endpoint; null when it does not exist or is out of reach. Owners only: other members get FORBIDDEN. */
  webhookEndpoint?: Maybe<WebhookEndpoint>;
};


/** The root of every read. */
export type QueryContactArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryNodeArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryOrganizationArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryParcelArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryProjectArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryRecordByExternalIdArgs = {
  externalId: Scalars['String']['input'];
  orgId: Scalars['ID']['input'];
  source: Scalars['String']['input'];
};


/** The root of every read. */
export type QueryWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
};

/** Input of recolorPropertyOption. */
export type RecolorPropertyOptionInput = {
  /** A hex colour such as `#f59e0b`. */
  color: Scalars['String']['input'];
  /** The record kind. */
  kind: RecordKind;
  /** The option. */
  optionId: Scalars['ID']['input'];
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
};

/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregates = {
  __typename?: 'RecordAggregates';
  /** The mean of a number property or of `ACRES`, over the records that have a value. */
  avg?: Maybe<Scalars['Float']['output']>;
  /** How many records. */
  count: Scalars['Int']['output'];
  /** The greatest value of a number property or of `ACRES`. */
  max?: Maybe<Scalars['Float']['output']>;
  /** The latest day of a date property. */
  maxDate?: Maybe<Scalars['Date']['output']>;
  /** The latest creation or update time. */
  maxTime?: Maybe<Scalars['DateTime']['output']>;
  /** The least value of a number property or of `ACRES`. */
  min?: Maybe<Scalars['Float']['output']>;
  /** The earliest day of a date property. */
  minDate?: Maybe<Scalars['Date']['output']>;
  /** The earliest creation or update time. */
  minTime?: Maybe<Scalars['DateTime']['output']>;
  /** The sum of a number property or of `ACRES`. */
  sum?: Maybe<Scalars['Float']['output']>;
  /** How many records have a value for the property (what `isEmpty: false` matches). */
  withValue: Scalars['Int']['output'];
  /** How many records have no value for the property (what `isEmpty: true` matches). */
  withoutValue: Scalars['Int']['output'];
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesAvgArgs = {
  field?: InputMaybe<AggregateNumberField>;
  propertyId?: InputMaybe<Scalars['ID']['input']>;
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesMaxArgs = {
  field?: InputMaybe<AggregateNumberField>;
  propertyId?: InputMaybe<Scalars['ID']['input']>;
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesMaxDateArgs = {
  propertyId: Scalars['ID']['input'];
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesMaxTimeArgs = {
  field: AggregateTimeField;
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesMinArgs = {
  field?: InputMaybe<AggregateNumberField>;
  propertyId?: InputMaybe<Scalars['ID']['input']>;
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesMinDateArgs = {
  propertyId: Scalars['ID']['input'];
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesMinTimeArgs = {
  field: AggregateTimeField;
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesSumArgs = {
  field?: InputMaybe<AggregateNumberField>;
  propertyId?: InputMaybe<Scalars['ID']['input']>;
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesWithValueArgs = {
  propertyId: Scalars['ID']['input'];
};


/**
 * Aggregates over a set of records: a whole list under its filter and search, or one group of
 * `groupedAggregates`. Each aggregate names one property (`propertyId`) or one field of the record
 * (`field`), exactly one of the two. sum, avg, min and max take number properties and `ACRES` (parcels);
 * minDate and maxDate date properties; minTime and maxTime `CREATED_AT` and `UPDATED_AT`; withValue and
 * withoutValue any property. Records without a value are skipped; over none the answer is null.
 */
export type RecordAggregatesWithoutValueArgs = {
  propertyId: Scalars['ID']['input'];
};

/**
 * A filter over a record list. The members given are combined with AND; use `and`, `or` and `not`
 * to build other combinations.
 */
export type RecordFilter = {
  /** Parcels only: the boundary's area in acres. isEmpty: true finds parcels without a boundary. */
  acres?: InputMaybe<NumberFilter>;
  /** Every one of these filters matches. */
  and?: InputMaybe<Array<RecordFilter>>;
  /**
   * Records whose geometry meets this box: a parcel's boundary, a project's location. Longitude and
   * latitude (WGS 84); a record without geometry does not match. Not for contacts.
   */
  bbox?: InputMaybe<BoundingBox>;
  /** Created in this range. */
  createdAt?: InputMaybe<DateTimeRange>;
  /** Records whose geometry comes within a distance of a point (a circle of 64 sides). Not for contacts. */
  dWithin?: InputMaybe<DistanceFilter>;
  /** Records that carry this external id (a source and an id of that source). */
  externalId?: InputMaybe<ExternalIdInput>;
  /**
   * Records whose geometry meets this GeoJSON Polygon or MultiPolygon (outer rings only, at most
   * 1,000 positions). Not for contacts.
   */
  intersects?: InputMaybe<Scalars['JSON']['input']>;
  /** This filter does not match. */
  not?: InputMaybe<RecordFilter>;
  /** At least one of these filters matches. */
  or?: InputMaybe<Array<RecordFilter>>;
  /** A condition on one property's value. */
  property?: InputMaybe<PropertyFilter>;
  /** Last updated in this range. */
  updatedAt?: InputMaybe<DateTimeRange>;
  /**
   * Records whose geometry lies inside this GeoJSON Polygon or MultiPolygon (each part of a parcel
   * inside one of its polygons). Not for contacts.
   */
  within?: InputMaybe<Scalars['JSON']['input']>;
};

export { RecordKind };

/** One sort key: a property (by id) or a record field, exactly one of the two. */
export type RecordOrder = {
  /** ASC (default) or DESC. */
  direction?: InputMaybe<OrderDirection>;
  /** A field of the record. */
  field?: InputMaybe<RecordOrderField>;
  /** Where records without the property go: LAST (default) or FIRST. */
  nulls?: InputMaybe<NullsOrder>;
  /** A property id of the record kind; text, url, email, number, date or select sort by value. */
  property?: InputMaybe<Scalars['ID']['input']>;
};

/** A field of the record itself to sort by. */
export type RecordOrderField =
  /** Parcels only: area in acres (parcels without a boundary sort as records without a value). */
  | 'ACRES'
  /** Creation time. */
  | 'CREATED_AT'
  /** Last update time. */
  | 'UPDATED_AT';

/** A record named by its id or by its external id in the call's source: exactly one member. */
export type RecordRef =
  /** The record's id in the call's `source`. */
  { externalId: Scalars['String']['input']; id?: never; }
  |  /** The record id. */
  { externalId?: never; id: Scalars['ID']['input']; };

/** Input of registerExternalSource. */
export type RegisterExternalSourceInput = {
  /** The source's name: 1 to 64 letters, digits, `.`, `_` or `-`, for example `county_roll` or `hubspot`. */
  name: Scalars['String']['input'];
  /** The organization. */
  orgId: Scalars['ID']['input'];
};

/** Result of registerExternalSource. */
export type RegisterExternalSourcePayload = {
  __typename?: 'RegisterExternalSourcePayload';
  /** Every source the organization has declared, the new one included. */
  sources: Array<Scalars['String']['output']>;
};

/** Input of removeMember. */
export type RemoveMemberInput = {
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The member. */
  userId: Scalars['ID']['input'];
};

/** Result of removeMember. */
export type RemoveMemberPayload = {
  __typename?: 'RemoveMemberPayload';
  /** The user removed. */
  userId: Scalars['ID']['output'];
};

/** Input of renameProperty. */
export type RenamePropertyInput = {
  /** The record kind. */
  kind: RecordKind;
  /** The new display name. */
  name: Scalars['String']['input'];
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
};

/** Input of renamePropertyOption. */
export type RenamePropertyOptionInput = {
  /** The record kind. */
  kind: RecordKind;
  /** Its new display name. */
  name: Scalars['String']['input'];
  /** The option. */
  optionId: Scalars['ID']['input'];
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
};

/** Input of revokeApiKey. */
export type RevokeApiKeyInput = {
  /** The key id (`key_…`). */
  id: Scalars['ID']['input'];
  /** The organization whose owner or admin you are (the key's user must belong to it). */
  organizationId: Scalars['ID']['input'];
};

/** Result of revokeApiKey. */
export type RevokeApiKeyPayload = {
  __typename?: 'RevokeApiKeyPayload';
  /** The key revoked. */
  revokedId: Scalars['ID']['output'];
};

export { Role };

/** Select operators, with option ids of the property. */
export type SelectFilter = {
  /** The value is one of these options. */
  in?: InputMaybe<Array<Scalars['ID']['input']>>;
  /** true: no value; false: any value. */
  isEmpty?: InputMaybe<Scalars['Boolean']['input']>;
  /** The value is none of these options; records without a value match. */
  notIn?: InputMaybe<Array<Scalars['ID']['input']>>;
};

/** One option of a select or multi_select property. */
export type SelectOption = {
  __typename?: 'SelectOption';
  /** A hex colour such as `#f59e0b`. */
  color: Scalars['String']['output'];
  /** The option id, used in `{ select: [id] }`. */
  id: Scalars['ID']['output'];
  /** Display name. */
  name: Scalars['String']['output'];
};

/** One option, as written. */
export type SelectOptionInput = {
  /** A hex colour such as `#f59e0b`. */
  color: Scalars['String']['input'];
  /** The option id, stored in values. */
  id: Scalars['ID']['input'];
  /** Its display name. */
  name: Scalars['String']['input'];
};

/** A select or multi_select value. */
export type SelectValue = PropertyValue & {
  __typename?: 'SelectValue';
  /** The chosen options, in stored order. */
  options: Array<SelectOption>;
  /** The property's definition. */
  property: PropertyDefinition;
  /** The property id. */
  propertyId: Scalars['ID']['output'];
};

/** Input of setMemberRole. */
export type SetMemberRoleInput = {
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** Their new role (not GUEST: remove them and grant portfolios instead). */
  role: Role;
  /** The member. */
  userId: Scalars['ID']['input'];
};

/** Input of setPropertyRequired. */
export type SetPropertyRequiredInput = {
  /** The record kind. */
  kind: RecordKind;
  /** The organization. */
  organizationId: Scalars['ID']['input'];
  /** The property. */
  propertyId: Scalars['ID']['input'];
  /** Required (true) or optional (false). */
  required: Scalars['Boolean']['input'];
};

/**
 * Live changes, over WebSocket with the graphql-ws protocol on the same /graphql path. Send the API key
 * in `connection_init`'s payload: `{ "apiKey": "sdg_…" }`. Access is checked when subscribing and again
 * before every event: a revoked key closes the socket (4403), and a subscription whose portfolio went
 * out of reach ends with NOT_FOUND.
 */
export type Subscription = {
  __typename?: 'Subscription';
  /** Each change to the portfolio's records as it commits (only these kinds when given; schema changes come when no kinds are given). */
  recordChanged: Change;
  /** Each change to one project, parcel or contact as it commits. */
  recordUpdated: Change;
};


/**
 * Live changes, over WebSocket with the graphql-ws protocol on the same /graphql path. Send the API key
 * in `connection_init`'s payload: `{ "apiKey": "sdg_…" }`. Access is checked when subscribing and again
 * before every event: a revoked key closes the socket (4403), and a subscription whose portfolio went
 * out of reach ends with NOT_FOUND.
 */
export type SubscriptionRecordChangedArgs = {
  kinds?: InputMaybe<Array<RecordKind>>;
  portfolioId: Scalars['ID']['input'];
};


/**
 * Live changes, over WebSocket with the graphql-ws protocol on the same /graphql path. Send the API key
 * in `connection_init`'s payload: `{ "apiKey": "sdg_…" }`. Access is checked when subscribing and again
 * before every event: a revoked key closes the socket (4403), and a subscription whose portfolio went
 * out of reach ends with NOT_FOUND.
 */
export type SubscriptionRecordUpdatedArgs = {
  id: Scalars['ID']['input'];
};

/** Text operators. Several operators in one group must all hold. */
export type TextFilter = {
  /** Contains this text, case-insensitively. */
  contains?: InputMaybe<Scalars['String']['input']>;
  /** Exactly this text (case-sensitive). */
  eq?: InputMaybe<Scalars['String']['input']>;
  /** true: no value or an empty text; false: a non-empty text. */
  isEmpty?: InputMaybe<Scalars['Boolean']['input']>;
  /** Anything but exactly this text; records without a value match. */
  neq?: InputMaybe<Scalars['String']['input']>;
  /** Starts with this text, case-insensitively. */
  startsWith?: InputMaybe<Scalars['String']['input']>;
};

/** A text, url or email value. */
export type TextValue = PropertyValue & {
  __typename?: 'TextValue';
  /** The property's definition. */
  property: PropertyDefinition;
  /** The property id. */
  propertyId: Scalars['ID']['output'];
  /** The text. */
  text: Scalars['String']['output'];
};

/** A value that would not convert to a new type. */
export type UnconvertibleValue = {
  __typename?: 'UnconvertibleValue';
  /** The record's portfolio. */
  portfolioId: Scalars['ID']['output'];
  /** Why it does not convert. */
  reason: Scalars['String']['output'];
  /** The record holding it. */
  recordId: Scalars['ID']['output'];
  /** The value as stored, in the REST v1 value format. */
  value: Scalars['JSON']['output'];
};

/** Input of a partial update. */
export type UpdateRecordInput = {
  /**
   * Optimistic concurrency: the record's `updatedAt` as last read. When the record has changed since,
   * nothing is written and the payload carries a CONFLICT user error and the record as it is now.
   */
  expectedUpdatedAt?: InputMaybe<Scalars['DateTime']['input']>;
  /** The record id. */
  id: Scalars['ID']['input'];
  /** When given, the record must belong to this organization, or the answer is NOT_FOUND. */
  orgId?: InputMaybe<Scalars['ID']['input']>;
  /** When given, the record must belong to this portfolio, or the answer is NOT_FOUND. */
  portfolioId?: InputMaybe<Scalars['ID']['input']>;
  /** Only these properties change; a null inner member clears one. Give this or `values`, not both. */
  properties?: InputMaybe<Scalars['JSON']['input']>;
  /** Only these properties change, as typed entries; `{ clear: true }` clears one. */
  values?: InputMaybe<Array<PropertyValueEntry>>;
};

/** One record of a bulk upsert. */
export type UpsertRecordItem = {
  /** The record's id in the call's source: found, it is updated; not found, a record is created with it. */
  externalId: Scalars['String']['input'];
  /** Parcels only: the boundary, a GeoJSON Polygon or MultiPolygon; null clears it, absent leaves it. */
  geometry?: InputMaybe<Scalars['JSON']['input']>;
  /** Optional: attach the external id to this existing record (of the portfolio) and update it. */
  id?: InputMaybe<Scalars['ID']['input']>;
  /** Property id → value object, as in REST v1. Only these properties change on an update. Give this or `values`, not both. */
  properties?: InputMaybe<Scalars['JSON']['input']>;
  /** The same as typed entries; `{ clear: true }` clears one. */
  values?: InputMaybe<Array<PropertyValueEntry>>;
};

/** One item's answer in a bulk upsert. */
export type UpsertRecordResult = {
  __typename?: 'UpsertRecordResult';
  /** The item's external id. */
  externalId: Scalars['String']['output'];
  /** The record's id; null when the item failed before a record was found or created. */
  id?: Maybe<Scalars['ID']['output']>;
  /** The item's position in `items`, from 0. */
  index: Scalars['Int']['output'];
  /** What happened to it. */
  outcome: BulkOutcome;
  /** Why it failed; empty unless outcome is FAILED. Paths start with `["input", "items", <index>]`. */
  userErrors: Array<UserError>;
};

/** Input of a bulk upsert: up to 1,000 records of one portfolio, each keyed by its id in one source. */
export type UpsertRecordsInput = {
  /** When true, nothing is written if any item fails; every valid item then answers NOT_WRITTEN. */
  allOrNone?: InputMaybe<Scalars['Boolean']['input']>;
  /**
   * Any string up to 200 characters. A call with a key used in the last 24 hours by this organization
   * answers the first call's answer again without writing (`replayed: true`); the same key with a
   * different input is refused with IDEMPOTENCY_KEY_REUSED.
   */
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
  /** The records, at most 1,000. */
  items: Array<UpsertRecordItem>;
  /** The organization. */
  orgId: Scalars['ID']['input'];
  /** The portfolio the records are created in; a record found by external id must be in it. */
  portfolioId: Scalars['ID']['input'];
  /** The source the items' `externalId`s belong to; it must be declared (registerExternalSource). */
  source: Scalars['String']['input'];
};

/** Result of a bulk upsert. */
export type UpsertRecordsPayload = {
  __typename?: 'UpsertRecordsPayload';
  /** How many items were created. */
  created: Scalars['Int']['output'];
  /** How many failed (under allOrNone with a failure: every item). */
  failed: Scalars['Int']['output'];
  /** True when this answer is the stored answer of an earlier call with the same idempotencyKey. */
  replayed: Scalars['Boolean']['output'];
  /** One result per item, in the order of `items`. */
  results: Array<UpsertRecordResult>;
  /** How many were unchanged. */
  unchanged: Scalars['Int']['output'];
  /** How many were updated. */
  updated: Scalars['Int']['output'];
};

/** A person with access to one or more organizations. */
export type User = Node & {
  __typename?: 'User';
  /** E-mail address. */
  email: Scalars['String']['output'];
  /** The user id (`usr_…`), the value used in people properties. */
  id: Scalars['ID']['output'];
  /** Display name. */
  name: Scalars['String']['output'];
  /** Role in the organization this user was listed for; null outside an organization's user list. */
  role?: Maybe<Role>;
};

/**
 * Why a write's values were refused, as data (the Shopify convention): one entry per problem, every
 * problem of the write listed.
 */
export type UserError = {
  __typename?: 'UserError';
  /** What kind of problem it is. */
  code: UserErrorCode;
  /** What is wrong and how to fix it, for a person. */
  message: Scalars['String']['output'];
  /** Where in the input: `["input", "properties", <property id>]` or `["input", "values", <index>]`. */
  path?: Maybe<Array<Scalars['String']['output']>>;
  /** The property the problem is about; null when it is about the whole input. */
  propertyId?: Maybe<Scalars['ID']['output']>;
};

/** The kinds of refusal a write's payload reports in `userErrors`. */
export type UserErrorCode =
  /** The record changed after `expectedUpdatedAt`; read it again (the payload holds it) and retry. */
  | 'CONFLICT'
  /** Bulk writes: the same external id (or pair) appears more than once in the call; every copy is refused. */
  | 'DUPLICATE'
  /** Bulk writes: the external id already belongs to a record of another kind or another portfolio. */
  | 'EXTERNAL_ID_TAKEN'
  /** The input as a whole is wrong: `properties` is not an object, names too many properties, or comes with `values`. */
  | 'INVALID_INPUT'
  /** A value does not fit its property: wrong member for the type, bad format, unknown option, a user outside the organization. */
  | 'INVALID_VALUE'
  /** Bulk writes: a record named by id or external id does not exist in the portfolio, or is out of reach. */
  | 'NOT_FOUND'
  /** Bulk writes with `allOrNone`: this item was valid, but another item failed, so nothing was written. */
  | 'NOT_WRITTEN'
  /** The property is computed by the service (a project's location) and cannot be written. */
  | 'READ_ONLY'
  /** A required property is missing on create, or a write tries to clear it. */
  | 'REQUIRED'
  /** No property with this id in the organization's schema of this record kind. */
  | 'UNKNOWN_PROPERTY';

/**
 * One Mapbox Vector Tile (MVT 2.1) holding one layer, named `parcels` or `projects`. Coordinates are in
 * a 4096 extent with a 64-unit buffer.
 */
export type VectorTile = {
  __typename?: 'VectorTile';
  /** Length of the encoded tile, in bytes. */
  bytes: Scalars['Int']['output'];
  /** The encoded tile (protobuf), base64. */
  data: Scalars['String']['output'];
  /** Features drawn in the tile. */
  features: Scalars['Int']['output'];
  /** More than 20,000 records reached the tile: the 20,000 with the largest boxes were drawn. */
  thinned: Scalars['Boolean']['output'];
};

/** The authenticated caller. */
export type Viewer = {
  __typename?: 'Viewer';
  /** The organizations the caller can reach. */
  organizations: Array<Organization>;
  /** The caller as a user. */
  user: User;
};

/** One change sent (or to be sent) to one endpoint. */
export type WebhookDelivery = {
  __typename?: 'WebhookDelivery';
  /** Attempts made so far. */
  attempts: Scalars['Int']['output'];
  /** When the change became this delivery. */
  createdAt: Scalars['DateTime']['output'];
  /** When a 2xx acknowledged it. */
  deliveredAt?: Maybe<Scalars['DateTime']['output']>;
  /** The event, for example `parcel.updated`. */
  event: Scalars['String']['output'];
  /** The idempotency id (`whd_…`), also the body's `id` and the `Sdg-Delivery-Id` header; the same on every attempt. */
  id: Scalars['ID']['output'];
  /** Why the last attempt failed, when it did. */
  lastError?: Maybe<Scalars['String']['output']>;
  /** The HTTP status of the last attempt, when one answered. */
  lastStatus?: Maybe<Scalars['Int']['output']>;
  /** When the next attempt is due (pending deliveries). */
  nextAttemptAt?: Maybe<Scalars['DateTime']['output']>;
  /** The body POSTed, as JSON. */
  payload: Scalars['JSON']['output'];
  /** Pending or delivered. */
  status: WebhookDeliveryStatus;
};

/** A page of deliveries. */
export type WebhookDeliveryConnection = {
  __typename?: 'WebhookDeliveryConnection';
  /** The deliveries with their cursors. */
  edges: Array<WebhookDeliveryEdge>;
  /** The deliveries alone. */
  nodes: Array<WebhookDelivery>;
  /** Paging. */
  pageInfo: PageInfo;
};

/** One delivery and its cursor. */
export type WebhookDeliveryEdge = {
  __typename?: 'WebhookDeliveryEdge';
  /** Opaque cursor for `after`. */
  cursor: Scalars['String']['output'];
  /** The delivery. */
  node: WebhookDelivery;
};

/** Whether a delivery has been acknowledged by a 2xx. */
export type WebhookDeliveryStatus =
  /** Acknowledged with a 2xx. */
  | 'DELIVERED'
  /** Not yet acknowledged: waiting for its next attempt (or for its endpoint to be enabled). */
  | 'PENDING';

/**
 * A URL that gets a signed POST for each change it asks for, at least once (docs/changes.md):
 * `Sdg-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" with the endpoint's secret>`,
 * `Sdg-Delivery-Id` (the idempotency id: a retry carries the same) and `Sdg-Event`.
 */
export type WebhookEndpoint = {
  __typename?: 'WebhookEndpoint';
  /** Failed attempts since the last success. */
  consecutiveFailures: Scalars['Int']['output'];
  /** When it was registered; it gets the changes committed from then on. */
  createdAt: Scalars['DateTime']['output'];
  /** Its deliveries, newest first: the delivery log. */
  deliveries: WebhookDeliveryConnection;
  /** Why it was disabled, when it was. */
  disabledReason?: Maybe<Scalars['String']['output']>;
  /** False once it failed too often in a row; enableWebhookEndpoint turns it back on. */
  enabled: Scalars['Boolean']['output'];
  /** The events it gets: `project.created`, `parcel.updated`, `contact.linked`, `schema.changed`, … */
  events: Array<Scalars['String']['output']>;
  /** The endpoint id (`whk_…`). */
  id: Scalars['ID']['output'];
  /** Only changes in these portfolios (schema changes still come); null for every portfolio. */
  portfolioIds?: Maybe<Array<Scalars['ID']['output']>>;
  /** Where deliveries are POSTed; redirects are not followed. */
  url: Scalars['String']['output'];
};


/**
 * A URL that gets a signed POST for each change it asks for, at least once (docs/changes.md):
 * `Sdg-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" with the endpoint's secret>`,
 * `Sdg-Delivery-Id` (the idempotency id: a retry carries the same) and `Sdg-Event`.
 */
export type WebhookEndpointDeliveriesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** Input naming one endpoint. */
export type WebhookEndpointIdInput = {
  /** The endpoint id (`whk_…`). */
  id: Scalars['ID']['input'];
};

/** Result of enableWebhookEndpoint. */
export type WebhookEndpointPayload = {
  __typename?: 'WebhookEndpointPayload';
  /** The endpoint. */
  endpoint: WebhookEndpoint;
};

export type WithIndex<TObject> = TObject & Record<string, any>;
export type ResolversObject<TObject> = WithIndex<TObject>;

export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;




/** Mapping of interface types */
export type ResolversInterfaceTypes<_RefType extends Record<string, unknown>> = ResolversObject<{
  Node:
    | ( RecordModel )
    | ( OrgModel )
    | ( RecordModel )
    | ( PortfolioModel )
    | ( RecordModel )
    | ( UserModel )
  ;
  PropertyRecord:
    | ( RecordModel )
    | ( RecordModel )
    | ( RecordModel )
  ;
  PropertyValue:
    | ( ValueModel )
    | ( ValueModel )
    | ( ValueModel )
    | ( ValueModel )
    | ( ValueModel )
    | ( ValueModel )
  ;
}>;

/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = ResolversObject<{
  AddPropertyOptionInput: AddPropertyOptionInput;
  AggregateGroup: ResolverTypeWrapper<GroupModel>;
  AggregateGroupBy: AggregateGroupBy;
  AggregateGroupKey: ResolverTypeWrapper<AggregateGroupKey>;
  AggregateGroupOrder: AggregateGroupOrder;
  AggregateGroupOrderBy: AggregateGroupOrderBy;
  AggregateGroups: ResolverTypeWrapper<GroupsModel>;
  AggregateNumberField: AggregateNumberField;
  AggregateTimeField: AggregateTimeField;
  AuditAction: AuditAction;
  AuditEntry: ResolverTypeWrapper<AuditEntry>;
  AuditLogPage: ResolverTypeWrapper<AuditLogPage>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  BoundingBox: BoundingBox;
  BulkLinkInput: BulkLinkInput;
  BulkLinkPayload: ResolverTypeWrapper<BulkLinkPayload>;
  BulkLinkResult: ResolverTypeWrapper<BulkLinkResult>;
  BulkOutcome: BulkOutcome;
  Change: ResolverTypeWrapper<ChangeModel>;
  ChangeConnection: ResolverTypeWrapper<ChangeConnectionModel>;
  ChangeEdge: ResolverTypeWrapper<ChangeEdgeModel>;
  ChangeOperation: ChangeOperation;
  ChangePropertyTypeInput: ChangePropertyTypeInput;
  ChangePropertyTypePayload: ResolverTypeWrapper<Omit<ChangePropertyTypePayload, 'property'> & { property: ResolversTypes['PropertyDefinition'] }>;
  ChangeSource: ChangeSource;
  CheckboxFilter: CheckboxFilter;
  CheckboxValue: ResolverTypeWrapper<ValueModel>;
  Contact: ResolverTypeWrapper<RecordModel>;
  ContactConnection: ResolverTypeWrapper<ConnectionModel>;
  ContactEdge: ResolverTypeWrapper<EdgeModel>;
  ContactPayload: ResolverTypeWrapper<Omit<ContactPayload, 'contact'> & { contact?: Maybe<ResolversTypes['Contact']> }>;
  CreateApiKeyInput: CreateApiKeyInput;
  CreateApiKeyPayload: ResolverTypeWrapper<CreateApiKeyPayload>;
  CreatePropertyInput: CreatePropertyInput;
  CreateRecordInput: CreateRecordInput;
  CreateWebhookEndpointInput: CreateWebhookEndpointInput;
  CreateWebhookEndpointPayload: ResolverTypeWrapper<CreateWebhookEndpointPayloadModel>;
  Date: ResolverTypeWrapper<Scalars['Date']['output']>;
  DateBucket: DateBucket;
  DateFilter: DateFilter;
  DateRange: DateRange;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  DateTimeRange: DateTimeRange;
  DateValue: ResolverTypeWrapper<ValueModel>;
  DateValueInput: DateValueInput;
  DeletePayload: ResolverTypeWrapper<DeletePayload>;
  DeletePropertyInput: DeletePropertyInput;
  DeletePropertyPayload: ResolverTypeWrapper<DeletePropertyPayload>;
  DeleteRecordInput: DeleteRecordInput;
  DeleteWebhookEndpointPayload: ResolverTypeWrapper<DeleteWebhookEndpointPayload>;
  DistanceFilter: DistanceFilter;
  ExternalId: ResolverTypeWrapper<ExternalId>;
  ExternalIdInput: ExternalIdInput;
  Facet: ResolverTypeWrapper<Facet>;
  Feature: ResolverTypeWrapper<Feature>;
  FeatureCollection: ResolverTypeWrapper<FeatureCollectionModel>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  GeoPoint: ResolverTypeWrapper<GeoPoint>;
  GuestAccessInput: GuestAccessInput;
  GuestAccessPayload: ResolverTypeWrapper<Omit<GuestAccessPayload, 'user'> & { user: ResolversTypes['User'] }>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  InviteUserInput: InviteUserInput;
  InviteUserPayload: ResolverTypeWrapper<Omit<InviteUserPayload, 'user'> & { user: ResolversTypes['User'] }>;
  JSON: ResolverTypeWrapper<Scalars['JSON']['output']>;
  LinkPairInput: LinkPairInput;
  LinkType: LinkType;
  MapLayer: MapLayer;
  MemberPayload: ResolverTypeWrapper<Omit<MemberPayload, 'user'> & { user: ResolversTypes['User'] }>;
  MergePropertyOptionsInput: MergePropertyOptionsInput;
  MergePropertyOptionsPayload: ResolverTypeWrapper<Omit<MergePropertyOptionsPayload, 'property'> & { property: ResolversTypes['PropertyDefinition'] }>;
  MovePropertyInput: MovePropertyInput;
  MovePropertyOptionInput: MovePropertyOptionInput;
  MultiSelectFilter: MultiSelectFilter;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Node: ResolverTypeWrapper<ResolversInterfaceTypes<ResolversTypes>['Node']>;
  NullsOrder: NullsOrder;
  NumberFilter: NumberFilter;
  NumberRange: NumberRange;
  NumberValue: ResolverTypeWrapper<ValueModel>;
  OrderDirection: OrderDirection;
  Organization: ResolverTypeWrapper<OrgModel>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Parcel: ResolverTypeWrapper<RecordModel>;
  ParcelConnection: ResolverTypeWrapper<ConnectionModel>;
  ParcelContactInput: ParcelContactInput;
  ParcelContactPayload: ResolverTypeWrapper<Omit<ParcelContactPayload, 'contact' | 'parcel'> & { contact: ResolversTypes['Contact'], parcel: ResolversTypes['Parcel'] }>;
  ParcelEdge: ResolverTypeWrapper<EdgeModel>;
  ParcelPayload: ResolverTypeWrapper<Omit<ParcelPayload, 'parcel'> & { parcel?: Maybe<ResolversTypes['Parcel']> }>;
  PeopleFilter: PeopleFilter;
  PeopleValue: ResolverTypeWrapper<ValueModel>;
  Portfolio: ResolverTypeWrapper<PortfolioModel>;
  Project: ResolverTypeWrapper<RecordModel>;
  ProjectConnection: ResolverTypeWrapper<ConnectionModel>;
  ProjectContactInput: ProjectContactInput;
  ProjectContactPayload: ResolverTypeWrapper<Omit<ProjectContactPayload, 'contact' | 'project'> & { contact: ResolversTypes['Contact'], project: ResolversTypes['Project'] }>;
  ProjectEdge: ResolverTypeWrapper<EdgeModel>;
  ProjectPayload: ResolverTypeWrapper<Omit<ProjectPayload, 'project'> & { project?: Maybe<ResolversTypes['Project']> }>;
  PropertyChange: ResolverTypeWrapper<PropertyChangeModel>;
  PropertyDefinition: ResolverTypeWrapper<PropertyDefModel>;
  PropertyFilter: PropertyFilter;
  PropertyOptionInput: PropertyOptionInput;
  PropertyPayload: ResolverTypeWrapper<Omit<PropertyPayload, 'property'> & { property: ResolversTypes['PropertyDefinition'] }>;
  PropertyRecord: ResolverTypeWrapper<RecordModel>;
  PropertySchema: ResolverTypeWrapper<PropertySchemaModel>;
  PropertyType: PropertyType;
  PropertyValue: ResolverTypeWrapper<ValueModel>;
  PropertyValueEntry: PropertyValueEntry;
  PropertyValueInput: PropertyValueInput;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  RecolorPropertyOptionInput: RecolorPropertyOptionInput;
  RecordAggregates: ResolverTypeWrapper<AggregatesModel>;
  RecordFilter: RecordFilter;
  RecordKind: RecordKind;
  RecordOrder: RecordOrder;
  RecordOrderField: RecordOrderField;
  RecordRef: RecordRef;
  RegisterExternalSourceInput: RegisterExternalSourceInput;
  RegisterExternalSourcePayload: ResolverTypeWrapper<RegisterExternalSourcePayload>;
  RemoveMemberInput: RemoveMemberInput;
  RemoveMemberPayload: ResolverTypeWrapper<RemoveMemberPayload>;
  RenamePropertyInput: RenamePropertyInput;
  RenamePropertyOptionInput: RenamePropertyOptionInput;
  RevokeApiKeyInput: RevokeApiKeyInput;
  RevokeApiKeyPayload: ResolverTypeWrapper<RevokeApiKeyPayload>;
  Role: Role;
  SelectFilter: SelectFilter;
  SelectOption: ResolverTypeWrapper<SelectOption>;
  SelectOptionInput: SelectOptionInput;
  SelectValue: ResolverTypeWrapper<ValueModel>;
  SetMemberRoleInput: SetMemberRoleInput;
  SetPropertyRequiredInput: SetPropertyRequiredInput;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  TextFilter: TextFilter;
  TextValue: ResolverTypeWrapper<ValueModel>;
  UnconvertibleValue: ResolverTypeWrapper<UnconvertibleValue>;
  UpdateRecordInput: UpdateRecordInput;
  UpsertRecordItem: UpsertRecordItem;
  UpsertRecordResult: ResolverTypeWrapper<UpsertRecordResult>;
  UpsertRecordsInput: UpsertRecordsInput;
  UpsertRecordsPayload: ResolverTypeWrapper<UpsertRecordsPayload>;
  User: ResolverTypeWrapper<UserModel>;
  UserError: ResolverTypeWrapper<UserError>;
  UserErrorCode: UserErrorCode;
  VectorTile: ResolverTypeWrapper<VectorTile>;
  Viewer: ResolverTypeWrapper<ViewerModel>;
  WebhookDelivery: ResolverTypeWrapper<WebhookDeliveryModel>;
  WebhookDeliveryConnection: ResolverTypeWrapper<WebhookDeliveryConnectionModel>;
  WebhookDeliveryEdge: ResolverTypeWrapper<WebhookDeliveryEdgeModel>;
  WebhookDeliveryStatus: WebhookDeliveryStatus;
  WebhookEndpoint: ResolverTypeWrapper<WebhookEndpointModel>;
  WebhookEndpointIdInput: WebhookEndpointIdInput;
  WebhookEndpointPayload: ResolverTypeWrapper<WebhookEndpointPayloadModel>;
}>;

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = ResolversObject<{
  AddPropertyOptionInput: AddPropertyOptionInput;
  AggregateGroup: GroupModel;
  AggregateGroupBy: AggregateGroupBy;
  AggregateGroupKey: AggregateGroupKey;
  AggregateGroupOrder: AggregateGroupOrder;
  AggregateGroups: GroupsModel;
  AuditEntry: AuditEntry;
  AuditLogPage: AuditLogPage;
  Boolean: Scalars['Boolean']['output'];
  BoundingBox: BoundingBox;
  BulkLinkInput: BulkLinkInput;
  BulkLinkPayload: BulkLinkPayload;
  BulkLinkResult: BulkLinkResult;
  Change: ChangeModel;
  ChangeConnection: ChangeConnectionModel;
  ChangeEdge: ChangeEdgeModel;
  ChangePropertyTypeInput: ChangePropertyTypeInput;
  ChangePropertyTypePayload: Omit<ChangePropertyTypePayload, 'property'> & { property: ResolversParentTypes['PropertyDefinition'] };
  CheckboxFilter: CheckboxFilter;
  CheckboxValue: ValueModel;
  Contact: RecordModel;
  ContactConnection: ConnectionModel;
  ContactEdge: EdgeModel;
  ContactPayload: Omit<ContactPayload, 'contact'> & { contact?: Maybe<ResolversParentTypes['Contact']> };
  CreateApiKeyInput: CreateApiKeyInput;
  CreateApiKeyPayload: CreateApiKeyPayload;
  CreatePropertyInput: CreatePropertyInput;
  CreateRecordInput: CreateRecordInput;
  CreateWebhookEndpointInput: CreateWebhookEndpointInput;
  CreateWebhookEndpointPayload: CreateWebhookEndpointPayloadModel;
  Date: Scalars['Date']['output'];
  DateFilter: DateFilter;
  DateRange: DateRange;
  DateTime: Scalars['DateTime']['output'];
  DateTimeRange: DateTimeRange;
  DateValue: ValueModel;
  DateValueInput: DateValueInput;
  DeletePayload: DeletePayload;
  DeletePropertyInput: DeletePropertyInput;
  DeletePropertyPayload: DeletePropertyPayload;
  DeleteRecordInput: DeleteRecordInput;
  DeleteWebhookEndpointPayload: DeleteWebhookEndpointPayload;
  DistanceFilter: DistanceFilter;
  ExternalId: ExternalId;
  ExternalIdInput: ExternalIdInput;
  Facet: Facet;
  Feature: Feature;
  FeatureCollection: FeatureCollectionModel;
  Float: Scalars['Float']['output'];
  GeoPoint: GeoPoint;
  GuestAccessInput: GuestAccessInput;
  GuestAccessPayload: Omit<GuestAccessPayload, 'user'> & { user: ResolversParentTypes['User'] };
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  InviteUserInput: InviteUserInput;
  InviteUserPayload: Omit<InviteUserPayload, 'user'> & { user: ResolversParentTypes['User'] };
  JSON: Scalars['JSON']['output'];
  LinkPairInput: LinkPairInput;
  MemberPayload: Omit<MemberPayload, 'user'> & { user: ResolversParentTypes['User'] };
  MergePropertyOptionsInput: MergePropertyOptionsInput;
  MergePropertyOptionsPayload: Omit<MergePropertyOptionsPayload, 'property'> & { property: ResolversParentTypes['PropertyDefinition'] };
  MovePropertyInput: MovePropertyInput;
  MovePropertyOptionInput: MovePropertyOptionInput;
  MultiSelectFilter: MultiSelectFilter;
  Mutation: Record<PropertyKey, never>;
  Node: ResolversInterfaceTypes<ResolversParentTypes>['Node'];
  NumberFilter: NumberFilter;
  NumberRange: NumberRange;
  NumberValue: ValueModel;
  Organization: OrgModel;
  PageInfo: PageInfo;
  Parcel: RecordModel;
  ParcelConnection: ConnectionModel;
  ParcelContactInput: ParcelContactInput;
  ParcelContactPayload: Omit<ParcelContactPayload, 'contact' | 'parcel'> & { contact: ResolversParentTypes['Contact'], parcel: ResolversParentTypes['Parcel'] };
  ParcelEdge: EdgeModel;
  ParcelPayload: Omit<ParcelPayload, 'parcel'> & { parcel?: Maybe<ResolversParentTypes['Parcel']> };
  PeopleFilter: PeopleFilter;
  PeopleValue: ValueModel;
  Portfolio: PortfolioModel;
  Project: RecordModel;
  ProjectConnection: ConnectionModel;
  ProjectContactInput: ProjectContactInput;
  ProjectContactPayload: Omit<ProjectContactPayload, 'contact' | 'project'> & { contact: ResolversParentTypes['Contact'], project: ResolversParentTypes['Project'] };
  ProjectEdge: EdgeModel;
  ProjectPayload: Omit<ProjectPayload, 'project'> & { project?: Maybe<ResolversParentTypes['Project']> };
  PropertyChange: PropertyChangeModel;
  PropertyDefinition: PropertyDefModel;
  PropertyFilter: PropertyFilter;
  PropertyOptionInput: PropertyOptionInput;
  PropertyPayload: Omit<PropertyPayload, 'property'> & { property: ResolversParentTypes['PropertyDefinition'] };
  PropertyRecord: RecordModel;
  PropertySchema: PropertySchemaModel;
  PropertyValue: ValueModel;
  PropertyValueEntry: PropertyValueEntry;
  PropertyValueInput: PropertyValueInput;
  Query: Record<PropertyKey, never>;
  RecolorPropertyOptionInput: RecolorPropertyOptionInput;
  RecordAggregates: AggregatesModel;
  RecordFilter: RecordFilter;
  RecordOrder: RecordOrder;
  RecordRef: RecordRef;
  RegisterExternalSourceInput: RegisterExternalSourceInput;
  RegisterExternalSourcePayload: RegisterExternalSourcePayload;
  RemoveMemberInput: RemoveMemberInput;
  RemoveMemberPayload: RemoveMemberPayload;
  RenamePropertyInput: RenamePropertyInput;
  RenamePropertyOptionInput: RenamePropertyOptionInput;
  RevokeApiKeyInput: RevokeApiKeyInput;
  RevokeApiKeyPayload: RevokeApiKeyPayload;
  SelectFilter: SelectFilter;
  SelectOption: SelectOption;
  SelectOptionInput: SelectOptionInput;
  SelectValue: ValueModel;
  SetMemberRoleInput: SetMemberRoleInput;
  SetPropertyRequiredInput: SetPropertyRequiredInput;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  TextFilter: TextFilter;
  TextValue: ValueModel;
  UnconvertibleValue: UnconvertibleValue;
  UpdateRecordInput: UpdateRecordInput;
  UpsertRecordItem: UpsertRecordItem;
  UpsertRecordResult: UpsertRecordResult;
  UpsertRecordsInput: UpsertRecordsInput;
  UpsertRecordsPayload: UpsertRecordsPayload;
  User: UserModel;
  UserError: UserError;
  VectorTile: VectorTile;
  Viewer: ViewerModel;
  WebhookDelivery: WebhookDeliveryModel;
  WebhookDeliveryConnection: WebhookDeliveryConnectionModel;
  WebhookDeliveryEdge: WebhookDeliveryEdgeModel;
  WebhookEndpoint: WebhookEndpointModel;
  WebhookEndpointIdInput: WebhookEndpointIdInput;
  WebhookEndpointPayload: WebhookEndpointPayloadModel;
}>;

export type AggregateGroupResolvers<ContextType = Context, ParentType extends ResolversParentTypes['AggregateGroup'] = ResolversParentTypes['AggregateGroup']> = ResolversObject<{
  aggregates?: Resolver<ResolversTypes['RecordAggregates'], ParentType, ContextType>;
  keys?: Resolver<Array<ResolversTypes['AggregateGroupKey']>, ParentType, ContextType>;
}>;

export type AggregateGroupKeyResolvers<ContextType = Context, ParentType extends ResolversParentTypes['AggregateGroupKey'] = ResolversParentTypes['AggregateGroupKey']> = ResolversObject<{
  empty?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  label?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type AggregateGroupsResolvers<ContextType = Context, ParentType extends ResolversParentTypes['AggregateGroups'] = ResolversParentTypes['AggregateGroups']> = ResolversObject<{
  groups?: Resolver<Array<ResolversTypes['AggregateGroup']>, ParentType, ContextType>;
  totalGroups?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  truncated?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type AuditEntryResolvers<ContextType = Context, ParentType extends ResolversParentTypes['AuditEntry'] = ResolversParentTypes['AuditEntry']> = ResolversObject<{
  action?: Resolver<ResolversTypes['AuditAction'], ParentType, ContextType>;
  apiKeyId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  details?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  source?: Resolver<ResolversTypes['ChangeSource'], ParentType, ContextType>;
  subjectUserId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  userId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
}>;

export type AuditLogPageResolvers<ContextType = Context, ParentType extends ResolversParentTypes['AuditLogPage'] = ResolversParentTypes['AuditLogPage']> = ResolversObject<{
  nodes?: Resolver<Array<ResolversTypes['AuditEntry']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type BulkLinkPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['BulkLinkPayload'] = ResolversParentTypes['BulkLinkPayload']> = ResolversObject<{
  changed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  results?: Resolver<Array<ResolversTypes['BulkLinkResult']>, ParentType, ContextType>;
  unchanged?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type BulkLinkResultResolvers<ContextType = Context, ParentType extends ResolversParentTypes['BulkLinkResult'] = ResolversParentTypes['BulkLinkResult']> = ResolversObject<{
  fromId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  outcome?: Resolver<ResolversTypes['BulkOutcome'], ParentType, ContextType>;
  toId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
}>;

export type ChangeResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Change'] = ResolversParentTypes['Change']> = ResolversObject<{
  apiKeyId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  operation?: Resolver<ResolversTypes['ChangeOperation'], ParentType, ContextType>;
  portfolioId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  properties?: Resolver<Array<ResolversTypes['PropertyChange']>, ParentType, ContextType>;
  record?: Resolver<Maybe<ResolversTypes['PropertyRecord']>, ParentType, ContextType>;
  recordId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  recordKind?: Resolver<ResolversTypes['RecordKind'], ParentType, ContextType>;
  relatedId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  schema?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  source?: Resolver<ResolversTypes['ChangeSource'], ParentType, ContextType>;
  user?: Resolver<Maybe<ResolversTypes['User']>, ParentType, ContextType>;
  userId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
}>;

export type ChangeConnectionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ChangeConnection'] = ResolversParentTypes['ChangeConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['ChangeEdge']>, ParentType, ContextType>;
  nodes?: Resolver<Array<ResolversTypes['Change']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type ChangeEdgeResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ChangeEdge'] = ResolversParentTypes['ChangeEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Change'], ParentType, ContextType>;
}>;

export type ChangeOperationResolvers = EnumResolverSignature<{ CREATE?: any, DELETE?: any, LINK?: any, SCHEMA?: any, UNLINK?: any, UPDATE?: any }, ResolversTypes['ChangeOperation']>;

export type ChangePropertyTypePayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ChangePropertyTypePayload'] = ResolversParentTypes['ChangePropertyTypePayload']> = ResolversObject<{
  convertible?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  dryRun?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
  recordsChanged?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  unconvertible?: Resolver<Array<ResolversTypes['UnconvertibleValue']>, ParentType, ContextType>;
  unconvertibleCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type ChangeSourceResolvers = EnumResolverSignature<{ API?: any, CLI?: any }, ResolversTypes['ChangeSource']>;

export type CheckboxValueResolvers<ContextType = Context, ParentType extends ResolversParentTypes['CheckboxValue'] = ResolversParentTypes['CheckboxValue']> = ResolversObject<{
  checked?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
  propertyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type ContactResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Contact'] = ResolversParentTypes['Contact']> = ResolversObject<{
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  externalIds?: Resolver<Array<ResolversTypes['ExternalId']>, ParentType, ContextType>;
  history?: Resolver<ResolversTypes['ChangeConnection'], ParentType, ContextType, Partial<ContactHistoryArgs>>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  parcels?: Resolver<ResolversTypes['ParcelConnection'], ParentType, ContextType, Partial<ContactParcelsArgs>>;
  portfolio?: Resolver<ResolversTypes['Portfolio'], ParentType, ContextType>;
  projects?: Resolver<ResolversTypes['ProjectConnection'], ParentType, ContextType, Partial<ContactProjectsArgs>>;
  properties?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['PropertyValue']>, ParentType, ContextType, RequireFields<ContactValueArgs, 'propertyId'>>;
  values?: Resolver<Array<ResolversTypes['PropertyValue']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type ContactConnectionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ContactConnection'] = ResolversParentTypes['ContactConnection']> = ResolversObject<{
  aggregates?: Resolver<ResolversTypes['RecordAggregates'], ParentType, ContextType>;
  edges?: Resolver<Array<ResolversTypes['ContactEdge']>, ParentType, ContextType>;
  facets?: Resolver<Array<ResolversTypes['Facet']>, ParentType, ContextType, RequireFields<ContactConnectionFacetsArgs, 'propertyId'>>;
  groupedAggregates?: Resolver<ResolversTypes['AggregateGroups'], ParentType, ContextType, RequireFields<ContactConnectionGroupedAggregatesArgs, 'first' | 'groupBy'>>;
  nodes?: Resolver<Array<ResolversTypes['Contact']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalCountIsEstimate?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type ContactEdgeResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ContactEdge'] = ResolversParentTypes['ContactEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  linkedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Contact'], ParentType, ContextType>;
}>;

export type ContactPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ContactPayload'] = ResolversParentTypes['ContactPayload']> = ResolversObject<{
  contact?: Resolver<Maybe<ResolversTypes['Contact']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
}>;

export type CreateApiKeyPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['CreateApiKeyPayload'] = ResolversParentTypes['CreateApiKeyPayload']> = ResolversObject<{
  apiKey?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  prefix?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  userId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type CreateWebhookEndpointPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['CreateWebhookEndpointPayload'] = ResolversParentTypes['CreateWebhookEndpointPayload']> = ResolversObject<{
  endpoint?: Resolver<ResolversTypes['WebhookEndpoint'], ParentType, ContextType>;
  secret?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export interface DateScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Date'], any> {
  name: 'Date';
}

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type DateValueResolvers<ContextType = Context, ParentType extends ResolversParentTypes['DateValue'] = ResolversParentTypes['DateValue']> = ResolversObject<{
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
  propertyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  start?: Resolver<ResolversTypes['Date'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type DeletePayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['DeletePayload'] = ResolversParentTypes['DeletePayload']> = ResolversObject<{
  deletedId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
}>;

export type DeletePropertyPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['DeletePropertyPayload'] = ResolversParentTypes['DeletePropertyPayload']> = ResolversObject<{
  dryRun?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  propertyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  recordsWithValues?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type DeleteWebhookEndpointPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['DeleteWebhookEndpointPayload'] = ResolversParentTypes['DeleteWebhookEndpointPayload']> = ResolversObject<{
  deletedId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type ExternalIdResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ExternalId'] = ResolversParentTypes['ExternalId']> = ResolversObject<{
  id?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  source?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type FacetResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Facet'] = ResolversParentTypes['Facet']> = ResolversObject<{
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  label?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
}>;

export type FeatureResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Feature'] = ResolversParentTypes['Feature']> = ResolversObject<{
  geometry?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  properties?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type FeatureCollectionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['FeatureCollection'] = ResolversParentTypes['FeatureCollection']> = ResolversObject<{
  features?: Resolver<Array<ResolversTypes['Feature']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalCountIsEstimate?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type GeoPointResolvers<ContextType = Context, ParentType extends ResolversParentTypes['GeoPoint'] = ResolversParentTypes['GeoPoint']> = ResolversObject<{
  geojson?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  latitude?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  longitude?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
}>;

export type GuestAccessPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['GuestAccessPayload'] = ResolversParentTypes['GuestAccessPayload']> = ResolversObject<{
  portfolioId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  portfolioIds?: Resolver<Array<ResolversTypes['ID']>, ParentType, ContextType>;
  user?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
}>;

export type InviteUserPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['InviteUserPayload'] = ResolversParentTypes['InviteUserPayload']> = ResolversObject<{
  apiKey?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  apiKeyId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  role?: Resolver<ResolversTypes['Role'], ParentType, ContextType>;
  user?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
  userCreated?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export interface JsonScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSON'], any> {
  name: 'JSON';
}

export type MemberPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['MemberPayload'] = ResolversParentTypes['MemberPayload']> = ResolversObject<{
  role?: Resolver<ResolversTypes['Role'], ParentType, ContextType>;
  user?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
}>;

export type MergePropertyOptionsPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['MergePropertyOptionsPayload'] = ResolversParentTypes['MergePropertyOptionsPayload']> = ResolversObject<{
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
  recordsChanged?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type MutationResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = ResolversObject<{
  addPropertyOption?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationAddPropertyOptionArgs, 'input'>>;
  changePropertyType?: Resolver<ResolversTypes['ChangePropertyTypePayload'], ParentType, ContextType, RequireFields<MutationChangePropertyTypeArgs, 'input'>>;
  createApiKey?: Resolver<ResolversTypes['CreateApiKeyPayload'], ParentType, ContextType, RequireFields<MutationCreateApiKeyArgs, 'input'>>;
  createContact?: Resolver<ResolversTypes['ContactPayload'], ParentType, ContextType, RequireFields<MutationCreateContactArgs, 'input'>>;
  createProject?: Resolver<ResolversTypes['ProjectPayload'], ParentType, ContextType, RequireFields<MutationCreateProjectArgs, 'input'>>;
  createProperty?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationCreatePropertyArgs, 'input'>>;
  createWebhookEndpoint?: Resolver<ResolversTypes['CreateWebhookEndpointPayload'], ParentType, ContextType, RequireFields<MutationCreateWebhookEndpointArgs, 'input'>>;
  deleteContact?: Resolver<ResolversTypes['DeletePayload'], ParentType, ContextType, RequireFields<MutationDeleteContactArgs, 'input'>>;
  deleteProject?: Resolver<ResolversTypes['DeletePayload'], ParentType, ContextType, RequireFields<MutationDeleteProjectArgs, 'input'>>;
  deleteProperty?: Resolver<ResolversTypes['DeletePropertyPayload'], ParentType, ContextType, RequireFields<MutationDeletePropertyArgs, 'input'>>;
  deleteWebhookEndpoint?: Resolver<ResolversTypes['DeleteWebhookEndpointPayload'], ParentType, ContextType, RequireFields<MutationDeleteWebhookEndpointArgs, 'input'>>;
  enableWebhookEndpoint?: Resolver<ResolversTypes['WebhookEndpointPayload'], ParentType, ContextType, RequireFields<MutationEnableWebhookEndpointArgs, 'input'>>;
  grantGuestAccess?: Resolver<ResolversTypes['GuestAccessPayload'], ParentType, ContextType, RequireFields<MutationGrantGuestAccessArgs, 'input'>>;
  inviteUser?: Resolver<ResolversTypes['InviteUserPayload'], ParentType, ContextType, RequireFields<MutationInviteUserArgs, 'input'>>;
  linkParcelContact?: Resolver<ResolversTypes['ParcelContactPayload'], ParentType, ContextType, RequireFields<MutationLinkParcelContactArgs, 'input'>>;
  linkProjectContact?: Resolver<ResolversTypes['ProjectContactPayload'], ParentType, ContextType, RequireFields<MutationLinkProjectContactArgs, 'input'>>;
  linkRecords?: Resolver<ResolversTypes['BulkLinkPayload'], ParentType, ContextType, RequireFields<MutationLinkRecordsArgs, 'input'>>;
  mergePropertyOptions?: Resolver<ResolversTypes['MergePropertyOptionsPayload'], ParentType, ContextType, RequireFields<MutationMergePropertyOptionsArgs, 'input'>>;
  moveProperty?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationMovePropertyArgs, 'input'>>;
  movePropertyOption?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationMovePropertyOptionArgs, 'input'>>;
  recolorPropertyOption?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationRecolorPropertyOptionArgs, 'input'>>;
  registerExternalSource?: Resolver<ResolversTypes['RegisterExternalSourcePayload'], ParentType, ContextType, RequireFields<MutationRegisterExternalSourceArgs, 'input'>>;
  removeMember?: Resolver<ResolversTypes['RemoveMemberPayload'], ParentType, ContextType, RequireFields<MutationRemoveMemberArgs, 'input'>>;
  removePropertyOption?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationRemovePropertyOptionArgs, 'input'>>;
  renameProperty?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationRenamePropertyArgs, 'input'>>;
  renamePropertyOption?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationRenamePropertyOptionArgs, 'input'>>;
  revokeApiKey?: Resolver<ResolversTypes['RevokeApiKeyPayload'], ParentType, ContextType, RequireFields<MutationRevokeApiKeyArgs, 'input'>>;
  revokeGuestAccess?: Resolver<ResolversTypes['GuestAccessPayload'], ParentType, ContextType, RequireFields<MutationRevokeGuestAccessArgs, 'input'>>;
  setMemberRole?: Resolver<ResolversTypes['MemberPayload'], ParentType, ContextType, RequireFields<MutationSetMemberRoleArgs, 'input'>>;
  setPropertyRequired?: Resolver<ResolversTypes['PropertyPayload'], ParentType, ContextType, RequireFields<MutationSetPropertyRequiredArgs, 'input'>>;
  unlinkParcelContact?: Resolver<ResolversTypes['ParcelContactPayload'], ParentType, ContextType, RequireFields<MutationUnlinkParcelContactArgs, 'input'>>;
  unlinkProjectContact?: Resolver<ResolversTypes['ProjectContactPayload'], ParentType, ContextType, RequireFields<MutationUnlinkProjectContactArgs, 'input'>>;
  unlinkRecords?: Resolver<ResolversTypes['BulkLinkPayload'], ParentType, ContextType, RequireFields<MutationUnlinkRecordsArgs, 'input'>>;
  updateContact?: Resolver<ResolversTypes['ContactPayload'], ParentType, ContextType, RequireFields<MutationUpdateContactArgs, 'input'>>;
  updateParcel?: Resolver<ResolversTypes['ParcelPayload'], ParentType, ContextType, RequireFields<MutationUpdateParcelArgs, 'input'>>;
  updateProject?: Resolver<ResolversTypes['ProjectPayload'], ParentType, ContextType, RequireFields<MutationUpdateProjectArgs, 'input'>>;
  upsertContacts?: Resolver<ResolversTypes['UpsertRecordsPayload'], ParentType, ContextType, RequireFields<MutationUpsertContactsArgs, 'input'>>;
  upsertParcels?: Resolver<ResolversTypes['UpsertRecordsPayload'], ParentType, ContextType, RequireFields<MutationUpsertParcelsArgs, 'input'>>;
  upsertProjects?: Resolver<ResolversTypes['UpsertRecordsPayload'], ParentType, ContextType, RequireFields<MutationUpsertProjectsArgs, 'input'>>;
}>;

export type NodeResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Node'] = ResolversParentTypes['Node']> = ResolversObject<{
  __resolveType: TypeResolveFn<'Contact' | 'Organization' | 'Parcel' | 'Portfolio' | 'Project' | 'User', ParentType, ContextType>;
}>;

export type NumberValueResolvers<ContextType = Context, ParentType extends ResolversParentTypes['NumberValue'] = ResolversParentTypes['NumberValue']> = ResolversObject<{
  number?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
  propertyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type OrganizationResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Organization'] = ResolversParentTypes['Organization']> = ResolversObject<{
  auditLog?: Resolver<ResolversTypes['AuditLogPage'], ParentType, ContextType, Partial<OrganizationAuditLogArgs>>;
  externalSources?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  portfolio?: Resolver<Maybe<ResolversTypes['Portfolio']>, ParentType, ContextType, RequireFields<OrganizationPortfolioArgs, 'id'>>;
  portfolios?: Resolver<Array<ResolversTypes['Portfolio']>, ParentType, ContextType>;
  propertySchema?: Resolver<ResolversTypes['PropertySchema'], ParentType, ContextType, RequireFields<OrganizationPropertySchemaArgs, 'kind'>>;
  users?: Resolver<Array<ResolversTypes['User']>, ParentType, ContextType>;
  viewerRole?: Resolver<ResolversTypes['Role'], ParentType, ContextType>;
  webhookEndpoints?: Resolver<Array<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type PageInfoResolvers<ContextType = Context, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = ResolversObject<{
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type ParcelResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Parcel'] = ResolversParentTypes['Parcel']> = ResolversObject<{
  acres?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  contacts?: Resolver<ResolversTypes['ContactConnection'], ParentType, ContextType, Partial<ParcelContactsArgs>>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  externalIds?: Resolver<Array<ResolversTypes['ExternalId']>, ParentType, ContextType>;
  geometry?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  history?: Resolver<ResolversTypes['ChangeConnection'], ParentType, ContextType, Partial<ParcelHistoryArgs>>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  portfolio?: Resolver<ResolversTypes['Portfolio'], ParentType, ContextType>;
  projects?: Resolver<ResolversTypes['ProjectConnection'], ParentType, ContextType, Partial<ParcelProjectsArgs>>;
  properties?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['PropertyValue']>, ParentType, ContextType, RequireFields<ParcelValueArgs, 'propertyId'>>;
  values?: Resolver<Array<ResolversTypes['PropertyValue']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type ParcelConnectionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ParcelConnection'] = ResolversParentTypes['ParcelConnection']> = ResolversObject<{
  aggregates?: Resolver<ResolversTypes['RecordAggregates'], ParentType, ContextType>;
  edges?: Resolver<Array<ResolversTypes['ParcelEdge']>, ParentType, ContextType>;
  facets?: Resolver<Array<ResolversTypes['Facet']>, ParentType, ContextType, RequireFields<ParcelConnectionFacetsArgs, 'propertyId'>>;
  groupedAggregates?: Resolver<ResolversTypes['AggregateGroups'], ParentType, ContextType, RequireFields<ParcelConnectionGroupedAggregatesArgs, 'first' | 'groupBy'>>;
  nodes?: Resolver<Array<ResolversTypes['Parcel']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalCountIsEstimate?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type ParcelContactPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ParcelContactPayload'] = ResolversParentTypes['ParcelContactPayload']> = ResolversObject<{
  contact?: Resolver<ResolversTypes['Contact'], ParentType, ContextType>;
  linked?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  parcel?: Resolver<ResolversTypes['Parcel'], ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
}>;

export type ParcelEdgeResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ParcelEdge'] = ResolversParentTypes['ParcelEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  linkedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Parcel'], ParentType, ContextType>;
}>;

export type ParcelPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ParcelPayload'] = ResolversParentTypes['ParcelPayload']> = ResolversObject<{
  parcel?: Resolver<Maybe<ResolversTypes['Parcel']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
}>;

export type PeopleValueResolvers<ContextType = Context, ParentType extends ResolversParentTypes['PeopleValue'] = ResolversParentTypes['PeopleValue']> = ResolversObject<{
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
  propertyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  users?: Resolver<Array<ResolversTypes['User']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type PortfolioResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Portfolio'] = ResolversParentTypes['Portfolio']> = ResolversObject<{
  changes?: Resolver<ResolversTypes['ChangeConnection'], ParentType, ContextType, Partial<PortfolioChangesArgs>>;
  changesCursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  contact?: Resolver<Maybe<ResolversTypes['Contact']>, ParentType, ContextType, RequireFields<PortfolioContactArgs, 'id'>>;
  contacts?: Resolver<ResolversTypes['ContactConnection'], ParentType, ContextType, Partial<PortfolioContactsArgs>>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  mapBounds?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType, RequireFields<PortfolioMapBoundsArgs, 'layer'>>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  organization?: Resolver<ResolversTypes['Organization'], ParentType, ContextType>;
  parcel?: Resolver<Maybe<ResolversTypes['Parcel']>, ParentType, ContextType, RequireFields<PortfolioParcelArgs, 'id'>>;
  parcelFeatures?: Resolver<ResolversTypes['FeatureCollection'], ParentType, ContextType, Partial<PortfolioParcelFeaturesArgs>>;
  parcels?: Resolver<ResolversTypes['ParcelConnection'], ParentType, ContextType, Partial<PortfolioParcelsArgs>>;
  project?: Resolver<Maybe<ResolversTypes['Project']>, ParentType, ContextType, RequireFields<PortfolioProjectArgs, 'id'>>;
  projectFeatures?: Resolver<ResolversTypes['FeatureCollection'], ParentType, ContextType, Partial<PortfolioProjectFeaturesArgs>>;
  projects?: Resolver<ResolversTypes['ProjectConnection'], ParentType, ContextType, Partial<PortfolioProjectsArgs>>;
  tile?: Resolver<ResolversTypes['VectorTile'], ParentType, ContextType, RequireFields<PortfolioTileArgs, 'layer' | 'x' | 'y' | 'z'>>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type ProjectResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Project'] = ResolversParentTypes['Project']> = ResolversObject<{
  contacts?: Resolver<ResolversTypes['ContactConnection'], ParentType, ContextType, Partial<ProjectContactsArgs>>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  externalIds?: Resolver<Array<ResolversTypes['ExternalId']>, ParentType, ContextType>;
  history?: Resolver<ResolversTypes['ChangeConnection'], ParentType, ContextType, Partial<ProjectHistoryArgs>>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  location?: Resolver<Maybe<ResolversTypes['GeoPoint']>, ParentType, ContextType>;
  parcels?: Resolver<ResolversTypes['ParcelConnection'], ParentType, ContextType, Partial<ProjectParcelsArgs>>;
  portfolio?: Resolver<ResolversTypes['Portfolio'], ParentType, ContextType>;
  properties?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['PropertyValue']>, ParentType, ContextType, RequireFields<ProjectValueArgs, 'propertyId'>>;
  values?: Resolver<Array<ResolversTypes['PropertyValue']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type ProjectConnectionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ProjectConnection'] = ResolversParentTypes['ProjectConnection']> = ResolversObject<{
  aggregates?: Resolver<ResolversTypes['RecordAggregates'], ParentType, ContextType>;
  edges?: Resolver<Array<ResolversTypes['ProjectEdge']>, ParentType, ContextType>;
  facets?: Resolver<Array<ResolversTypes['Facet']>, ParentType, ContextType, RequireFields<ProjectConnectionFacetsArgs, 'propertyId'>>;
  groupedAggregates?: Resolver<ResolversTypes['AggregateGroups'], ParentType, ContextType, RequireFields<ProjectConnectionGroupedAggregatesArgs, 'first' | 'groupBy'>>;
  nodes?: Resolver<Array<ResolversTypes['Project']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalCountIsEstimate?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type ProjectContactPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ProjectContactPayload'] = ResolversParentTypes['ProjectContactPayload']> = ResolversObject<{
  contact?: Resolver<ResolversTypes['Contact'], ParentType, ContextType>;
  linked?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  project?: Resolver<ResolversTypes['Project'], ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
}>;

export type ProjectEdgeResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ProjectEdge'] = ResolversParentTypes['ProjectEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  linkedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Project'], ParentType, ContextType>;
}>;

export type ProjectPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['ProjectPayload'] = ResolversParentTypes['ProjectPayload']> = ResolversObject<{
  project?: Resolver<Maybe<ResolversTypes['Project']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
}>;

export type PropertyChangeResolvers<ContextType = Context, ParentType extends ResolversParentTypes['PropertyChange'] = ResolversParentTypes['PropertyChange']> = ResolversObject<{
  after?: Resolver<Maybe<ResolversTypes['PropertyValue']>, ParentType, ContextType>;
  before?: Resolver<Maybe<ResolversTypes['PropertyValue']>, ParentType, ContextType>;
  property?: Resolver<Maybe<ResolversTypes['PropertyDefinition']>, ParentType, ContextType>;
  propertyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  stored?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
}>;

export type PropertyDefinitionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['PropertyDefinition'] = ResolversParentTypes['PropertyDefinition']> = ResolversObject<{
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  options?: Resolver<Array<ResolversTypes['SelectOption']>, ParentType, ContextType>;
  position?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  required?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['PropertyType'], ParentType, ContextType>;
}>;

export type PropertyPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['PropertyPayload'] = ResolversParentTypes['PropertyPayload']> = ResolversObject<{
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
}>;

export type PropertyRecordResolvers<ContextType = Context, ParentType extends ResolversParentTypes['PropertyRecord'] = ResolversParentTypes['PropertyRecord']> = ResolversObject<{
  __resolveType: TypeResolveFn<'Contact' | 'Parcel' | 'Project', ParentType, ContextType>;
}>;

export type PropertySchemaResolvers<ContextType = Context, ParentType extends ResolversParentTypes['PropertySchema'] = ResolversParentTypes['PropertySchema']> = ResolversObject<{
  kind?: Resolver<ResolversTypes['RecordKind'], ParentType, ContextType>;
  properties?: Resolver<Array<ResolversTypes['PropertyDefinition']>, ParentType, ContextType>;
}>;

export type PropertyTypeResolvers = EnumResolverSignature<{ CHECKBOX?: any, DATE?: any, EMAIL?: any, MULTI_SELECT?: any, NUMBER?: any, PEOPLE?: any, SELECT?: any, TEXT?: any, URL?: any }, ResolversTypes['PropertyType']>;

export type PropertyValueResolvers<ContextType = Context, ParentType extends ResolversParentTypes['PropertyValue'] = ResolversParentTypes['PropertyValue']> = ResolversObject<{
  __resolveType: TypeResolveFn<'CheckboxValue' | 'DateValue' | 'NumberValue' | 'PeopleValue' | 'SelectValue' | 'TextValue', ParentType, ContextType>;
}>;

export type QueryResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = ResolversObject<{
  contact?: Resolver<Maybe<ResolversTypes['Contact']>, ParentType, ContextType, RequireFields<QueryContactArgs, 'id'>>;
  node?: Resolver<Maybe<ResolversTypes['Node']>, ParentType, ContextType, RequireFields<QueryNodeArgs, 'id'>>;
  organization?: Resolver<Maybe<ResolversTypes['Organization']>, ParentType, ContextType, RequireFields<QueryOrganizationArgs, 'id'>>;
  organizations?: Resolver<Array<ResolversTypes['Organization']>, ParentType, ContextType>;
  parcel?: Resolver<Maybe<ResolversTypes['Parcel']>, ParentType, ContextType, RequireFields<QueryParcelArgs, 'id'>>;
  project?: Resolver<Maybe<ResolversTypes['Project']>, ParentType, ContextType, RequireFields<QueryProjectArgs, 'id'>>;
  recordByExternalId?: Resolver<Maybe<ResolversTypes['PropertyRecord']>, ParentType, ContextType, RequireFields<QueryRecordByExternalIdArgs, 'externalId' | 'orgId' | 'source'>>;
  viewer?: Resolver<ResolversTypes['Viewer'], ParentType, ContextType>;
  webhookEndpoint?: Resolver<Maybe<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType, RequireFields<QueryWebhookEndpointArgs, 'id'>>;
}>;

export type RecordAggregatesResolvers<ContextType = Context, ParentType extends ResolversParentTypes['RecordAggregates'] = ResolversParentTypes['RecordAggregates']> = ResolversObject<{
  avg?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType, Partial<RecordAggregatesAvgArgs>>;
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  max?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType, Partial<RecordAggregatesMaxArgs>>;
  maxDate?: Resolver<Maybe<ResolversTypes['Date']>, ParentType, ContextType, RequireFields<RecordAggregatesMaxDateArgs, 'propertyId'>>;
  maxTime?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType, RequireFields<RecordAggregatesMaxTimeArgs, 'field'>>;
  min?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType, Partial<RecordAggregatesMinArgs>>;
  minDate?: Resolver<Maybe<ResolversTypes['Date']>, ParentType, ContextType, RequireFields<RecordAggregatesMinDateArgs, 'propertyId'>>;
  minTime?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType, RequireFields<RecordAggregatesMinTimeArgs, 'field'>>;
  sum?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType, Partial<RecordAggregatesSumArgs>>;
  withValue?: Resolver<ResolversTypes['Int'], ParentType, ContextType, RequireFields<RecordAggregatesWithValueArgs, 'propertyId'>>;
  withoutValue?: Resolver<ResolversTypes['Int'], ParentType, ContextType, RequireFields<RecordAggregatesWithoutValueArgs, 'propertyId'>>;
}>;

export type RecordKindResolvers = EnumResolverSignature<{ CONTACT?: any, PARCEL?: any, PROJECT?: any }, ResolversTypes['RecordKind']>;

export type RegisterExternalSourcePayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['RegisterExternalSourcePayload'] = ResolversParentTypes['RegisterExternalSourcePayload']> = ResolversObject<{
  sources?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type RemoveMemberPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['RemoveMemberPayload'] = ResolversParentTypes['RemoveMemberPayload']> = ResolversObject<{
  userId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type RevokeApiKeyPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['RevokeApiKeyPayload'] = ResolversParentTypes['RevokeApiKeyPayload']> = ResolversObject<{
  revokedId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type RoleResolvers = EnumResolverSignature<{ ADMIN?: any, GUEST?: any, MEMBER?: any, OWNER?: any, VIEWER?: any }, ResolversTypes['Role']>;

export type SelectOptionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['SelectOption'] = ResolversParentTypes['SelectOption']> = ResolversObject<{
  color?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type SelectValueResolvers<ContextType = Context, ParentType extends ResolversParentTypes['SelectValue'] = ResolversParentTypes['SelectValue']> = ResolversObject<{
  options?: Resolver<Array<ResolversTypes['SelectOption']>, ParentType, ContextType>;
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
  propertyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type SubscriptionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = ResolversObject<{
  recordChanged?: SubscriptionResolver<ResolversTypes['Change'], "recordChanged", ParentType, ContextType, RequireFields<SubscriptionRecordChangedArgs, 'portfolioId'>>;
  recordUpdated?: SubscriptionResolver<ResolversTypes['Change'], "recordUpdated", ParentType, ContextType, RequireFields<SubscriptionRecordUpdatedArgs, 'id'>>;
}>;

export type TextValueResolvers<ContextType = Context, ParentType extends ResolversParentTypes['TextValue'] = ResolversParentTypes['TextValue']> = ResolversObject<{
  property?: Resolver<ResolversTypes['PropertyDefinition'], ParentType, ContextType>;
  propertyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  text?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type UnconvertibleValueResolvers<ContextType = Context, ParentType extends ResolversParentTypes['UnconvertibleValue'] = ResolversParentTypes['UnconvertibleValue']> = ResolversObject<{
  portfolioId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  recordId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  value?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
}>;

export type UpsertRecordResultResolvers<ContextType = Context, ParentType extends ResolversParentTypes['UpsertRecordResult'] = ResolversParentTypes['UpsertRecordResult']> = ResolversObject<{
  externalId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  outcome?: Resolver<ResolversTypes['BulkOutcome'], ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
}>;

export type UpsertRecordsPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['UpsertRecordsPayload'] = ResolversParentTypes['UpsertRecordsPayload']> = ResolversObject<{
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  replayed?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  results?: Resolver<Array<ResolversTypes['UpsertRecordResult']>, ParentType, ContextType>;
  unchanged?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  updated?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type UserResolvers<ContextType = Context, ParentType extends ResolversParentTypes['User'] = ResolversParentTypes['User']> = ResolversObject<{
  email?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  role?: Resolver<Maybe<ResolversTypes['Role']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type UserErrorResolvers<ContextType = Context, ParentType extends ResolversParentTypes['UserError'] = ResolversParentTypes['UserError']> = ResolversObject<{
  code?: Resolver<ResolversTypes['UserErrorCode'], ParentType, ContextType>;
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  path?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  propertyId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
}>;

export type VectorTileResolvers<ContextType = Context, ParentType extends ResolversParentTypes['VectorTile'] = ResolversParentTypes['VectorTile']> = ResolversObject<{
  bytes?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  data?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  features?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  thinned?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type ViewerResolvers<ContextType = Context, ParentType extends ResolversParentTypes['Viewer'] = ResolversParentTypes['Viewer']> = ResolversObject<{
  organizations?: Resolver<Array<ResolversTypes['Organization']>, ParentType, ContextType>;
  user?: Resolver<ResolversTypes['User'], ParentType, ContextType>;
}>;

export type WebhookDeliveryResolvers<ContextType = Context, ParentType extends ResolversParentTypes['WebhookDelivery'] = ResolversParentTypes['WebhookDelivery']> = ResolversObject<{
  attempts?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  deliveredAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  event?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lastError?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  lastStatus?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  nextAttemptAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  payload?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['WebhookDeliveryStatus'], ParentType, ContextType>;
}>;

export type WebhookDeliveryConnectionResolvers<ContextType = Context, ParentType extends ResolversParentTypes['WebhookDeliveryConnection'] = ResolversParentTypes['WebhookDeliveryConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['WebhookDeliveryEdge']>, ParentType, ContextType>;
  nodes?: Resolver<Array<ResolversTypes['WebhookDelivery']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type WebhookDeliveryEdgeResolvers<ContextType = Context, ParentType extends ResolversParentTypes['WebhookDeliveryEdge'] = ResolversParentTypes['WebhookDeliveryEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['WebhookDelivery'], ParentType, ContextType>;
}>;

export type WebhookEndpointResolvers<ContextType = Context, ParentType extends ResolversParentTypes['WebhookEndpoint'] = ResolversParentTypes['WebhookEndpoint']> = ResolversObject<{
  consecutiveFailures?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  deliveries?: Resolver<ResolversTypes['WebhookDeliveryConnection'], ParentType, ContextType, Partial<WebhookEndpointDeliveriesArgs>>;
  disabledReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  events?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  portfolioIds?: Resolver<Maybe<Array<ResolversTypes['ID']>>, ParentType, ContextType>;
  url?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type WebhookEndpointPayloadResolvers<ContextType = Context, ParentType extends ResolversParentTypes['WebhookEndpointPayload'] = ResolversParentTypes['WebhookEndpointPayload']> = ResolversObject<{
  endpoint?: Resolver<ResolversTypes['WebhookEndpoint'], ParentType, ContextType>;
}>;

export type Resolvers<ContextType = Context> = ResolversObject<{
  AggregateGroup?: AggregateGroupResolvers<ContextType>;
  AggregateGroupKey?: AggregateGroupKeyResolvers<ContextType>;
  AggregateGroups?: AggregateGroupsResolvers<ContextType>;
  AuditEntry?: AuditEntryResolvers<ContextType>;
  AuditLogPage?: AuditLogPageResolvers<ContextType>;
  BulkLinkPayload?: BulkLinkPayloadResolvers<ContextType>;
  BulkLinkResult?: BulkLinkResultResolvers<ContextType>;
  Change?: ChangeResolvers<ContextType>;
  ChangeConnection?: ChangeConnectionResolvers<ContextType>;
  ChangeEdge?: ChangeEdgeResolvers<ContextType>;
  ChangeOperation?: ChangeOperationResolvers;
  ChangePropertyTypePayload?: ChangePropertyTypePayloadResolvers<ContextType>;
  ChangeSource?: ChangeSourceResolvers;
  CheckboxValue?: CheckboxValueResolvers<ContextType>;
  Contact?: ContactResolvers<ContextType>;
  ContactConnection?: ContactConnectionResolvers<ContextType>;
  ContactEdge?: ContactEdgeResolvers<ContextType>;
  ContactPayload?: ContactPayloadResolvers<ContextType>;
  CreateApiKeyPayload?: CreateApiKeyPayloadResolvers<ContextType>;
  CreateWebhookEndpointPayload?: CreateWebhookEndpointPayloadResolvers<ContextType>;
  Date?: GraphQLScalarType;
  DateTime?: GraphQLScalarType;
  DateValue?: DateValueResolvers<ContextType>;
  DeletePayload?: DeletePayloadResolvers<ContextType>;
  DeletePropertyPayload?: DeletePropertyPayloadResolvers<ContextType>;
  DeleteWebhookEndpointPayload?: DeleteWebhookEndpointPayloadResolvers<ContextType>;
  ExternalId?: ExternalIdResolvers<ContextType>;
  Facet?: FacetResolvers<ContextType>;
  Feature?: FeatureResolvers<ContextType>;
  FeatureCollection?: FeatureCollectionResolvers<ContextType>;
  GeoPoint?: GeoPointResolvers<ContextType>;
  GuestAccessPayload?: GuestAccessPayloadResolvers<ContextType>;
  InviteUserPayload?: InviteUserPayloadResolvers<ContextType>;
  JSON?: GraphQLScalarType;
  MemberPayload?: MemberPayloadResolvers<ContextType>;
  MergePropertyOptionsPayload?: MergePropertyOptionsPayloadResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  Node?: NodeResolvers<ContextType>;
  NumberValue?: NumberValueResolvers<ContextType>;
  Organization?: OrganizationResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Parcel?: ParcelResolvers<ContextType>;
  ParcelConnection?: ParcelConnectionResolvers<ContextType>;
  ParcelContactPayload?: ParcelContactPayloadResolvers<ContextType>;
  ParcelEdge?: ParcelEdgeResolvers<ContextType>;
  ParcelPayload?: ParcelPayloadResolvers<ContextType>;
  PeopleValue?: PeopleValueResolvers<ContextType>;
  Portfolio?: PortfolioResolvers<ContextType>;
  Project?: ProjectResolvers<ContextType>;
  ProjectConnection?: ProjectConnectionResolvers<ContextType>;
  ProjectContactPayload?: ProjectContactPayloadResolvers<ContextType>;
  ProjectEdge?: ProjectEdgeResolvers<ContextType>;
  ProjectPayload?: ProjectPayloadResolvers<ContextType>;
  PropertyChange?: PropertyChangeResolvers<ContextType>;
  PropertyDefinition?: PropertyDefinitionResolvers<ContextType>;
  PropertyPayload?: PropertyPayloadResolvers<ContextType>;
  PropertyRecord?: PropertyRecordResolvers<ContextType>;
  PropertySchema?: PropertySchemaResolvers<ContextType>;
  PropertyType?: PropertyTypeResolvers;
  PropertyValue?: PropertyValueResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  RecordAggregates?: RecordAggregatesResolvers<ContextType>;
  RecordKind?: RecordKindResolvers;
  RegisterExternalSourcePayload?: RegisterExternalSourcePayloadResolvers<ContextType>;
  RemoveMemberPayload?: RemoveMemberPayloadResolvers<ContextType>;
  RevokeApiKeyPayload?: RevokeApiKeyPayloadResolvers<ContextType>;
  Role?: RoleResolvers;
  SelectOption?: SelectOptionResolvers<ContextType>;
  SelectValue?: SelectValueResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  TextValue?: TextValueResolvers<ContextType>;
  UnconvertibleValue?: UnconvertibleValueResolvers<ContextType>;
  UpsertRecordResult?: UpsertRecordResultResolvers<ContextType>;
  UpsertRecordsPayload?: UpsertRecordsPayloadResolvers<ContextType>;
  User?: UserResolvers<ContextType>;
  UserError?: UserErrorResolvers<ContextType>;
  VectorTile?: VectorTileResolvers<ContextType>;
  Viewer?: ViewerResolvers<ContextType>;
  WebhookDelivery?: WebhookDeliveryResolvers<ContextType>;
  WebhookDeliveryConnection?: WebhookDeliveryConnectionResolvers<ContextType>;
  WebhookDeliveryEdge?: WebhookDeliveryEdgeResolvers<ContextType>;
  WebhookEndpoint?: WebhookEndpointResolvers<ContextType>;
  WebhookEndpointPayload?: WebhookEndpointPayloadResolvers<ContextType>;
}>;

