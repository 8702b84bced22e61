/**
 * PostGraphile 5 as the bench's peer (`npm run bench -- --peers`), run by bench/peers' own Node 22.
 *
 * The Amber preset in production mode, without PgIndexBehaviorsPlugin: that plugin hides a relation
 * unless some index of the referencing table holds all of its foreign-key columns, and the link
 * tables' foreign keys are (org_id, portfolio_id, <record>_id) while their indexes are
 * (org_id, <record>_id, linked_at, <other>_id), so project → project_contacts and contact →
 * parcel_contacts would be missing. Dropping the plugin is what PostGraphile 4's default
 * (ignoreIndexes) did, and what PGL_IGNORE_INDEXES=1 stood for in the first comparison.
 *
 * Environment: PORT, HOST, DATABASE_URL; PGAPPNAME names its Postgres backends (the bench reads
 * their CPU time). GET /healthz answers when the schema is built; GET /stats gives the statements
 * sent so far, so the bench can count them per request.
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

const stats = { statements: 0 };
// pg's default pool size, as the gateway and the raw floor use.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
pool.on('error', () => {});
pool.on('connect', (client) => {
  const query = client.query;
  client.query = function (...args) {
    stats.statements++;
    return query.apply(this, args);
  };
});

const preset = {
  extends: [PostGraphileAmberPreset],
  disablePlugins: ['PgIndexBehaviorsPlugin'],
  pgServices: [makePgService({ pool, schemas: ['public'] })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
// createHandler rather than addTo: this server needs no websockets, and /healthz and /stats go first.
const handler = serv.createHandler();
await pgl.getSchema();

const server = createServer((req, res) => {
  if (req.method === 'GET' && (req.url === '/healthz' || req.url === '/stats')) {
    const body = JSON.stringify(req.url === '/stats' ? stats : { status: 'ok' });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    return;
  }
  handler(req, res);
});
server.keepAliveTimeout = 72_000;
const port = Number(process.env.PORT ?? 4200);
const host = process.env.HOST ?? '127.0.0.1';
server.listen(port, host, () =>
  process.stdout.write(`postgraphile ${process.version} listening on http://${host}:${port}\n`),
);

const stop = () => {
  server.close();
  server.closeAllConnections();
  pgl
    .release()
    .then(() => pool.end())
    .finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
