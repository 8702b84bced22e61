import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Databases on a Citus cluster (the bench's `--scaleout --citus`, and `npm run test:citus`'s test
 * databases). Citus keeps its node list per database and cannot copy a database as a template, so
 * a database is created on the coordinator and on every worker, gets the extension everywhere, and
 * registers the workers the coordinator's admin database lists; the caller then migrates it.
 */

async function withClient<T>(url: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

/** `url` with another host, port and database. */
export const nodeUrl = (url: string, host: string, port: number, db: string) => {
  const u = new URL(url);
  u.hostname = host;
  u.port = String(port);
  u.pathname = `/${db}`;
  return u.toString();
};

export interface CitusNode {
  host: string;
  port: number;
}

/** The coordinator (from the URL) and the workers its database lists. */
export async function citusNodes(
  adminUrl: string,
): Promise<{ coordinator: CitusNode; workers: CitusNode[] }> {
  const { rows } = await withClient(adminUrl, (c) =>
    c.query<CitusNode>(
      `select nodename as host, nodeport as port from pg_dist_node where groupid <> 0 and noderole = 'primary' order by nodeport`,
    ),
  );
  if (!rows.length)
    throw new Error(`no Citus workers registered in ${new URL(adminUrl).pathname} (scripts/citus/start.sh)`);
  const admin = new URL(adminUrl);
  return { coordinator: { host: admin.hostname, port: Number(admin.port || 5432) }, workers: rows };
}

/**
 * The advisory lock, in the coordinator's admin database, that createCitusDatabase holds. Two
 * `citus_add_node` calls at once (two test files creating their databases) both re-create the
 * connecting role on a worker, a shared catalog, and one fails with "tuple concurrently updated".
 */
export const CREATE_DATABASE_LOCK = 7_310_001;

/** Creates `name` on every node of the cluster with the extension and the workers registered. */
export async function createCitusDatabase(adminUrl: string, name: string): Promise<void> {
  const { coordinator, workers } = await citusNodes(adminUrl);
  const adminDb = new URL(adminUrl).pathname.slice(1) || 'postgres';
  // One creation at a time on the cluster; the lock goes with the session if this process dies.
  await withClient(adminUrl, async (lock) => {
    await lock.query('select pg_advisory_lock($1)', [CREATE_DATABASE_LOCK]);
    for (const n of [coordinator, ...workers])
      await withClient(nodeUrl(adminUrl, n.host, n.port, adminDb), (c) => c.query(`create database ${name}`));
    for (const w of workers)
      await withClient(nodeUrl(adminUrl, w.host, w.port, name), (c) => c.query('create extension citus'));
    await withClient(nodeUrl(adminUrl, coordinator.host, coordinator.port, name), async (c) => {
      await c.query('create extension citus');
      await c.query('select citus_set_coordinator_host($1, $2)', [coordinator.host, coordinator.port]);
      for (const w of workers) await c.query('select citus_add_node($1, $2)', [w.host, w.port]);
    });
  });
}

/** Drops `name` on every node of the cluster. */
export async function dropCitusDatabase(adminUrl: string, name: string): Promise<void> {
  const { coordinator, workers } = await citusNodes(adminUrl);
  const adminDb = new URL(adminUrl).pathname.slice(1) || 'postgres';
  for (const n of [coordinator, ...workers])
    await withClient(nodeUrl(adminUrl, n.host, n.port, adminDb), (c) =>
      c.query(`drop database if exists ${name} with (force)`),
    );
}

/** Whether the server's admin database has the citus extension (scripts/citus/start.sh creates it). */
export async function isCitus(adminUrl: string): Promise<boolean> {
  return withClient(adminUrl, async (c) => {
    const { rowCount } = await c.query(`select 1 from pg_extension where extname = 'citus'`);
    return !!rowCount;
  });
}

/**
 * The postmaster pid of the PostgreSQL instance a URL reaches (this machine only: it reads the data
 * directory's postmaster.pid), so its processes' CPU can be told from other instances'.
 */
export async function postmasterPid(url: string): Promise<number> {
  const dir = await withClient(
    url,
    async (c) => (await c.query<{ d: string }>("select current_setting('data_directory') as d")).rows[0].d,
  );
  return Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}
