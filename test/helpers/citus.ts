import pg from 'pg';

/**
 * Test databases on a Citus cluster (`npm run test:citus`, SDG_CITUS=1). Citus keeps its node list
 * per database and cannot copy a database as a template, so each scratch database is created on the
 * coordinator and on every worker, gets the extension everywhere, and registers the workers the
 * coordinator's admin database lists; the test file then migrates (and seeds) it itself.
 */
export const onCitus = process.env.SDG_CITUS === '1';

async function withClient<T>(url: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

const at = (url: string, host: string, port: number, db: string) => {
  const u = new URL(url);
  u.hostname = host;
  u.port = String(port);
  u.pathname = `/${db}`;
  return u.toString();
};

async function workersOf(adminUrl: string): Promise<{ host: string; port: number }[]> {
  const { rows } = await withClient(adminUrl, (c) =>
    c.query<{ host: string; port: number }>(
      `select nodename as host, nodeport as port from pg_dist_node where groupid <> 0 and noderole = 'primary' order by nodeport`,
    ),
  );
  if (!rows.length)
    throw new Error(`no Citus workers registered in ${new URL(adminUrl).pathname} (scripts/citus/start.sh)`);
  return rows;
}

export async function createCitusDatabase(adminUrl: string, name: string): Promise<() => Promise<void>> {
  const workers = await workersOf(adminUrl);
  const admin = new URL(adminUrl);
  const coordinator = { host: admin.hostname, port: Number(admin.port || 5432) };
  const adminDb = admin.pathname.slice(1) || 'postgres';
  const nodes = [coordinator, ...workers];
  for (const n of nodes)
    await withClient(at(adminUrl, n.host, n.port, adminDb), (c) => c.query(`create database ${name}`));
  for (const w of workers)
    await withClient(at(adminUrl, w.host, w.port, name), (c) => c.query('create extension citus'));
  await withClient(at(adminUrl, coordinator.host, coordinator.port, name), async (c) => {
    await c.query('create extension citus');
    await c.query('select citus_set_coordinator_host($1, $2)', [coordinator.host, coordinator.port]);
    for (const w of workers) await c.query('select citus_add_node($1, $2)', [w.host, w.port]);
  });
  return async () => {
    for (const n of nodes)
      await withClient(at(adminUrl, n.host, n.port, adminDb), (c) =>
        c.query(`drop database if exists ${name} with (force)`),
      );
  };
}
