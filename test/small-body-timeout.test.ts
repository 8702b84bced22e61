import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { LINGER_MAX_MS } from '../src/http/lingering-close.js';
import { seededDatabase } from './helpers/database.js';

/**
 * The time to receive a request covers its body, not only its headers: a client that sends its
 * headers at once and then trickles the body is cut at the configured time, as one that trickles
 * its headers is. Real sockets, since inject() skips Node's HTTP parser and its timers.
 */
const TIMEOUT_MS = 2_000;
/** Node checks request times every second (http.connectionsCheckingInterval in createServer). */
const CHECK_MS = 1_000;
const seeded = seededDatabase();
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = await buildApp({ database: seeded.database, requestTimeoutMs: TIMEOUT_MS });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await app?.close();
});

/** Sends `head` at once, then a byte of body every 100 ms, until the server closes or `giveUpMs`. */
function trickle(head: string, giveUpMs: number): Promise<{ response: string; ms: number; cut: boolean }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const t0 = Date.now();
    let response = '';
    let cut = true;
    s.on('data', (d) => {
      response += d;
    });
    s.on('error', () => {});
    s.on('close', () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ response, ms: Date.now() - t0, cut });
    });
    s.write(head);
    const drip = setInterval(() => s.writable && s.write(' '), 100);
    const giveUp = setTimeout(() => {
      cut = false;
      s.destroy();
    }, giveUpMs);
  });
}

describe('the body receive timeout', () => {
  test('a body trickled after complete headers is cut at the configured time, with 408 REQUEST_TIMEOUT', async () => {
    const head = [
      'POST /graphql HTTP/1.1',
      'Host: x',
      `X-Api-Key: ${seeded.demo.users.alice.apiKey}`,
      'Content-Type: application/json',
      'Content-Length: 100000',
      '',
      '',
    ].join('\r\n');
    const r = await trickle(head, 3 * TIMEOUT_MS);
    expect(r.cut, `still receiving after ${r.ms} ms`).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(r.ms).toBeLessThan(TIMEOUT_MS + CHECK_MS + 500);
    expect(r.response).toMatch(/^HTTP\/1.1 408/);
    expect(JSON.parse(r.response.slice(r.response.indexOf('\r\n\r\n') + 4)).error.code).toBe(
      'REQUEST_TIMEOUT',
    );
  }, 15_000);

  test('a refused body being discarded keeps its one answer and its lingering time, past the receive timeout', async () => {
    const head = [
      'POST /projects/v1 HTTP/1.1',
      'Host: x',
      'Content-Type: application/json',
      'Content-Length: 5000000',
      '',
      '',
    ].join('\r\n');
    const r = await trickle(`${head}${' '.repeat(1_100_000)}`, LINGER_MAX_MS + 3_000);
    expect(r.response).toMatch(/^HTTP\/1.1 413/);
    expect(r.response.match(/HTTP\/1.1 \d{3}/g)).toHaveLength(1);
    expect(r.ms).toBeGreaterThanOrEqual(LINGER_MAX_MS - 100);
    expect(r.cut).toBe(true);
  }, 15_000);
});
