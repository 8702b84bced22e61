import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HAS_CHROMIUM, launchChromium, noteIfNoChromium } from '../helpers/browser.js';
import { buildExampleWeb, EXAMPLE_MANIFEST, serveExampleWeb } from '../helpers/example-web.js';
import { call, type ServerProcess, type ServerStorage, serverStorage } from '../helpers/server-process.js';

/**
 * examples/web as a front-end developer runs it: the built app served from one origin, the gateway
 * (its own process, GRAPHQL_TRUSTED_DOCUMENTS = the app's manifest, CORS_ORIGINS = the app's origin)
 * on another, and Debian's chromium in between. List, filter, sort, page, edit, a validation error
 * inline, REST from the same page; then a gateway allowing another origin, which the browser blocks.
 */
// Used only inside page.evaluate() callbacks, which run in the browser; the project's lib has no DOM.
declare const document: { querySelector(s: string): { getAttribute(n: string): string | null } | null };

noteIfNoChromium('the examples/web browser test');

interface RestProject {
  id: string;
  properties: { name?: { text: string }; capacity_mw?: { number: number } };
}

const texts = (page: Page, testId: string) => page.getByTestId(testId).allTextContents();

describe.skipIf(!HAS_CHROMIUM)('examples/web in headless Chromium, from another origin', () => {
  let storage: ServerStorage;
  let site: Awaited<ReturnType<typeof serveExampleWeb>>;
  let gateway: ServerProcess;
  let keys: Record<string, string>;
  let browser: Browser;

  beforeAll(async () => {
    buildExampleWeb();
    site = await serveExampleWeb();
    storage = await serverStorage();
    gateway = await storage.start({
      GRAPHQL_TRUSTED_DOCUMENTS: EXAMPLE_MANIFEST,
      CORS_ORIGINS: site.origin,
    });
    keys = gateway.keys;
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    gateway?.child.kill();
    await gateway?.exited;
    await site?.close();
    await storage?.cleanup();
  });

  test('list, page, filter, sort and edit through trusted documents; REST from the same page', {
    timeout: 180_000,
  }, async () => {
    expect(new URL(site.origin).origin).not.toBe(new URL(gateway.url).origin);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    const graphqlBodies: any[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url() === `${gateway.url}/graphql`) graphqlBodies.push(r.postDataJSON());
    });

    await page.goto(`${site.origin}/?gateway=${encodeURIComponent(gateway.url)}`);
    await page.getByTestId('api-key').fill(keys.alice);
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect.poll(() => texts(page, 'name'), { timeout: 30_000 }).toHaveLength(10);

    // The same portfolio through REST (from the test, not the browser): the truth to compare with.
    const [orgId, portfolioId] = await page.evaluate(() => {
      const sel = document.querySelector('[data-testid="portfolio"] option:checked')!;
      return [sel.getAttribute('data-org')!, sel.getAttribute('value')!];
    });
    const rest = await call(
      gateway.url,
      keys.alice,
      'GET',
      `/projects/v1?orgId=${orgId}&portfolioId=${portfolioId}&limit=5000`,
    );
    expect(rest.status).toBe(200);
    const all: RestProject[] = rest.body.items;
    const names = all.map((p) => p.properties.name!.text);
    expect(all.length).toBeGreaterThan(20);

    // The first page, oldest first, and the total.
    expect(await texts(page, 'name')).toEqual(names.slice(0, 10));
    expect(await page.getByTestId('count').textContent()).toBe(`Showing 10 of ${all.length}`);

    // Load more: relayPagination appends the next page to the same list.
    await page.getByTestId('more').click();
    await expect.poll(() => texts(page, 'name')).toEqual(names.slice(0, 20));

    // Filter by name (case-insensitive contains): every match, and only matches.
    const needle = names[0].split(' ')[0].toLowerCase();
    const matching = names.filter((n) => n.toLowerCase().includes(needle));
    await page.getByTestId('filter').fill(needle);
    await expect
      .poll(() => page.getByTestId('count').textContent())
      .toBe(`Showing ${Math.min(10, matching.length)} of ${matching.length}`);
    expect(await texts(page, 'name')).toEqual(matching.slice(0, 10));

    // Sort by capacity, largest first, with the filter still on.
    await page.getByTestId('order').selectOption('Largest capacity');
    const byCapacity = all
      .filter((p) => p.properties.name!.text.toLowerCase().includes(needle))
      .map((p) => p.properties.capacity_mw!.number)
      .sort((a, b) => b - a)
      .slice(0, 10);
    await expect.poll(async () => (await texts(page, 'capacity')).map(Number)).toEqual(byCapacity);

    // Edit: rename the first project shown, and the list shows the stored name.
    await page.getByTestId('filter').fill('');
    await page.getByTestId('order').selectOption('Oldest first');
    // Back to the unfiltered list: both pages loaded earlier come from the cache, merged.
    await expect.poll(() => texts(page, 'name')).toEqual(names.slice(0, 20));
    const first = page.getByTestId('project').first();
    await first.getByTestId('edit').click();
    await first.getByTestId('name-input').fill('Renamed in a browser');
    await first.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => first.getByTestId('name').textContent()).toBe('Renamed in a browser');

    // A validation error is data (userErrors), shown next to the field; nothing is written.
    await first.getByTestId('edit').click();
    await first.getByTestId('name-input').fill('');
    await first.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => first.getByTestId('user-error').textContent()).toMatch(/^REQUIRED: /);

    // REST from the page itself: a cross-origin GET with X-API-Key (a preflighted request), whose
    // exposed x-request-id the page can read. The stored name is the renamed one.
    const fromPage = await page.evaluate(
      async ({ url, key }) => {
        const r = await fetch(url, { headers: { 'X-API-Key': key } });
        const body = (await r.json()) as any;
        return {
          status: r.status,
          requestId: r.headers.get('x-request-id'),
          name: body.items[0].properties.name.text,
        };
      },
      {
        url: `${gateway.url}/projects/v1?orgId=${orgId}&portfolioId=${portfolioId}&limit=1&_=${Date.now()}`,
        key: keys.alice,
      },
    );
    expect(fromPage).toEqual({ status: 200, requestId: expect.any(String), name: 'Renamed in a browser' });

    // Trusted documents: every GraphQL request named a manifest hash and carried no document text.
    expect(graphqlBodies.length).toBeGreaterThanOrEqual(6);
    for (const b of graphqlBodies) {
      expect(b.query).toBeUndefined();
      expect(b.extensions.persistedQuery.sha256Hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
    expect(graphqlBodies.some((b) => b.operationName === 'RenameProject')).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a gateway that allows only another origin is blocked by the browser', {
    timeout: 180_000,
  }, async () => {
    gateway.child.kill();
    await gateway.exited;
    // The same database, now allowing only some other site.
    gateway = await storage.start({
      GRAPHQL_TRUSTED_DOCUMENTS: EXAMPLE_MANIFEST,
      CORS_ORIGINS: 'https://maps.example.com',
    });
    const page = await browser.newPage();
    await page.goto(`${site.origin}/?gateway=${encodeURIComponent(gateway.url)}`);
    await page.getByTestId('api-key').fill(keys.alice);
    await page.getByRole('button', { name: 'Use key' }).click();
    // urql reports the browser's refusal as a network error; no project is listed.
    await expect
      .poll(() => page.getByRole('alert').first().textContent(), { timeout: 30_000 })
      .toMatch(/Network/);
    expect(await texts(page, 'name')).toEqual([]);
    const blocked = await page.evaluate(async (url) => {
      try {
        await fetch(url, { headers: { 'X-API-Key': 'sdg_any' } });
        return 'answered';
      } catch (e) {
        return (e as Error).name;
      }
    }, `${gateway.url}/organizations/v1`);
    expect(blocked).toBe('TypeError');
    // The gateway itself is up and answers callers that are not browsers.
    const direct = await call(gateway.url, keys.alice, 'GET', '/organizations/v1');
    expect(direct.status).toBe(200);
    await page.close();
  });
});
