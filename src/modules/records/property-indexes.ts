import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/types.js';
import type { PropertySchemaModel } from '../schema/index.js';
import { type PropertyIndex, propertyIndexSql } from './order.js';

type RecordTable = 'projects' | 'parcels' | 'contacts';

/**
 * Creates a property's expression indexes (propertyIndexSql), each unless it is there. An index that
 * an earlier build made under its name without the hash is renamed, when its definition is this
 * property's: a rename changes the catalog only, where building it again would read the whole table
 * and leave two copies that every write keeps up. `onRename` hears each rename.
 */
export async function createPropertyIndexes(
  db: Kysely<DB>,
  table: RecordTable,
  schema: PropertySchemaModel,
  id: string,
  onRename: (from: string, to: string) => void = () => {},
): Promise<{ indexes: number; renamed: number }> {
  const indexes = propertyIndexSql(table, schema, id);
  let renamed = 0;
  for (const index of indexes) {
    if (await legacyIndexOf(db, table, index, id)) {
      await sql`alter index ${sql.id(index.legacyName)} rename to ${sql.id(index.name)}`.execute(db);
      onRename(index.legacyName, index.name);
      renamed++;
    }
    await index.create.execute(db);
  }
  return { indexes: indexes.length, renamed };
}

/**
 * Whether `index` is missing and this property's index is there under its earlier name. Ids that
 * read alike shared that name, so the definition decides: it names the id as a literal.
 */
async function legacyIndexOf(
  db: Kysely<DB>,
  table: RecordTable,
  index: PropertyIndex,
  id: string,
): Promise<boolean> {
  const { rows } = await sql<{ name: string; def: string }>`
    select indexname as name, indexdef as def from pg_indexes
    where schemaname = current_schema() and tablename = ${table}
      and indexname in (${index.name}, ${index.legacyName})`.execute(db);
  if (rows.some((r) => r.name === index.name)) return false;
  const legacy = rows.find((r) => r.name === index.legacyName);
  return !!legacy && legacy.def.includes(`'${id}'::text`);
}
