import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { describeGateway, PERSISTED, probeGateway } from '../examples/web/src/gateway.js';
import { buildApp } from '../src/app.js';
import { seededDatabase } from './helpers/database.js';
import { EXAMPLE_WEB } from './helpers/example-web.js';

/**
 * The example front-end's gateway line (examples/web/src/gateway.ts), run under Node against real
 * gateways: it names the gateway it tried when it cannot reach it, a refused key, and whether
 * trusted documents are on or off, which it learns from how the gateway answers one of the app's
 * hashes.
 */
const seeded = seededDatabase();
const apps: FastifyInstance[] = [];
/** The app's document in the probe's place, and its hash as the client preset writes it. */
const DOCUMENT = 'query Portfolios { organizations { id name portfolios { id name } } }';
const hex = (text: string) => createHash('sha256').update(text).digest('hex');
const HASH = `sha256:${hex(DOCUMENT)}`;

async function listening(trusted: boolean): Promise<string> {
  const app = await buildApp({
    database: seeded.database,
    // The manifest's keys are bare, as the gateway reads them (`sha256:` optional on both sides).
    ...(trusted ? { trustedDocuments: new Map([[hex(DOCUMENT), DOCUMENT]]) } : {}),
  });
  apps.push(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let anyDocument: string;
let trustedOnly: string;
beforeAll(async () => {
  anyDocument = await listening(false);
  trustedOnly = await listening(true);
});
afterAll(async () => {
  for (const app of apps) await app.close();
});

describe('the example front-end says which gateway it tried, and its trusted-documents mode', () => {
  const alice = () => seeded.demo.users.alice.apiKey;

  test('trusted documents off: the gateway answers the hash with an APQ miss', async () => {
    const status = await probeGateway(`${anyDocument}/`, alice(), HASH);
    expect(status).toEqual({ state: 'ready', gateway: anyDocument, trustedDocuments: 'off' });
    expect(describeGateway(status)).toBe(
      `Gateway ${anyDocument}: trusted documents off, and this app sends only the hashes of its trusted documents: start the gateway with GRAPHQL_TRUSTED_DOCUMENTS=examples/web/src/gql/persisted-documents.json.`,
    );
  });

  test("trusted documents on: the app's hash runs; one the manifest lacks says so", async () => {
    const status = await probeGateway(trustedOnly, alice(), HASH);
    expect(status).toEqual({ state: 'ready', gateway: trustedOnly, trustedDocuments: 'on' });
    expect(describeGateway(status)).toBe(
      `Gateway ${trustedOnly}: trusted documents on: it runs this app’s documents by their hashes.`,
    );
    const other = await probeGateway(trustedOnly, alice(), `sha256:${hex('{ me { id } }')}`);
    expect(other).toEqual({ state: 'ready', gateway: trustedOnly, trustedDocuments: 'other-manifest' });
    expect(describeGateway(other)).toMatch(
      /manifest lacks this app’s documents: start it with GRAPHQL_TRUSTED_DOCUMENTS=/,
    );
  });

  test('a gateway that is not there is named, with how to go on', async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const status = await probeGateway(nowhere, alice(), HASH);
    expect(status).toMatchObject({ state: 'unreachable', gateway: nowhere });
    expect(describeGateway(status)).toMatch(
      new RegExp(`^Cannot reach the gateway at ${nowhere} \\(.+\\): it is not running there.*\\?gateway=`),
    );
  });

  test('a refused key, and no key yet', async () => {
    const refused = await probeGateway(anyDocument, 'sdg_not-a-key', HASH);
    expect(refused).toMatchObject({ state: 'key-refused', gateway: anyDocument });
    expect(describeGateway(refused)).toMatch(
      new RegExp(`^The gateway at ${anyDocument} refused this API key: `),
    );
    const noKey = await probeGateway(anyDocument, undefined, HASH);
    expect(noKey).toEqual({ state: 'ready', gateway: anyDocument, trustedDocuments: 'unknown' });
    expect(describeGateway(noKey)).toBe(`Gateway ${anyDocument}: reachable.`);
  });
});

/** examples/web's own urql, once its packages are installed (the browser test installs them). */
const urqlInstalled = existsSync(join(EXAMPLE_WEB, 'node_modules/@urql/exchange-persisted/package.json'));

describe.skipIf(!urqlInstalled)("the example's urql client needs trusted documents", () => {
  test('without them every hash is an APQ miss, and the app does not fall back to sending the text', async () => {
    const require = createRequire(join(EXAMPLE_WEB, 'package.json'));
    const { Client, fetchExchange } = require('@urql/core');
    const { persistedExchange } = require('@urql/exchange-persisted');
    const sent: { query?: string; hash?: string }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const body = JSON.parse(String(init?.body));
      sent.push({ query: body.query, hash: body.extensions?.persistedQuery?.sha256Hash });
      return fetch(input, init);
    };
    const text = 'query Orgs { organizations { name } }';
    const hash = `sha256:${createHash('sha256').update(text).digest('hex')}`;
    const client = new Client({
      url: `${anyDocument}/graphql`,
      fetch: recording,
      fetchOptions: { headers: { 'x-api-key': seeded.demo.users.alice.apiKey } },
      // The app's settings (examples/web/src/client.ts), with its hashes' form.
      exchanges: [persistedExchange({ ...PERSISTED, generateHash: async () => hash }), fetchExchange],
    });
    const r = await client.query(text, {}).toPromise();
    expect(r.error?.graphQLErrors.map((e: { message: string }) => e.message)).toEqual([
      'PersistedQueryNotFound',
    ]);
    expect(sent).toEqual([{ query: undefined, hash }]);
    // Which is what the page's gateway line says, with the way on.
    expect(describeGateway(await probeGateway(anyDocument, seeded.demo.users.alice.apiKey, HASH))).toContain(
      'start the gateway with GRAPHQL_TRUSTED_DOCUMENTS=examples/web/src/gql/persisted-documents.json',
    );
  });
});
