import type { Kysely } from 'kysely';
import type { Context, Loaders } from './context.js';
import { requestTraceOf } from './db/database.js';
import type { DB } from './db/types.js';
import type { Viewer } from './modules/auth/index.js';
import { createOrgLoaders } from './modules/org/index.js';
import { createRecordLoaders } from './modules/records/index.js';
import { createSchemaLoaders } from './modules/schema/index.js';
import { withRequestTrace } from './observability/tracing.js';
import type { CursorCodec } from './pagination/cursor.js';

/**
 * Every module's loaders for one viewer. `primary` fills the process caches (never a lagging
 * replica); `db` serves everything else.
 */
function createLoaders(db: Kysely<DB>, viewer: Viewer, primary: Kysely<DB> = db): Loaders {
  // With tracing on, each batch span hangs under the request's current span (found by the handle).
  return withRequestTrace(requestTraceOf(db), () => ({
    ...createOrgLoaders(db, viewer.orgVersions, primary),
    ...createSchemaLoaders(db, viewer.orgVersions, primary),
    ...createRecordLoaders(db, viewer.orgIds),
  }));
}

/** The context of one request (GraphQL, REST or a WebSocket), built once it is authenticated. */
export function createContext(
  db: Kysely<DB>,
  viewer: Viewer,
  cursors: CursorCodec,
  requestId: string,
  readDb?: Kysely<DB>,
): Context {
  return {
    db,
    viewer,
    cursors,
    requestId,
    readDb,
    loaders: createLoaders(db, viewer),
    newLoaders: (on, primary) => createLoaders(on, viewer, primary),
  };
}
