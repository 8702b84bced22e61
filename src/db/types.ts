import type { ColumnType, Generated } from 'kysely';

/** Row types of the tables in migrations/. Only repositories see these; services return domain types. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T = unknown> = ColumnType<T, string, string>;

export type RecordKind = 'project' | 'parcel' | 'contact';
export type OrgRole = 'owner' | 'admin' | 'member' | 'viewer';

export interface RecordTable {
  org_id: string;
  portfolio_id: string;
  id: string;
  properties: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Postgres's geometric types travel as their text form (`box`, `polygon[]`; migrations/0009). */
type GeometricText = ColumnType<string, string | undefined, string>;

export interface ProjectTable extends RecordTable {
  location: Json<unknown> | null;
  /** The location as a box of one point, GiST-indexed for spatial filters and tiles. */
  bounds: GeometricText | null;
}
export interface ParcelTable extends RecordTable {
  geometry: Json<unknown> | null;
  /** Geodesic area of the geometry, in acres. */
  acres: ColumnType<number, number | undefined, number> | null;
  bounds: GeometricText | null;
  rings: GeometricText | null;
}

interface LinkBase {
  org_id: string;
  portfolio_id: string;
  linked_at: Timestamp;
}

export interface DB {
  instance_settings: { key: string; value: string };
  org_versions: { org_id: string; version: number };
  users: { id: string; email: string; name: string; created_at: Timestamp };
  api_keys: {
    id: string;
    user_id: string;
    key_hash: string;
    prefix: string;
    label: string | null;
    created_at: Timestamp;
    last_used_at: Date | null;
    revoked_at: Date | null;
    /** May send ad-hoc GraphQL documents when trusted documents are enforced. */
    admin: Generated<boolean>;
  };
  organizations: { id: string; name: string; created_at: Timestamp };
  org_members: { org_id: string; user_id: string; role: OrgRole; created_at: Timestamp };
  portfolios: { org_id: string; id: string; name: string; created_at: Timestamp };
  portfolio_guests: { org_id: string; portfolio_id: string; user_id: string; created_at: Timestamp };
  property_defs: {
    org_id: string;
    kind: RecordKind;
    id: string;
    name: string;
    property_type: string;
    options: Json<{ id: string; name: string; color: string }[]>;
    required: Generated<boolean>;
    position: number;
  };
  projects: ProjectTable;
  parcels: ParcelTable;
  contacts: RecordTable;
  project_contacts: LinkBase & { project_id: string; contact_id: string };
  parcel_contacts: LinkBase & { parcel_id: string; contact_id: string };
  project_parcels: LinkBase & { project_id: string; parcel_id: string };
  webhook_endpoints: {
    org_id: string;
    id: string;
    url: string;
    events: string[];
    portfolio_ids: string[] | null;
    secret: string;
    enabled: Generated<boolean>;
    consecutive_failures: Generated<number>;
    disabled_reason: string | null;
    created_by: string | null;
    created_at: Generated<Date>;
    cursor_tx: string;
    cursor_seq: Generated<string>;
    /** pg_current_snapshot() at registration: entries it shows as committed are not this endpoint's. */
    start_snapshot: string;
  };
  webhook_deliveries: {
    org_id: string;
    id: string;
    endpoint_id: string;
    event: string;
    change_tx: string;
    change_seq: string;
    body: string;
    status: Generated<'pending' | 'delivered'>;
    attempts: Generated<number>;
    next_attempt_at: Generated<Date>;
    last_status: number | null;
    last_error: string | null;
    created_at: Generated<Date>;
    delivered_at: Date | null;
  };
}
