import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.js';
import { Metrics } from '../../src/observability/metrics.js';
import { startMetricsServer } from '../../src/observability/metrics-server.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { HAS_CHROMIUM, launchChromium } from '../helpers/browser.js';
import { seededDatabase } from '../helpers/database.js';
import { client } from '../helpers/http.js';
import { evaluate, parseScrape, renderDashboard } from './dashboard-render.js';

/**
 * The Grafana dashboard (docs/grafana-dashboard.json) against a real scrape: every metric it queries
 * exists, and a static render of its panels from two scrapes around real traffic is screenshotted
 * in Debian's chromium (docs/dashboard.png with UPDATE_SCREENSHOTS=1).
 */
const DASHBOARD = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'docs/grafana-dashboard.json'), 'utf8'));
const SCREENSHOT = join(PACKAGE_ROOT, 'test-results/dashboard.png');

const seeded = seededDatabase();
const metrics = new Metrics();
metrics.collectProcessMetrics();
let app: Awaited<ReturnType<typeof buildApp>>;
let server: Awaited<ReturnType<typeof startMetricsServer>>;
let before = '';
let after = '';
let seconds = 0;

const scrape = async () =>
  (await fetch(server.url, { headers: { authorization: 'Bearer t0ken-for-test' } })).text();

beforeAll(async () => {
  app = await buildApp({
    database: seeded.database,
    metrics,
    admission: { slots: 1, maxWaitMs: 10_000 },
    rateLimit: {
      store: new MemoryRateLimitStore(),
      config: { perSecond: 1000, burst: 1000, address: { perSecond: 0.01, burst: 8 } },
    },
  });
  server = await startMetricsServer(metrics, { port: 0, token: 't0ken-for-test' });
  before = await scrape();
  const started = performance.now();
  const { A } = seeded.demo.orgs;
  const alice = client(app, seeded.demo.users.alice.apiKey);
  const page = { orgId: A.id, portfolioId: A.portfolios.A1 };
  for (let i = 0; i < 6; i++) {
    await alice.get('/organizations/v1');
    await alice.get('/projects/v1', { ...page, limit: 20 });
    await alice.gql('query Portfolios { organizations { portfolios { name } } }');
    await alice.gql(
      `query Nested($pf: ID!) { node(id: $pf) { ... on Portfolio { projects(first: 10) { edges { node { id contacts(first: 3) { totalCount } } } } } } }`,
      { pf: A.portfolios.A1 },
    );
  }
  await alice.get('/contacts/v1', { ...page, limit: 2000 });
  await alice.get('/projects/v1', { ...page, limit: 0 });
  await alice.gql('{ nope }');
  await alice.gql('query Missing { node(id: "prj_doesnotexist00000000000") { id } }');
  // Junk keys come out of the address budget: the last ones are refused.
  for (let i = 0; i < 8; i++)
    await client(app, `sdg_junk${String(i).padStart(40, '0')}`).get('/organizations/v1');
  await new Promise((r) => setTimeout(r, 200));
  after = await scrape();
  seconds = (performance.now() - started) / 1000;
});
afterAll(async () => {
  await server?.close();
  await app?.close();
});

test('every metric the dashboard queries is in a real scrape, and every panel has samples', () => {
  const names = new Set(parseScrape(after).map((s) => s.name));
  for (const p of DASHBOARD.panels)
    for (const t of p.targets)
      for (const m of t.expr.matchAll(/\b((?:sdg|nodejs|process)_\w+)/g))
        expect(names, `${p.title}: ${m[1]}`).toContain(m[1]);
  for (const p of DASHBOARD.panels) {
    const series = p.targets.flatMap((t: { expr: string }) => [
      ...evaluate(t.expr, parseScrape(before), parseScrape(after), seconds).values(),
    ]);
    expect(series.length, p.title).toBeGreaterThan(0);
  }
  const req = evaluate(
    'sum by (transport, operation) (rate(sdg_http_requests_total[1m]))',
    parseScrape(before),
    parseScrape(after),
    seconds,
  );
  const ops = [...req.values()].map((s) => s.labels.operation);
  expect(ops).toEqual(expect.arrayContaining(['listOrganizations', 'listProjects', 'Portfolios', 'Nested']));
  const refused = evaluate(
    'sum by (scope) (rate(sdg_rate_limit_refusals_total[1m]))',
    parseScrape(before),
    parseScrape(after),
    seconds,
  );
  expect([...refused.values()][0].value).toBeGreaterThan(0);
});

test.skipIf(!HAS_CHROMIUM)('a static render of the dashboard, screenshotted in chromium', async () => {
  const html = renderDashboard(DASHBOARD, before, after, seconds);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.setContent(html);
    expect(await page.locator('section').count()).toBe(DASHBOARD.panels.length);
    expect(await page.locator('.none').count()).toBe(0);
    mkdirSync(join(PACKAGE_ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1')
      copyFileSync(SCREENSHOT, join(PACKAGE_ROOT, 'docs/dashboard.png'));
  } finally {
    await browser.close();
  }
});
