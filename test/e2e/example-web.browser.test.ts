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
declare const window: { __sdgMap: any };
declare const OffscreenCanvas: any;
declare function createImageBitmap(b: unknown): Promise<{ width: number; height: number }>;

noteIfNoChromium('the examples/web browser test');

interface RestProject {
  id: string;
  properties: { name?: { text: string }; capacity_mw?: { number: number } };
}

const texts = (page: Page, testId: string) => page.getByTestId(testId).allTextContents();

/** Resolves when the map (window.__sdgMap, which the app exposes) has drawn everything it asked for. */
const settled = (page: Page) =>
  page.waitForFunction(
    () => {
      const map = window.__sdgMap;
      return !!map && map.loaded() && map.areTilesLoaded() && !map.isMoving();
    },
    undefined,
    { timeout: 60_000 },
  );

/** The features a layer drew, one per record (a parcel cut by tile edges comes in pieces). */
const rendered = (page: Page, layer: string) =>
  page.evaluate((layer) => {
    const byId = new Map<string, { id: string; status: unknown }>();
    for (const f of window.__sdgMap.queryRenderedFeatures({ layers: [layer] }))
      byId.set(f.properties._id, { id: f.properties._id, status: f.properties['parcel-status'] });
    return [...byId.values()];
  }, layer);

