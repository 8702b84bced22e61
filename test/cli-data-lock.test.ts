import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COMMANDS } from '../src/cli/commands.js';
import { EXIT_IN_USE, runCli } from '../src/cli/main.js';
import { LOCK_FILE } from '../src/db/data-lock.js';
import { createDatabase } from '../src/db/database.js';
import { backend } from './helpers/database.js';
import { call, type ServerStorage, serverStorage, sourceArgs } from './helpers/server-process.js';

/**
 * Issue 42: sdg next to a running server. On PGlite the data folder is one process's at a time, so
 * sdg is refused, with the way on, and nothing is lost; on Postgres both run at once. And sdg checks
 * its arguments before it opens any database.
 */

/** sdg as the newcomer runs it: its own process, with the server's storage settings. */
function sdg(env: Record<string, string>, ...argv: string[]) {
  const child = spawn(process.execPath, [...sourceArgs('src/cli/cli.ts'), ...argv], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

const timeout = 180_000;

let storage: ServerStorage;
beforeAll(async () => {
  storage = await serverStorage();
});
afterAll(async () => {
  await storage?.cleanup();
});

/** The users with this e-mail, read from the folder once no one else has it open. */
async function usersNamed(email: string): Promise<number> {
  const database = await createDatabase({
    url: storage.env.DATABASE_URL || undefined,
    dataDir: storage.env.SDG_DATA_DIR,
  });
  try {
    const rows = await database.db.selectFrom('users').select('id').where('email', '=', email).execute();
    // The demo's data is all there too.
    const orgs = await database.db.selectFrom('organizations').select('name').execute();
    expect(orgs.map((o) => o.name)).toContain('Sunfield Energy');
    return rows.length;
  } finally {
    await database.close();
  }
}

describe.skipIf(backend !== 'pglite')('sdg while a server holds the PGlite data folder', () => {
  test('is refused with the way on, and nothing is lost', { timeout }, async () => {
    const dir = realpathSync(storage.env.SDG_DATA_DIR);
    const server = await storage.start();
    try {
      const alice = server.keys.alice;
      const orgs = await call(server.url, alice, 'GET', '/organizations/v1');
      const org = orgs.body.find((o: { name: string }) => o.name === 'Sunfield Energy').id;

      const r = await sdg(storage.env, 'user', 'create', '--email', 'lee@example.com', '--name', 'Lee Park');
      expect(r.code).toBe(EXIT_IN_USE);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/Created user|\(database:/);
      expect(r.stderr).toContain(`sdg: the data folder ${dir} is in use by the server at ${server.url}`);
      expect(r.stderr).toContain(`pid ${server.child.pid}`);
      expect(r.stderr).toMatch(/so sdg did not open it and changed nothing/);
      expect(r.stderr).toContain(`stop the server (Ctrl-C in its terminal, or kill ${server.child.pid})`);
      expect(r.stderr).toMatch(/API has no way to do what `sdg user create` does/);

      // Work the API has: the refusal points to it, at the server's address.
      const hooks = await sdg(storage.env, 'webhook', 'list', '--org', org);
      expect(hooks.code).toBe(EXIT_IN_USE);
      expect(hooks.stderr).toContain(
        `through its GraphQL API at ${server.url}/graphql: query webhookEndpoints`,
      );

      // The server still answers, reads and writes.
      const pf = (await call(server.url, alice, 'GET', `/portfolios/v1?orgId=${org}`)).body[0].id;
      const list = `/projects/v1?orgId=${org}&portfolioId=${pf}`;
      const [project] = (await call(server.url, alice, 'GET', `${list}&limit=1`)).body.items;
      const path = `/projects/v1/${project.id}?orgId=${org}&portfolioId=${pf}`;
      const name = { name: { text: 'Renamed while sdg was refused' } };
      expect((await call(server.url, alice, 'PUT', path, { properties: name })).status).toBe(200);
      const [after] = (await call(server.url, alice, 'GET', `${list}&limit=1`)).body.items;
      expect(after).toMatchObject({ id: project.id, properties: name });
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
    // A clean stop frees the folder: the same command now runs, once.
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const again = await sdg(
      storage.env,
      'user',
      'create',
      '--email',
      'lee@example.com',
      '--name',
      'Lee Park',
    );
    expect(again.stderr).not.toMatch(/took over/);
    expect(again.stdout).toMatch(/^Created user usr_\w+ \(lee@example\.com\)\.$/m);
    expect(again.code).toBe(0);
    expect(await usersNamed('lee@example.com')).toBe(1);
  });

  test('a server killed with SIGKILL leaves a lock that the next sdg takes over, saying so', {
    timeout,
  }, async () => {
    const dir = realpathSync(storage.env.SDG_DATA_DIR);
    const server = await storage.start();
    const pid = server.child.pid;
    server.child.kill('SIGKILL');
    await server.exited;
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);

    const r = await sdg(storage.env, 'user', 'create', '--email', 'kim@example.com', '--name', 'Kim');
    expect(r.stderr).toContain(`(took over the lock of ${dir}: the server at ${server.url} (pid ${pid}`);
    expect(r.stderr).toMatch(/no longer running\)/);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);

    // The server starts again on the folder, and it holds what sdg wrote.
    const next = await storage.start();
    try {
      expect((await call(next.url, next.keys.alice, 'GET', '/organizations/v1')).status).toBe(200);
    } finally {
      next.child.kill('SIGTERM');
      expect(await next.exited).toBe(0);
    }
    expect(await usersNamed('kim@example.com')).toBe(1);
  });

  test('a second server on the folder is refused at start', { timeout }, async () => {
    const server = await storage.start();
    try {
      await expect(storage.start()).rejects.toThrow(
        new RegExp(`failed to start: the data folder .* is in use by the server at ${server.url}`),
      );
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });
});

describe.skipIf(backend !== 'postgres')('sdg while a server runs on Postgres', () => {
  test('is not refused: the server sees what sdg writes', { timeout }, async () => {
    const server = await storage.start();
    try {
      const orgs = await call(server.url, server.keys.alice, 'GET', '/organizations/v1');
      const org = orgs.body.find((o: { name: string }) => o.name === 'Sunfield Energy').id;
      const env = storage.env;
      const user = await sdg(env, 'user', 'create', '--email', 'lee@example.com', '--name', 'Lee Park');
      expect(user.code).toBe(0);
      expect(user.stdout).toMatch(/Created user usr_/);
      expect(
        (await sdg(env, 'member', 'add', '--org', org, '--user', 'lee@example.com', '--role', 'member')).code,
      ).toBe(0);
      const key = await sdg(env, 'key', 'create', '--user', 'lee@example.com', '--json');
      expect(key.code).toBe(0);
      const lee = await call(server.url, JSON.parse(key.stdout).apiKey, 'GET', '/organizations/v1');
      expect(lee.status).toBe(200);
      expect(lee.body).toEqual([{ id: org, name: 'Sunfield Energy' }]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('sdg checks its arguments before it opens a database', () => {
  /** One call with a mistake per command: each is refused before the database is opened. */
  const MISTAKES: [string, string[], RegExp][] = [
    ['migrate', ['migrate', '--bogus'], /Unknown option '--bogus'.*Run sdg --help/],
    ['seed', ['seed'], /seed needs --demo/],
    ['org create', ['org', 'create'], /missing --name/],
    ['portfolio create', ['portfolio', 'create', '--name', 'P'], /missing --org/],
    ['user create', ['user', 'create', '--email', 'lee@example.com'], /missing --name/],
    ['member add', ['member', 'add', '--org', 'o', '--user', 'u', '--role', 'boss'], /--role must be one of/],
    ['guest grant', ['guest', 'grant', '--user', 'u'], /missing --portfolio/],
    ['key create', ['key', 'create'], /missing --user/],
    ['key revoke', ['key', 'revoke'], /missing --key/],
    [
      'schema index',
      ['schema', 'index', '--org', 'o', '--kind', 'deal', '--id', 'x'],
      /--kind must be one of/,
    ],
    [
      'schema property',
      [
        'schema',
        'property',
        'add',
        '--org',
        'o',
        '--kind',
        'parcel',
        '--id',
        'x',
        '--name',
        'X',
        '--type',
        'colour',
      ],
      /type: must be one of text/,
    ],
    ['parcels import', ['parcels', 'import', '/no/such/file.geojson', '--portfolio', 'pf'], /Cannot read/],
    [
      'webhook add',
      ['webhook', 'add', '--org', 'o', '--url', 'ftp://x.example/h', '--event', 'parcel.updated'],
      /url: must be http or https/,
    ],
    ['webhook list', ['webhook', 'list'], /missing --org/],
    ['webhook remove', ['webhook', 'remove'], /missing --id/],
    ['webhook enable', ['webhook', 'enable'], /missing --id/],
    ['(unknown)', ['frobnicate'], /unknown command "frobnicate"/],
  ];

  test('the table names every command', () => {
    expect(
      MISTAKES.map(([c]) => c)
        .filter((c) => c !== '(unknown)')
        .sort(),
    ).toEqual(Object.keys(COMMANDS).sort());
  });

  test('each mistake is reported with no database line, and no data folder is made', async () => {
    // Whatever the run's backend: a PGlite folder that does not exist, which opening would create.
    const dir = join(mkdtempSync(join(tmpdir(), 'sdg-args-')), 'never');
    const saved = { DATABASE_URL: process.env.DATABASE_URL, SDG_DATA_DIR: process.env.SDG_DATA_DIR };
    process.env.DATABASE_URL = '';
    process.env.SDG_DATA_DIR = dir;
    try {
      for (const [command, argv, says] of MISTAKES) {
        const err: string[] = [];
        const code = await runCli(argv, { out: () => {}, err: (s) => err.push(s) });
        expect(code, command).toBe(2);
        expect(err.join('\n'), command).toMatch(says);
        expect(err.join('\n'), command).not.toMatch(/\(database:/);
        expect(existsSync(dir), command).toBe(false);
      }
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });

  test('as a process: `sdg key create` without --user says only that', { timeout }, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sdg-args-')), 'never');
    try {
      const r = await sdg({ DATABASE_URL: '', SDG_DATA_DIR: dir }, 'key', 'create');
      expect(r).toEqual({ code: 2, stdout: '', stderr: 'sdg: missing --user\n' });
      expect(existsSync(dir)).toBe(false);
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
