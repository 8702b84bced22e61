import type { Kysely } from 'kysely';
import type { DB, RecordKind } from '../db/types.js';
import { defineProperty, installDefaultProperties, type NewProperty } from '../modules/schema/index.js';

const opt = (id: string, name: string, color: string) => ({ id, name, color });

/**
 * Demo properties on top of the spec's defaults: a text, url, email, number, date, select,
 * multi_select and people property on every record kind.
 */
export const DEMO_PROPERTIES: Record<RecordKind, NewProperty[]> = {
  project: [
    { id: 'website', name: 'Website', type: 'url' },
    { id: 'developer_email', name: 'Developer e-mail', type: 'email' },
    { id: 'capacity_mw', name: 'Capacity (MWac)', type: 'number' },
    { id: 'cod', name: 'Commercial operation date', type: 'date' },
    {
      id: 'stage',
      name: 'Stage',
      type: 'select',
      options: [
        opt('origination', 'Origination', '#94a3b8'),
        opt('site-control', 'Site control', '#3b82f6'),
        opt('permitting', 'Permitting', '#f59e0b'),
        opt('construction', 'Construction', '#8b5cf6'),
        opt('operating', 'Operating', '#22c55e'),
      ],
    },
    {
      id: 'offtake',
      name: 'Offtake',
      type: 'multi_select',
      options: [
        opt('ppa', 'PPA', '#0ea5e9'),
        opt('merchant', 'Merchant', '#f97316'),
        opt('community', 'Community solar', '#84cc16'),
        opt('rec', 'REC sale', '#14b8a6'),
      ],
    },
    { id: 'owner', name: 'Project owner', type: 'people' },
  ],
  parcel: [
    { id: 'apn', name: 'APN', type: 'text' },
    { id: 'county_url', name: 'County record', type: 'url' },
    { id: 'owner_email', name: 'Owner e-mail', type: 'email' },
    { id: 'acreage', name: 'Acreage', type: 'number' },
    { id: 'option_expiry', name: 'Option expiry', type: 'date' },
    {
      id: 'constraints',
      name: 'Constraints',
      type: 'multi_select',
      options: [
        opt('wetland', 'Wetland', '#06b6d4'),
        opt('floodplain', 'Floodplain', '#3b82f6'),
        opt('pipeline', 'Pipeline easement', '#ef4444'),
        opt('airport', 'Airport zone', '#a855f7'),
      ],
    },
    { id: 'land_agent', name: 'Land agent', type: 'people' },
  ],
  contact: [
    { id: 'email', name: 'E-mail', type: 'email' },
    { id: 'phone', name: 'Phone', type: 'text' },
    { id: 'linkedin', name: 'Profile', type: 'url' },
    { id: 'acres_owned', name: 'Acres owned', type: 'number' },
    { id: 'last_contacted', name: 'Last contacted', type: 'date' },
    {
      id: 'contact_type',
      name: 'Contact type',
      type: 'select',
      options: [
        opt('landowner', 'Landowner', '#22c55e'),
        opt('broker', 'Broker', '#f59e0b'),
        opt('counsel', 'Counsel', '#6366f1'),
        opt('official', 'County official', '#64748b'),
      ],
    },
    {
      id: 'interests',
      name: 'Interests',
      type: 'multi_select',
      options: [
        opt('lease', 'Lease', '#10b981'),
        opt('sale', 'Sale', '#ef4444'),
        opt('easement', 'Easement', '#eab308'),
      ],
    },
    { id: 'relationship_owner', name: 'Relationship owner', type: 'people' },
  ],
};

export async function installDemoSchema(db: Kysely<DB>, orgId: string): Promise<void> {
  await installDefaultProperties(db, orgId);
  for (const [kind, props] of Object.entries(DEMO_PROPERTIES) as [RecordKind, NewProperty[]][]) {
    for (const p of props) await defineProperty(db, orgId, kind, p);
  }
}
