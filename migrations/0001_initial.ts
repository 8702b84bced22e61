import { type Kysely, sql } from 'kysely';
import { distribute } from '../src/db/citus.js';

/**
 * Initial schema. Every table holding tenant data carries `org_id` first in its primary key,
 * unique constraints and foreign keys, so each can be distributed by `org_id` (Citus) and every
 * tenant query can be routed to one shard. `users` and `api_keys` are cross-tenant (reference tables).
 * Timestamps are truncated to milliseconds so that keyset cursors round-trip exactly through JSON.
 */
const nowMs = sql`date_trunc('milliseconds', clock_timestamp())`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('instance_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  // A per-database secret signs cursors, so every replica sharing the database accepts them.
  await sql`insert into instance_settings (key, value) values ('cursor_secret', md5(random()::text || clock_timestamp()::text) || md5(random()::text))`.execute(
    db,
  );

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs))
    .execute();

  await db.schema
    .createTable('org_members')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member', 'viewer')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs))
    .addPrimaryKeyConstraint('org_members_pk', ['org_id', 'user_id'])
    .execute();
  await db.schema.createIndex('org_members_user_idx').on('org_members').column('user_id').execute();

  await db.schema
    .createTable('portfolios')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs))
    .addPrimaryKeyConstraint('portfolios_pk', ['org_id', 'id'])
    .execute();

  await db.schema
    .createTable('portfolio_guests')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('portfolio_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs))
    .addPrimaryKeyConstraint('portfolio_guests_pk', ['org_id', 'portfolio_id', 'user_id'])
    .addForeignKeyConstraint(
      'portfolio_guests_portfolio_fk',
      ['org_id', 'portfolio_id'],
      'portfolios',
      ['org_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('portfolio_guests_user_idx').on('portfolio_guests').column('user_id').execute();

  await db.schema
    .createTable('property_defs')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('project', 'parcel', 'contact')`))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('property_type', 'text', (c) =>
      c
        .notNull()
        .check(sql`property_type in ('text','url','email','number','date','select','multi_select','people')`),
    )
    .addColumn('options', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('required', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('property_defs_pk', ['org_id', 'kind', 'id'])
    .execute();

  for (const table of ['projects', 'parcels', 'contacts'] as const) {
    let t = db.schema
      .createTable(table)
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('portfolio_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('properties', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs));
    if (table === 'parcels') t = t.addColumn('geometry', 'jsonb');
    // Kept up to date by the link writers: a GeoJSON Point, the area-weighted centroid of the linked parcels.
    if (table === 'projects') t = t.addColumn('location', 'jsonb');
    await t
      .addPrimaryKeyConstraint(`${table}_pk`, ['org_id', 'id'])
      // Lets link tables reference (org, portfolio, id), so a link can never cross portfolios.
      .addUniqueConstraint(`${table}_portfolio_uq`, ['org_id', 'portfolio_id', 'id'])
      .addForeignKeyConstraint(
        `${table}_portfolio_fk`,
        ['org_id', 'portfolio_id'],
        'portfolios',
        ['org_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    // Keyset pagination within a portfolio: (created_at, id).
    await db.schema
      .createIndex(`${table}_page_idx`)
      .on(table)
      .columns(['org_id', 'portfolio_id', 'created_at', 'id'])
      .execute();
  }

  const links = [
    ['project_contacts', 'project_id', 'projects', 'contact_id', 'contacts'],
    ['parcel_contacts', 'parcel_id', 'parcels', 'contact_id', 'contacts'],
    ['project_parcels', 'project_id', 'projects', 'parcel_id', 'parcels'],
  ] as const;
  for (const [table, a, aTable, b, bTable] of links) {
    await db.schema
      .createTable(table)
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('portfolio_id', 'text', (c) => c.notNull())
      .addColumn(a, 'text', (c) => c.notNull())
      .addColumn(b, 'text', (c) => c.notNull())
      .addColumn('linked_at', 'timestamptz', (c) => c.notNull().defaultTo(nowMs))
      .addPrimaryKeyConstraint(`${table}_pk`, ['org_id', a, b])
      .addForeignKeyConstraint(
        `${table}_${a}_fk`,
        ['org_id', 'portfolio_id', a],
        aTable,
        ['org_id', 'portfolio_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .addForeignKeyConstraint(
        `${table}_${b}_fk`,
        ['org_id', 'portfolio_id', b],
        bTable,
        ['org_id', 'portfolio_id', 'id'],
        (fk) => fk.onDelete('cascade'),
      )
      .execute();
    // Both directions, in the stable link order (linked_at, other id).
    await db.schema
      .createIndex(`${table}_${a}_idx`)
      .on(table)
      .columns(['org_id', a, 'linked_at', b])
      .execute();
    await db.schema
      .createIndex(`${table}_${b}_idx`)
      .on(table)
      .columns(['org_id', b, 'linked_at', a])
      .execute();
  }

  // On Citus: what the key lookup reads is copied to every node; tenant data is sharded by org_id.
  // A guest grant keeps no foreign key to its (sharded) portfolio there; portfolios are never deleted.
  await distribute(db, {
    reference: ['instance_settings', 'users', 'api_keys', 'organizations', 'org_members', 'portfolio_guests'],
    byOrg: [
      'portfolios',
      'property_defs',
      'projects',
      'parcels',
      'contacts',
      'project_contacts',
      'parcel_contacts',
      'project_parcels',
    ],
    dropOnCitus: ['portfolio_guests_portfolio_fk'],
  });
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'project_parcels',
    'parcel_contacts',
    'project_contacts',
    'contacts',
    'parcels',
    'projects',
    'property_defs',
    'portfolio_guests',
    'portfolios',
    'org_members',
    'organizations',
    'api_keys',
    'users',
    'instance_settings',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
