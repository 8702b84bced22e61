import { describe, expect, test } from './helpers/fixtures.js';
import { freshPortfolio } from './records-helpers.js';

/**
 * A browser page on another origin makes a conflict-safe REST write: it reads a record's ETag and
 * sends it back in If-Match. Neither header is CORS-safelisted, so the preflight must allow
 * If-Match and answers must expose ETag, or the browser blocks the PUT or hides the ETag.
 */
const ORIGIN = 'http://localhost:5173';
/** Response headers a page can always read (Fetch standard, CORS-safelisted response headers). */
const SAFELISTED = [
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
];
const list = (v: unknown) =>
  String(v ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
/** The value of a response header as a page sees it: undefined when the browser hides it. */
const pageReads = (headers: Record<string, unknown>, name: string) => {
  const n = name.toLowerCase();
  const exposed = list(headers['access-control-expose-headers']);
  return SAFELISTED.includes(n) || exposed.includes(n) || exposed.includes('*') ? headers[n] : undefined;
};

describe('CORS for conflict-safe REST writes', () => {
  test('the preflight of a PUT with If-Match allows it, and a page can read the ETag and send it back', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    const made = await env.as.alice.send('POST', '/contacts/v1', {
      body: { properties: { first_name: { text: 'A' } } },
      query: s,
      headers: { origin: ORIGIN },
    });
    expect(made.status).toBe(200);
    const etag = pageReads(made.headers, 'ETag') as string;
    expect(etag).toBe(`"${Date.parse(made.body.updated_at)}"`);

    const url = `/contacts/v1/${made.body.id}?orgId=${s.orgId}&portfolioId=${s.portfolioId}`;
    const requested = ['x-api-key', 'content-type', 'if-match'];
    const pre = await env.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': requested.join(','),
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(list(pre.headers['access-control-allow-methods'])).toContain('put');
    const allowed = list(pre.headers['access-control-allow-headers']);
    for (const h of requested) expect(allowed, h).toContain(h);

    const put = (first: string, ifMatch: string) =>
      env.as.alice.send('PUT', `/contacts/v1/${made.body.id}`, {
        body: { properties: { first_name: { text: first } } },
        query: s,
        headers: { origin: ORIGIN, 'if-match': ifMatch },
      });
    const ok = await put('B', etag);
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const next = pageReads(ok.headers, 'ETag');
    expect(next).toBe(`"${Date.parse(ok.body.updated_at)}"`);
    // The stale version: the page can read the 412 and the ETag of the record as it is now.
    const stale = await put('C', etag);
    expect(stale.status).toBe(412);
    expect(stale.headers['access-control-allow-origin']).toBe('*');
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    expect(stale.body.error.message).toContain(next);
  });
});
