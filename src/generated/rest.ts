/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** Input of a create. */
export type CreateRecordInput = {
  /** The organization. */
  orgId: string | number;
  /** The portfolio that will hold the record. */
  portfolioId: string | number;
  /** Property id → value object, as in REST v1. Give this or `values`, not both. */
  properties?: unknown;
  /** The same as typed entries, one per property: what a typed client (codegen) sends. */
  values?: Array<PropertyValueEntry> | null | undefined;
};

/** A date value. */
export type DateValueInput = {
  /** The date. */
  start: string;
};

/** Input of a delete. */
export type DeleteRecordInput = {
  /** The record id. */
  id: string | number;
  /** When given, the record must belong to this organization. */
  orgId?: string | number | null | undefined;
  /** When given, the record must belong to this portfolio. */
  portfolioId?: string | number | null | undefined;
};

/** Input of a parcel–contact link or unlink. */
export type ParcelContactInput = {
  /** The contact; it must be in the parcel's portfolio. */
  contactId: string | number;
  /** When given, the parcel must belong to this organization. */
  orgId?: string | number | null | undefined;
  /** The parcel. */
  parcelId: string | number;
  /** When given, the parcel must belong to this portfolio. */
  portfolioId?: string | number | null | undefined;
};

/** Input of a project–contact link or unlink. */
export type ProjectContactInput = {
  /** The contact; it must be in the project's portfolio. */
  contactId: string | number;
  /** When given, the project must belong to this organization. */
  orgId?: string | number | null | undefined;
  /** When given, the project must belong to this portfolio. */
  portfolioId?: string | number | null | undefined;
  /** The project. */
  projectId: string | number;
};

/** The type of value a property holds. */
export type PropertyType =
  /** A yes/no flag, `{ checkbox: true | false }`. */
  | 'CHECKBOX'
  /** A calendar date, `{ date: { start } }`. */
  | 'DATE'
  /** An e-mail address, `{ text }`. */
  | 'EMAIL'
  /** Any options of the property, `{ select: [optionId, …] }`. */
  | 'MULTI_SELECT'
  /** A finite decimal number, `{ number }`. */
  | 'NUMBER'
  /** One user of the organization, `{ people: [uid] }`. */
  | 'PEOPLE'
  /** One option of the property, `{ select: [optionId] }`. */
  | 'SELECT'
  /** Free text, `{ text }`. */
  | 'TEXT'
  /** An absolute http(s) URL, `{ text }`. */
  | 'URL';

/** One property's new value in a typed write. */
export type PropertyValueEntry = {
  /** The property id, from the organization's property schema. */
  propertyId: string | number;
  /** Its value: exactly one member, the one that fits the property's type. */
  value: PropertyValueInput;
};

/**
 * A property value: exactly one member. Which one fits is the property's type: `text` for text, url
 * and email; `number`; `date`; `select` for select (one option id) and multi_select; `people` (one
 * user id); `checkbox`. `clear: true` removes the value of a property of any type.
 */
export type PropertyValueInput =
  {   /** A checkbox value. */
  checkbox: boolean; clear?: never; date?: never; number?: never; people?: never; select?: never; text?: never; }
  |  { checkbox?: never;   /** Must be true: clears the property's value (required properties cannot be cleared). */
  clear: boolean; date?: never; number?: never; people?: never; select?: never; text?: never; }
  |  { checkbox?: never; clear?: never;   /** A date. */
  date: DateValueInput; number?: never; people?: never; select?: never; text?: never; }
  |  { checkbox?: never; clear?: never; date?: never;   /** A finite number. */
  number: number; people?: never; select?: never; text?: never; }
  |  { checkbox?: never; clear?: never; date?: never; number?: never;   /** User ids of the organization: exactly one. */
  people: Array<string | number>; select?: never; text?: never; }
  |  { checkbox?: never; clear?: never; date?: never; number?: never; people?: never;   /** Option ids: exactly one for select, any number for multi_select (`[]` clears it). */
  select: Array<string | number>; text?: never; }
  |  { checkbox?: never; clear?: never; date?: never; number?: never; people?: never; select?: never;   /** A text, url or email value (at most 10,000 characters). */
  text: string; };

