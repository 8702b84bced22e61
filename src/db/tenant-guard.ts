/**
 * The Citus routing rule, checked on compiled SQL: every statement that touches a tenant table
 * must name `org_id` in its filter (WHERE / ON) or, for inserts, in its columns. Statements that are
 * cross-tenant on purpose carry the marker comment CROSS_TENANT and are listed in docs/scaling.md.
 * Enabled in tests (and with SDG_TENANT_GUARD=1), where a violation fails the query, and so the test.
 */
export const TENANT_TABLES = [
  'org_members',
  'portfolios',
  'portfolio_guests',
  'property_defs',
  'projects',
  'parcels',
  'contacts',
  'project_contacts',
  'parcel_contacts',
  'project_parcels',
  'org_versions',
  'change_log',
  'webhook_endpoints',
  'webhook_deliveries',
  'external_sources',
  'external_ids',
  'idempotency_keys',
  'record_counts',
] as const;

/** Put this comment in a statement that is meant to span tenants. */
export const CROSS_TENANT = '/* sdg:cross-tenant */';

const TOUCHES = new RegExp(`\\b(from|join|into|update)\\s+"?(${TENANT_TABLES.join('|')})"?\\b`, 'i');
const DDL = /^\s*(create|alter|drop|comment|truncate)\b/i;

export function tenantViolation(sqlText: string): string | undefined {
  if (DDL.test(sqlText) || sqlText.includes(CROSS_TENANT)) return undefined;
  const m = TOUCHES.exec(sqlText);
  if (!m) return undefined;
  if (/^\s*insert\b/i.test(sqlText))
    return /"?org_id"?/.test(sqlText) ? undefined : `insert into ${m[2]} without org_id`;
  // Some filter (WHERE or a join's ON) must constrain org_id.
  if (/\b(where|on)\b[\s\S]*"?org_id"?\s*(=|in\b)/i.test(sqlText)) return undefined;
  return `statement on ${m[2]} does not filter on org_id`;
}
