import { afterAll, beforeAll, expect, test } from 'vitest';
import { onCitus } from '../helpers/citus.js';
import { backend } from '../helpers/database.js';
import { startReceiver, until } from '../helpers/receiver.js';
import { call, type ServerProcess, type ServerStorage, serverStorage } from '../helpers/server-process.js';

/**
 * SIGKILL during webhook delivery: the receiver holds the first requests open, the gateway is
 * killed while they are in flight, and after a restart on the same data every change is delivered
 * (acknowledged with a 2xx), each with the idempotency id it had before the kill.
 */
let storage: ServerStorage;
beforeAll(async () => {
  storage = await serverStorage();
});
afterAll(async () => storage?.cleanup());

const HOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
  WEBHOOK_TIMEOUT_MS: '1500',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_RETRY_MAX_MS: '200',
};

test(`SIGKILL mid-delivery loses no webhook: pending deliveries go out after restart (${backend})`, {
  timeout: onCitus ? 600_000 : 180_000,
}, async () => {
  let answering = false;
  const rx = await startReceiver(() => (answering ? 200 : 'hang'));
  let server: ServerProcess = await storage.start(HOOK_ENV);
  try {
    const key = server.keys.alice;
    const [org] = (await call(server.url, key, 'GET', '/organizations/v1')).body;
    const [pf] = (await call(server.url, key, 'GET', `/portfolios/v1?orgId=${org.id}`)).body;
    const q = `?orgId=${org.id}&portfolioId=${pf.id}`;
    const made = await call(server.url, key, 'POST', '/graphql', {
      query: `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`,
      variables: {
        input: { organizationId: org.id, url: rx.url, events: ['project.created', 'project.updated'] },
      },
    });
    expect(made.body.errors).toBeUndefined();

    // Six acknowledged writes: one create, five updates.
    const created = await call(server.url, key, 'POST', `/projects/v1${q}`, {
      properties: { name: { text: 'hooked' } },
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    for (let n = 1; n <= 5; n++)
      expect(
        (
          await call(server.url, key, 'PUT', `/projects/v1/${id}${q}`, {
            properties: { capacity_mw: { number: n } },
          })
        ).status,
      ).toBe(200);

    // Kill while deliveries are in flight (held open by the receiver).
    await until(() => rx.got.length >= 1, 30_000, 'a delivery in flight');
    server.child.kill('SIGKILL');
    await server.exited;
    const inFlightIds = new Set(rx.got.map((r) => String(r.headers['sdg-delivery-id'])));
    expect(rx.acked()).toHaveLength(0);

    answering = true;
    server = await storage.start(HOOK_ENV);
    const positions = () => new Set(rx.acked().map((r) => JSON.parse(r.body).data.position));
    await until(() => positions().size >= 6, 60_000, 'all six changes delivered after the restart');
    const bodies = rx.acked().map((r) => JSON.parse(r.body));
    expect(bodies.filter((b) => b.type === 'project.created')).toHaveLength(1);
    expect(
      new Set(
        bodies
          .filter((b) => b.type === 'project.updated')
          .map((b) => b.data.changes.capacity_mw.after.number),
      ),
    ).toEqual(new Set([1, 2, 3, 4, 5]));
    // A delivery in flight at the kill went out again under the same idempotency id.
    const ackedIds = new Set(rx.acked().map((r) => String(r.headers['sdg-delivery-id'])));
    for (const d of inFlightIds) expect(ackedIds.has(d), d).toBe(true);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await rx.close();
  }
});