/** A caller's role in an organization. Guests have no organization role; they reach single portfolios. */
export type Role =
  /** Manages the organization's data and people. */
  | 'ADMIN'
  /** Reads and writes only the portfolios granted to them. */
  | 'GUEST'
  /** Reads and writes every portfolio of the organization. */
  | 'MEMBER'
  /** Full control of the organization. */
  | 'OWNER'
  /** Reads every portfolio of the organization and writes nothing. */
  | 'VIEWER';

/** Input of a partial update. */
export type UpdateRecordInput = {
  /**
   * Optimistic concurrency: the record's `updatedAt` as last read. When the record has changed since,
   * nothing is written and the payload carries a CONFLICT user error and the record as it is now.
   */
  expectedUpdatedAt?: string | null | undefined;
  /** The record id. */
  id: string | number;
  /** When given, the record must belong to this organization, or the answer is NOT_FOUND. */
  orgId?: string | number | null | undefined;
  /** When given, the record must belong to this portfolio, or the answer is NOT_FOUND. */
  portfolioId?: string | number | null | undefined;
  /** Only these properties change; a null inner member clears one. Give this or `values`, not both. */
  properties?: unknown;
  /** Only these properties change, as typed entries; `{ clear: true }` clears one. */
  values?: Array<PropertyValueEntry> | null | undefined;
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

export type LinkProjectContactMutationVariables = Exact<{
  input: ProjectContactInput;
}>;


export type LinkProjectContactMutation = { linkProjectContact: { linked: boolean } };

export type UnlinkParcelContactMutationVariables = Exact<{
  input: ParcelContactInput;
}>;


export type UnlinkParcelContactMutation = { unlinkParcelContact: { linked: boolean } };

export type UpdateProjectMutationVariables = Exact<{
  input: UpdateRecordInput;
}>;


export type UpdateProjectMutation = { updateProject: { project: R_Project_Fragment | null, userErrors: Array<{ code: UserErrorCode, message: string, propertyId: string | null, path: Array<string> | null }> } };

type R_Contact_Fragment = { id: string, properties: unknown, created_at: string, updated_at: string };

type R_Parcel_Fragment = { id: string, properties: unknown, created_at: string, updated_at: string };

type R_Project_Fragment = { id: string, properties: unknown, created_at: string, updated_at: string };

export type RFragment =
  | R_Contact_Fragment
  | R_Parcel_Fragment
  | R_Project_Fragment
;

export type ListPortfoliosQueryVariables = Exact<{
  orgId: string | number;
}>;


export type ListPortfoliosQuery = { organization: { id: string, portfolios: Array<{ id: string, name: string, createdAt: string }> } | null };

export type ListContactProjectsQueryVariables = Exact<{
  orgId: string | number;
  portfolioId: string | number;
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ListContactProjectsQuery = { organization: { portfolio: { contact: { projects: { nodes: Array<R_Project_Fragment>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } | null } | null };

export type CreateProjectMutationVariables = Exact<{
  input: CreateRecordInput;
}>;


export type CreateProjectMutation = { createProject: { project: R_Project_Fragment | null, userErrors: Array<{ code: UserErrorCode, message: string, propertyId: string | null, path: Array<string> | null }> } };

export type GetProjectSchemaQueryVariables = Exact<{
  orgId: string | number;
}>;


export type GetProjectSchemaQuery = { organization: { propertySchema: { properties: Array<{ id: string, name: string, type: PropertyType, required: boolean, options: Array<{ id: string, name: string, color: string }> }> } } | null };

export type UpdateParcelMutationVariables = Exact<{
  input: UpdateRecordInput;
}>;


export type UpdateParcelMutation = { updateParcel: { parcel: R_Parcel_Fragment | null, userErrors: Array<{ code: UserErrorCode, message: string, propertyId: string | null, path: Array<string> | null }> } };

export type UpdateContactMutationVariables = Exact<{
  input: UpdateRecordInput;
}>;


export type UpdateContactMutation = { updateContact: { contact: R_Contact_Fragment | null, userErrors: Array<{ code: UserErrorCode, message: string, propertyId: string | null, path: Array<string> | null }> } };

export type ListProjectsQueryVariables = Exact<{
  orgId: string | number;
  portfolioId: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ListProjectsQuery = { organization: { portfolio: { projects: { nodes: Array<R_Project_Fragment>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } | null };

export type ListContactsQueryVariables = Exact<{
  orgId: string | number;
  portfolioId: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ListContactsQuery = { organization: { portfolio: { contacts: { nodes: Array<R_Contact_Fragment>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } | null };

export type ListProjectParcelsQueryVariables = Exact<{
  orgId: string | number;
  portfolioId: string | number;
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ListProjectParcelsQuery = { organization: { portfolio: { project: { parcels: { nodes: Array<R_Parcel_Fragment>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } | null } | null };

export type ListContactParcelsQueryVariables = Exact<{
  orgId: string | number;
  portfolioId: string | number;
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ListContactParcelsQuery = { organization: { portfolio: { contact: { parcels: { nodes: Array<R_Parcel_Fragment>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } | null } | null };

export type GetParcelSchemaQueryVariables = Exact<{
  orgId: string | number;
}>;


export type GetParcelSchemaQuery = { organization: { propertySchema: { properties: Array<{ id: string, name: string, type: PropertyType, required: boolean, options: Array<{ id: string, name: string, color: string }> }> } } | null };

export type ListParcelContactsQueryVariables = Exact<{
  orgId: string | number;
  portfolioId: string | number;
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ListParcelContactsQuery = { organization: { portfolio: { parcel: { contacts: { nodes: Array<R_Contact_Fragment>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } | null } | null };

export type ListOrganizationsQueryVariables = Exact<{ [key: string]: never; }>;


export type ListOrganizationsQuery = { organizations: Array<{ id: string, name: string }> };

export type LinkParcelContactMutationVariables = Exact<{
  input: ParcelContactInput;
}>;


export type LinkParcelContactMutation = { linkParcelContact: { linked: boolean } };

export type UnlinkProjectContactMutationVariables = Exact<{
  input: ProjectContactInput;
}>;


export type UnlinkProjectContactMutation = { unlinkProjectContact: { linked: boolean } };

export type ListProjectContactsQueryVariables = Exact<{
  orgId: string | number;
  portfolioId: string | number;
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ListProjectContactsQuery = { organization: { portfolio: { project: { contacts: { nodes: Array<R_Contact_Fragment>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } | null } | null };

export type GetContactSchemaQueryVariables = Exact<{
  orgId: string | number;
}>;


export type GetContactSchemaQuery = { organization: { propertySchema: { properties: Array<{ id: string, name: string, type: PropertyType, required: boolean, options: Array<{ id: string, name: string, color: string }> }> } } | null };

export type ListUsersQueryVariables = Exact<{
  orgId: string | number;
}>;


export type ListUsersQuery = { organization: { users: Array<{ id: string, email: string, name: string, role: Role | null }> } | null };

export type CreateContactMutationVariables = Exact<{
  input: CreateRecordInput;
}>;


export type CreateContactMutation = { createContact: { contact: R_Contact_Fragment | null, userErrors: Array<{ code: UserErrorCode, message: string, propertyId: string | null, path: Array<string> | null }> } };

export type ListParcelProjectsQueryVariables = Exact<{
  orgId: string | number;
  portfolioId: string | number;
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ListParcelProjectsQuery = { organization: { portfolio: { parcel: { projects: { nodes: Array<R_Project_Fragment>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } | null } | null };

export type DeleteProjectMutationVariables = Exact<{
  input: DeleteRecordInput;
}>;


export type DeleteProjectMutation = { deleteProject: { deletedId: string } };

export type DeleteContactMutationVariables = Exact<{
  input: DeleteRecordInput;
}>;


export type DeleteContactMutation = { deleteContact: { deletedId: string } };
