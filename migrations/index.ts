import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_initial.js';
import * as m0002 from './0002_record_filters.js';
import * as m0003 from './0003_org_versions.js';
import * as m0004 from './0004_checkbox_property_type.js';
import * as m0005 from './0005_search_values.js';
import * as m0006 from './0006_change_log.js';
import * as m0007 from './0007_api_key_admin.js';
import * as m0008 from './0008_webhooks.js';
import * as m0009 from './0009_maps.js';
import * as m0010 from './0010_external_ids.js';
import * as m0011 from './0011_admin_audit.js';
import * as m0012 from './0012_portfolio_bounds_index.js';
import * as m0013 from './0013_record_counts.js';

/** Static list, so migrations work the same from sources (tests), from dist/ and in a bundle. */
export const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_record_filters': m0002,
  '0003_org_versions': m0003,
  '0004_checkbox_property_type': m0004,
  '0005_search_values': m0005,
  '0006_change_log': m0006,
  '0007_api_key_admin': m0007,
  '0008_webhooks': m0008,
  '0009_maps': m0009,
  '0010_external_ids': m0010,
  '0011_admin_audit': m0011,
  '0012_portfolio_bounds_index': m0012,
  '0013_record_counts': m0013,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