/** The map's bounds as the app sends them in its bbox filter. */
const bounds = (page: Page) =>
  page.evaluate(() => {
    const b = window.__sdgMap.getBounds();
    const r = (v: number, lim: number) => Math.round(Math.max(-lim, Math.min(lim, v)) * 1e6) / 1e6;
    return {
      west: r(b.getWest(), 180),
      south: r(b.getSouth(), 90),
      east: r(b.getEast(), 180),
      north: r(b.getNorth(), 90),
    };
  });

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

  test('the map: tiles drawn, a list that follows the bounds, a status filter on both, a parcel panel', {
    timeout: 180_000,
  }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    // Every tile and TileJSON request the map makes: its URL, its key header, its answer.
    const tileRequests: { url: string; key: string | undefined }[] = [];
    const tileAnswers: number[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${gateway.url}/tiles/`))
        tileRequests.push({ url: r.url(), key: r.headers()['x-api-key'] });
    });
    page.on('response', (r) => {
      if (r.url().startsWith(`${gateway.url}/tiles/`) && r.request().method() === 'GET')
        tileAnswers.push(r.status());
    });

    await page.goto(`${site.origin}/?gateway=${encodeURIComponent(gateway.url)}`);
    await page.getByTestId('api-key').fill(keys.alice);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByTestId('tab-map').click();
    await page.locator('[data-testid="portfolio"] option').first().waitFor({ state: 'attached' });
    const [orgId, portfolioId] = await page.evaluate(() => {
      const sel = document.querySelector('[data-testid="portfolio"] option:checked')!;
      return [sel.getAttribute('data-org')!, sel.getAttribute('value')!];
    });

    // Drawn: the parcels' fills and the projects' circles, from the gateway's vector tiles.
    await settled(page);
    await expect.poll(() => rendered(page, 'parcels-fill'), { timeout: 60_000 }).not.toEqual([]);
    await expect.poll(() => rendered(page, 'projects'), { timeout: 30_000 }).not.toEqual([]);
    expect(tileRequests.length).toBeGreaterThan(0);
    for (const r of tileRequests) expect(r.key).toBe(keys.alice);
    expect(tileRequests.some((r) => /\/parcels\/\d+\/\d+\/\d+\.mvt/.test(r.url))).toBe(true);
    expect(tileAnswers.every((s) => s === 200 || s === 304)).toBe(true);

    // The list holds the parcels in the map's bounds: the gateway's own answer for that box.
    const inBox = async (filter: object) => {
      const q = new URLSearchParams({ orgId, portfolioId, limit: '5000', filter: JSON.stringify(filter) });
      const r = await call(gateway.url, keys.alice, 'GET', `/geojson/v1/parcels?${q}`);
      expect(r.status).toBe(200);
      return r.body.features as { id: string; properties: Record<string, unknown> }[];
    };
    const countText = () => page.getByTestId('parcel-count').textContent();
    const before = await inBox({ bbox: await bounds(page) });
    expect(before.length).toBeGreaterThan(20);
    await expect.poll(countText).toMatch(new RegExp(`^${before.length} parcels? in view`));

    // Pan by dragging the map a third of its width: fewer parcels in view, and the list follows.
    const box = (await page.getByTestId('map').boundingBox())!;
    const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(cx + (i * box.width) / 30, cy, { steps: 2 });
    await page.mouse.up();
    await settled(page);
    const panned = await bounds(page);
    const after = await inBox({ bbox: panned });
    expect(after.length).toBeLessThan(before.length);
    expect(after.length).toBeGreaterThan(0);
    await expect.poll(countText).toMatch(new RegExp(`^${after.length} parcels? in view`));
    const rowIds = await page
      .getByTestId('parcel-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    const afterIds = new Set(after.map((f) => f.id));
    expect(rowIds.length).toBe(Math.min(20, after.length));
    for (const id of rowIds) expect(afterIds.has(id!)).toBe(true);

    // The legend's counts are the facets of the parcels in view.
    const status = 'negotiating';
    const expected = after.filter((f) => f.properties['parcel-status'] === status);
    expect(expected.length).toBeGreaterThan(0);
    const facet = page.locator(`[data-testid="facet"][data-value="${status}"]`);
    await expect.poll(() => facet.getByTestId('facet-count').textContent()).toBe(String(expected.length));

    // Filter by one status: the list and the drawn parcels both hold that status only.
    const drawnBefore = await rendered(page, 'parcels-fill');
    expect(new Set(drawnBefore.map((f) => f.status)).size).toBeGreaterThan(1);
    await facet.click();
    await expect.poll(countText).toMatch(new RegExp(`^${expected.length} parcels? in view`));
    const listed = await page
      .getByTestId('parcel-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    const expectedIds = new Set(expected.map((f) => f.id));
    for (const id of listed) expect(expectedIds.has(id!)).toBe(true);
    await expect
      .poll(
        async () => {
          await settled(page);
          const drawn = await rendered(page, 'parcels-fill');
          return drawn.length > 0 && drawn.every((f) => f.status === status);
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    expect(tileRequests.some((r) => r.url.includes(encodeURIComponent('"negotiating"')))).toBe(true);

    // Click a drawn parcel: the panel shows its values and its linked contacts.
    const target = await page.evaluate(() => {
      const map = window.__sdgMap;
      for (const f of map.queryRenderedFeatures({ layers: ['parcels-fill'] })) {
        const ring = f.geometry.type === 'Polygon' ? f.geometry.coordinates[0] : f.geometry.coordinates[0][0];
        const n = ring.length - 1;
        const c = [0, 1].map((k) => ring.slice(0, n).reduce((s: number, p: number[]) => s + p[k], 0) / n);
        const pt = map.project(c as [number, number]);
        const hit = map.queryRenderedFeatures([pt.x, pt.y], { layers: ['parcels-fill'] })[0];
        if (hit?.properties._id === f.properties._id)
          return { id: f.properties._id as string, apn: f.properties.apn as string, x: pt.x, y: pt.y };
      }
      return null;
    });
    expect(target).not.toBeNull();
    const canvas = (await page.locator('[data-testid="map"] canvas').boundingBox())!;
    await page.mouse.click(canvas.x + target!.x, canvas.y + target!.y);
    const panel = page.getByTestId('parcel-panel');
    await expect.poll(() => panel.getAttribute('data-id'), { timeout: 15_000 }).toBe(target!.id);
    const value = (id: string) =>
      panel.locator(`[data-testid="parcel-value"][data-property="${id}"]`).textContent();
    expect(await value('apn')).toBe(target!.apn);
    expect(await value('parcel-status')).toBe('Negotiating');
    const linked = await call(
      gateway.url,
      keys.alice,
      'GET',
      `/parcels/v1/${target!.id}/contacts?orgId=${orgId}&portfolioId=${portfolioId}&limit=100`,
    );
    expect(linked.status).toBe(200);
    const contactIds = (linked.body.items as { id: string }[]).map((c) => c.id);
    await expect
      .poll(() =>
        panel.getByTestId('parcel-contact').evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))),
      )
      .toEqual(contactIds);

    // A screenshot of the map is not blank: many pixels are not the background, in more than one colour.
    const shot = await page.getByTestId('map').screenshot();
    const pixels = await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const c = new OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = c.getContext('2d')!;
      ctx.drawImage(bitmap, 0, 0);
      const d = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
      let other = 0;
      const colours = new Set<number>();
      for (let i = 0; i < d.length; i += 4) {
        // The style's background, #f1f5f9.
        if (Math.abs(d[i] - 241) + Math.abs(d[i + 1] - 245) + Math.abs(d[i + 2] - 249) > 12) {
          other++;
          colours.add(((d[i] >> 4) << 8) | ((d[i + 1] >> 4) << 4) | (d[i + 2] >> 4));
        }
      }
      return { total: d.length / 4, other, colours: colours.size };
    }, shot.toString('base64'));
    expect(pixels.other / pixels.total).toBeGreaterThan(0.01);
    expect(pixels.colours).toBeGreaterThan(2);

    // The search box narrows the list and the tiles alike: the clicked parcel's APN finds it alone.
    await page.getByTestId('map-search').fill(target!.apn);
    await expect.poll(countText).toMatch(/^1 parcel in view/);
    expect(await page.getByTestId('parcel-row').getAttribute('data-id')).toBe(target!.id);
    await expect
      .poll(
        async () => {
          await settled(page);
          return (await rendered(page, 'parcels-fill')).map((f) => f.id);
        },
        { timeout: 30_000 },
      )
      .toEqual([target!.id]);
    expect(tileRequests.some((r) => r.url.includes(`search=${encodeURIComponent(target!.apn)}`))).toBe(true);

    expect(tileAnswers.every((s) => s === 200 || s === 304)).toBe(true);
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
