import net from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { seedDemo } from '../../src/seed/demo.js';
import { createScratchDatabase } from '../helpers/database.js';
import { client } from '../helpers/http.js';

/**
 * Database outage: the gateway reaches Postgres through a TCP proxy that the test cuts and restores
 * (cutting the shared cluster itself would break the other test files running beside this one).
 */
const pgUrl = process.env.DATABASE_URL;

class TcpProxy {
  private server?: net.Server;
  private sockets = new Set<net.Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}
  async up() {
    this.server = net.createServer((inbound) => {
      const outbound = net.connect(this.target);
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', r));
  }
  async down() {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }
}

let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
let proxy: TcpProxy;
let database: Database;

beforeAll(async () => {
  if (!pgUrl) return;
  scratch = await createScratchDatabase(pgUrl);
  const target = new URL(scratch.url);
  const free = net.createServer();
  await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
  const port = (free.address() as net.AddressInfo).port;
  await new Promise((r) => free.close(r));
  proxy = new TcpProxy(port, { host: target.hostname, port: Number(target.port || 5432) });
  await proxy.up();
  const viaProxy = new URL(scratch.url);
  viaProxy.host = `127.0.0.1:${port}`;
  database = await createDatabase({ url: viaProxy.toString(), poolSize: 4 });
  await migrateToLatest(database.db);
});
afterAll(async () => {
  await database?.close().catch(() => {});
  await scratch?.drop();
});

test.skipIf(!pgUrl)(
  'Postgres goes away: 503 with the error body, /readyz unhealthy, then recovery without a restart',
  { timeout: 60_000 },
  async () => {
    const demo = await seedDemo(database.db);
    const app = await buildApp({ database });
    try {
      const api = client(app, demo.users.alice.apiKey);
      expect((await api.get('/organizations/v1')).status).toBe(200);
      expect((await api.get('/readyz')).status).toBe(200);

      await proxy.down();
      const started = Date.now();
      for (const r of [await api.get('/organizations/v1'), await api.gql('{ organizations { id } }')]) {
        expect(r.status).toBe(503);
        const code = r.body.error?.code ?? r.body.errors?.[0]?.extensions?.code;
        expect(code).toBe('UNAVAILABLE');
        expect(r.raw).not.toMatch(/ECONNREFUSED|stack|at /);
      }
      expect((await api.get('/readyz')).status).toBe(503);
      expect(Date.now() - started).toBeLessThan(15_000);

      await proxy.up();
      let ok = 0;
      for (let i = 0; i < 20 && ok === 0; i++) {
        if ((await api.get('/organizations/v1')).status === 200) ok++;
        else await new Promise((r) => setTimeout(r, 250));
      }
      expect(ok).toBe(1);
      expect((await api.get('/readyz')).status).toBe(200);
    } finally {
      await app.close();
    }
  },
);

test.skipIf(pgUrl)('outage test needs Postgres: run with DATABASE_URL (npm run test:pg)', () => {});
