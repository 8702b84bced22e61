import { type Kysely, sql } from 'kysely';

/** The checkbox property type: property_defs may hold it. */
const before = ['text', 'url', 'email', 'number', 'date', 'select', 'multi_select', 'people'];
const after = [...before, 'checkbox'];

const allow = (types: string[]) =>
  sql`alter table property_defs add constraint property_defs_property_type_check
    check (property_type in (${sql.join(types.map((t) => sql.lit(t)))}))`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table property_defs drop constraint property_defs_property_type_check`.execute(db);
  await allow(after).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table property_defs drop constraint property_defs_property_type_check`.execute(db);
  await allow(before).execute(db);
}
