import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { AppError } from '../src/errors.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';
import { logSink } from './helpers/logs.js';
import { NESTED_QUERY } from './helpers/queries.js';

/**
 * A fault of the plan itself (a bug in src/graphql/plan, which no request can cause on purpose) is
 * simulated by making runPlan throw once. The executor must still answer, and the fault must show:
 * a warn access line with `planError` and a counter. A plan that declines (NotPlanned) stays quiet.
 */
const fault = vi.hoisted(() => ({ next: undefined as Error | undefined }));
vi.mock(import('../src/graphql/plan/run.js'), async (original) => {
  const real = await original();
  return {
    ...real,
    runPlan: (...args: Parameters<typeof real.runPlan>) => {
      const err = fault.next;
      fault.next = undefined;
      if (err) throw err;
      return real.runPlan(...args);
    },
  };
});
const { NotPlanned } = await import('../src/graphql/plan/run.js');

const seeded = seededDatabase();
const log = logSink('info');
let app: Awaited<ReturnType<typeof buildApp>>;
beforeAll(async () => {
  app = await buildApp({ database: seeded.database, logger: log.logger });
});
afterAll(() => app?.close());

const vars = () => ({
  orgId: seeded.demo.orgs.A.id,
  portfolioId: seeded.demo.orgs.A.portfolios.A1,
  projects: 3,
  contacts: 2,
  parcels: 2,
});

/** The nested query once, with `err` thrown by the plan; its answer and its access line. */
async function nested(err?: Error) {
  fault.next = err;
  const before = log.lines.length;
  const r = await client(app, seeded.demo.users.alice.apiKey).gql(NESTED_QUERY, vars());
  const line = log.lines.slice(before).find((l) => l.operation === 'Nested');
  return { r, line };
}

const failures = async () => (await app.metrics.planFailures.get()).values[0]?.value ?? 0;

test('a plan that fails unexpectedly is answered by the executor, and the failure is logged and counted', async () => {
  const planned = await nested();
  expect(planned.line).toMatchObject({ planned: true, level: 30 });
  const start = await failures();

  const failed = await nested(new TypeError("Cannot read properties of undefined (reading 'id')"));
  expect(failed.r.status).toBe(200);
  expect(failed.r.raw).toBe(planned.r.raw);
  expect(failed.line).toMatchObject({
    level: 40,
    msg: 'request answered by the executor after its plan failed',
    status: 200,
    planError: "TypeError: Cannot read properties of undefined (reading 'id')",
  });
  expect(failed.line?.planned).toBeUndefined();
  expect(await failures()).toBe(start + 1);
});

test('a plan that declines the request (NotPlanned) or meets a refusal stays quiet', async () => {
  const start = await failures();
  for (const err of [new NotPlanned('a null leaf'), new AppError('BAD_REQUEST', 'first: at most 500')]) {
    const { r, line } = await nested(err);
    expect(r.status).toBe(200);
    expect(line).toMatchObject({ level: 30, msg: 'request' });
    // The plan did throw (it would otherwise have answered, marked planned), and said nothing.
    expect(line?.planned).toBeUndefined();
    expect(line?.planError).toBeUndefined();
  }
  expect(await failures()).toBe(start);
});
