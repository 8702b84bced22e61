import { copyFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildGraphiQL } from '../../scripts/build-graphiql.mjs';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { API_KEY_STORAGE } from '../../src/graphiql/example.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import type { DemoOutput } from '../../src/seed/demo.js';
import { HAS_CHROMIUM, launchChromium, noteIfNoChromium } from '../helpers/browser.js';
import { openSeededDatabase } from '../helpers/database.js';

/**
 * GraphiQL as a person uses it: Debian's chromium opens /graphql, lands on GraphiQL, the demo key is
 * pasted into the key bar, the example query runs, and real data shows in the result pane. Every
 * request the page makes must go to the server under test: nothing from a CDN.
 */
// Used only inside page.evaluate()/waitForFunction() callbacks, which run in the browser; the
// project's TypeScript lib has no DOM.
declare const document: { querySelector(s: string): { textContent: string | null } | null };
declare const localStorage: { getItem(k: string): string | null };

noteIfNoChromium('the GraphiQL browser test');
const SCREENSHOT = join(PACKAGE_ROOT, 'test-results/graphiql.png');
const README_SCREENSHOT = join(PACKAGE_ROOT, 'docs/graphiql.png');
const PREFIX = '/tools/solar-data';

/** Monaco renders spaces as non-breaking spaces; compare text as a person reads it. */
const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).first().textContent()) ?? '').replace(/\u00a0/g, ' ');

interface Watch {
  urls: string[];
  problems: string[];
  graphqlKeys: (string | undefined)[];
}

/** Records every request, page error and console error of a page. */
function watch(page: Page): Watch {
  const w: Watch = { urls: [], problems: [], graphqlKeys: [] };
  page.on('request', (r) => {
    w.urls.push(r.url());
    if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/graphql'))
      w.graphqlKeys.push(r.headers()['x-api-key']);
  });
  page.on('pageerror', (e) => w.problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') w.problems.push(`console: ${m.text()}`);
  });
  return w;
}

/** Pastes the key into the key bar, saves it, and waits until GraphiQL has read the schema with it. */
async function enterKey(page: Page, key: string) {
  const introspected = page.waitForResponse(
    (r) =>
      r.url().endsWith('/graphql') &&
      (r.request().postData() ?? '').includes('__schema') &&
      r.status() === 200,
  );
  await page.locator('#sdg-api-key').fill(key);
  await page.locator('#sdg-save-key').click();
  await introspected;
}

/** Runs the query in the editor with the ▶ button; returns the server's JSON for it. */
async function runExample(page: Page) {
  await page.waitForFunction(() =>
    document.querySelector('.graphiql-query-editor')?.textContent?.includes('Example'),
  );
  const answered = page.waitForResponse(
    (r) =>
      r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('"operationName":"Example"'),
  );
  await page.locator('.graphiql-execute-button').click();
  const res = await answered;
  expect(res.status()).toBe(200);
  return res.json();
}

