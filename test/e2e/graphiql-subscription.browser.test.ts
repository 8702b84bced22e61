import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildGraphiQL } from '../../scripts/build-graphiql.mjs';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import type { DemoOutput } from '../../src/seed/demo.js';
import { HAS_CHROMIUM, launchChromium } from '../helpers/browser.js';
import { openSeededDatabase } from '../helpers/database.js';
import { client } from '../helpers/http.js';

/**
 * A subscription run from GraphiQL in Debian's chromium: the page opens a graphql-ws socket on the
 * same path with the saved key, and a write made elsewhere shows up in the result pane.
 */
declare const document: { querySelector(s: string): { textContent: string | null } | null };
declare const localStorage: { getItem(k: string): string | null };

const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).first().textContent()) ?? '').replace(/\u00a0/g, ' ');

describe.skipIf(!HAS_CHROMIUM)('GraphiQL runs a subscription', () => {
  let database: Database;
  let demo: DemoOutput;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    await buildGraphiQL();
    ({ database, demo } = await openSeededDatabase());
    app = await buildApp({ database });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await database?.close();
  });

  test('recordChanged over WebSocket: a write shows up in the result pane', {
    timeout: 180_000,
  }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const sockets: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('websocket', (ws) => sockets.push(ws.url()));
    const alice = client(app, demo.users.alice.apiKey);
    const q = { orgId: demo.orgs.A.id, portfolioId: demo.orgs.A.portfolios.A1 };
    const projectId = (await alice.get('/projects/v1', { ...q, limit: 1 })).body.items[0].id as string;

    await page.goto(`${base}/graphiql`);
    const introspected = page.waitForResponse(
      (r) => r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('__schema'),
    );
    await page.locator('#sdg-api-key').fill(demo.users.alice.apiKey);
    await page.locator('#sdg-save-key').click();
    await introspected;

    // Replace the editor's query with a subscription (inserted as text: typing would auto-close brackets).
    const subscription = `subscription Live { recordChanged(portfolioId: "${q.portfolioId}", kinds: [PROJECT]) { operation recordId properties { propertyId stored } } }`;
    await page.waitForFunction(() =>
      document.querySelector('.graphiql-query-editor')?.textContent?.includes('Example'),
    );
    await page.locator('.graphiql-query-editor .view-lines').first().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(subscription);
    await expect.poll(() => text(page, '.graphiql-query-editor')).toContain('subscription Live');
    // GraphiQL takes the editor's text into its state after a debounce (and then saves it): a click
    // before that runs the previous query over HTTP, and no socket ever opens.
    await page.waitForFunction(() =>
      (localStorage.getItem('graphiql:query') ?? '').includes('subscription Live'),
    );
    await page.locator('.graphiql-execute-button').click();

    // The socket is open on the same path; the subscription is live once a write's event arrives.
    await expect
      .poll(() => sockets.length, { timeout: 15_000 })
      .toBeGreaterThan(0)
      .catch(async (e) => {
        // Say what GraphiQL did instead, so a failure here can be told apart from a refused socket.
        throw new Error(
          `no WebSocket opened; the result pane shows: ${await text(page, '.graphiql-response')}`,
          {
            cause: e,
          },
        );
      });
    expect(new URL(sockets[0]).pathname).toBe('/graphql');
    expect(sockets[0]).not.toContain(demo.users.alice.apiKey);
    // Each try writes a new value (an unchanged value logs nothing), until one comes back live.
    let n = 0;
    await expect
      .poll(
        async () => {
          const w = await alice.put(
            `/projects/v1/${projectId}`,
            { properties: { capacity_mw: { number: 4242 + ++n / 10 } } },
            q,
          );
          expect(w.status).toBe(200);
          return text(page, '.graphiql-response');
        },
        { timeout: 30_000, interval: 1_500 },
      )
      .toContain('4242.');
    const pane = await text(page, '.graphiql-response');
    expect(pane).toContain(projectId);
    expect(pane).toContain('UPDATE');
    expect(problems).toEqual([]);
    await context.close();
  });
});