describe.skipIf(!HAS_CHROMIUM)('GraphiQL in headless Chromium', () => {
  let database: Database;
  let demo: DemoOutput;
  let app: FastifyInstance;
  let base: string;
  let proxy: http.Server;
  let proxied: string;
  let browser: Browser;

  beforeAll(async () => {
    await buildGraphiQL();
    ({ database, demo } = await openSeededDatabase());
    app = await buildApp({ database });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    // A reverse proxy that mounts the server under PREFIX, as a gateway in front of it would.
    proxy = http.createServer((req, res) => {
      if (!req.url?.startsWith(`${PREFIX}/`)) {
        res.writeHead(404).end();
        return;
      }
      const upstream = http.request(
        {
          host: '127.0.0.1',
          port,
          method: req.method,
          path: req.url.slice(PREFIX.length),
          headers: req.headers,
        },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${PREFIX}`;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => proxy?.close(resolve));
    await app?.close();
    await database?.close();
  });

  test('open /graphql, paste the demo key, run the example: real data, and no request leaves the server', {
    timeout: 180_000,
  }, async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const w = watch(page);
    const key = demo.users.alice.apiKey;

    // A browser opening the GraphQL endpoint is sent to GraphiQL.
    await page.goto(`${base}/graphql`);
    expect(page.url()).toBe(`${base}/graphiql`);
    await expect.poll(() => text(page, '[data-testid="key-status"]')).toMatch(/No key yet/);

    await enterKey(page, key);
    // The key lives in local storage, never in the URL.
    expect(await page.evaluate((k) => localStorage.getItem(k), API_KEY_STORAGE)).toBe(key);
    expect(page.url()).toBe(`${base}/graphiql`);
    await expect.poll(() => text(page, '[data-testid="key-status"]')).toContain(`…${key.slice(-4)}`);

    const result = await runExample(page);
    expect(result.errors).toBeUndefined();
    const org = result.data.organizations[0];
    expect(org.name).toBe('Sunfield Energy');
    const project = org.portfolios[0].projects.nodes[0];
    expect(project.values.length).toBeGreaterThan(0);
    expect(project.contacts.nodes.length).toBeGreaterThan(0);

    // The result pane shows that data.
    await expect
      .poll(() => text(page, '.graphiql-response'), { timeout: 15_000 })
      .toContain('"Sunfield Energy"');
    const pane = await text(page, '.graphiql-response');
    expect(pane).toContain(`"${org.id}"`);
    expect(pane).toContain(`"${project.id}"`);
    expect(pane).toContain(project.values[0].text ?? project.values[0].propertyId);

    mkdirSync(join(PACKAGE_ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    // The README shows this very screenshot; refresh it with UPDATE_SCREENSHOTS=1 (ids differ per run).
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(join(PACKAGE_ROOT, 'docs'), { recursive: true });
      copyFileSync(SCREENSHOT, README_SCREENSHOT);
    }

    // The documentation explorer works from the schema read with the key.
    await page.locator('button[aria-label="Show Documentation Explorer"]').click();
    await expect.poll(() => text(page, '.graphiql-doc-explorer')).toMatch(/Query[\s\S]*Mutation/);
    await page
      .locator('.graphiql-doc-explorer a', { hasText: /^Query$/ })
      .first()
      .click();
    await expect.poll(() => text(page, '.graphiql-doc-explorer')).toContain('organizations');

    // So does autocompletion: type a field prefix and ask for suggestions.
    await page.locator('.graphiql-query-editor .view-lines').first().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('{ organi');
    await page.keyboard.press('Control+Space');
    await expect.poll(() => text(page, '.suggest-widget'), { timeout: 15_000 }).toContain('organizations');

    // The key survives a reload, and Forget removes it.
    await page.reload();
    await expect.poll(() => text(page, '[data-testid="key-status"]')).toContain(`…${key.slice(-4)}`);
    await page.locator('#sdg-forget-key').click();
    expect(await page.evaluate((k) => localStorage.getItem(k), API_KEY_STORAGE)).toBeNull();

    // Every request went to the server under test, and none carried the key in its URL.
    const origin = new URL(base).origin;
    const elsewhere = w.urls.filter(
      (u) => !u.startsWith('data:') && !u.startsWith('blob:') && new URL(u).origin !== origin,
    );
    expect(elsewhere).toEqual([]);
    expect(w.urls.filter((u) => u.includes(key))).toEqual([]);
    expect(w.urls.some((u) => u.endsWith('/graphiql/graphql.worker.js'))).toBe(true);
    // The GraphQL calls carried the key in the header.
    expect(w.graphqlKeys.length).toBeGreaterThan(1);
    expect(w.graphqlKeys.every((k) => k === key)).toBe(true);
    expect(w.problems).toEqual([]);
    await context.close();
  });

  test('works the same under a path prefix (behind a reverse proxy)', { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const w = watch(page);
    await page.goto(`${proxied}/graphql`);
    expect(page.url()).toBe(`${proxied}/graphiql`);
    await enterKey(page, demo.users.nora.apiKey);
    const result = await runExample(page);
    expect(result.data.organizations.map((o: { name: string }) => o.name)).toEqual(['Northwind Renewables']);
    await expect
      .poll(() => text(page, '.graphiql-response'), { timeout: 15_000 })
      .toContain('"Northwind Renewables"');
    // Every asset, worker and API call went through the prefix.
    expect(w.urls.filter((u) => !u.startsWith(`${proxied}/`))).toEqual([]);
    expect(w.problems).toEqual([]);

    // The REST reference next to it loads the OpenAPI document through the prefix too.
    await page.goto(`${proxied}/docs`);
    await expect
      .poll(() => text(page, '#swagger-ui'), { timeout: 15_000 })
      .toContain('Solar Project Data Service');
    await expect.poll(() => text(page, '#swagger-ui')).toContain('/projects/v1');
    // "Try it out" sends the key and reaches the API through the prefix (the document's server is relative).
    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input').first().fill(demo.users.nora.apiKey);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();
    const op = page.locator('#operations-Organizations-listOrganizations');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    const answered = page.waitForResponse((r) => r.url() === `${proxied}/organizations/v1`);
    await op.locator('button.execute').click();
    expect((await answered).status()).toBe(200);
    await expect
      .poll(() => text(page, '#operations-Organizations-listOrganizations .responses-wrapper'))
      .toContain('Northwind Renewables');
    expect(w.urls.filter((u) => !u.startsWith(`${proxied}/`) && !u.startsWith('data:'))).toEqual([]);
    expect(w.problems).toEqual([]);
    await context.close();
  });
});
