import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildSchema, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { migrationProvider } from '../migrations/index.js';
import { buildApp } from '../src/app.js';
import { COMMANDS } from '../src/cli/commands.js';
import { inUseMessage, runCli } from '../src/cli/main.js';
import { DataFolderInUse } from '../src/db/data-lock.js';
import type { Database } from '../src/db/database.js';
import { createScratchDatabase, openTestDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';
import { sourceArgs } from './helpers/server-process.js';

/**
 * Issue 42's paper cuts in sdg: `migrate` says what it applied, lost demo keys come back with one
 * command (`seed --demo --keys`), and every command checks every flag before opening a database.
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** sdg in-process; on `database` when given, else on what DATABASE_URL / SDG_DATA_DIR name. */
async function sdg(database: Database | undefined, ...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, database);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** Runs `fn` with DATABASE_URL and SDG_DATA_DIR set so, then puts them back. */
async function withStorage<T>(env: { DATABASE_URL: string; SDG_DATA_DIR: string }, fn: () => Promise<T>) {
  const saved = { DATABASE_URL: process.env.DATABASE_URL, SDG_DATA_DIR: process.env.SDG_DATA_DIR };
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('sdg migrate on a new database', () => {
  test('lists the migrations it applied, then says the database is already up to date', {
    timeout: 120_000,
  }, async () => {
    const all = Object.keys(await migrationProvider.getMigrations()).sort();
    expect(all.length).toBeGreaterThan(3);
    // The run's backend: a new database on the Postgres server, or a new PGlite folder.
    const url = process.env.DATABASE_URL;
    const scratch = url ? await createScratchDatabase(url) : undefined;
    const env = {
      DATABASE_URL: scratch?.url ?? '',
      SDG_DATA_DIR: join(mkdtempSync(join(tmpdir(), 'sdg-migrate-')), 'pglite'),
    };
    try {
      await withStorage(env, async () => {
        const first = await sdg(undefined, 'migrate');
        expect(first.code, first.stderr).toBe(0);
        const [head, ...names] = first.stdout.split('\n');
        expect(head).toMatch(new RegExp(`^Applied ${all.length} migrations to .+:$`));
        expect(names.map((n) => n.trim())).toEqual(all);

        const again = await sdg(undefined, 'migrate');
        expect(again.code).toBe(0);
        expect(again.stdout).toMatch(/^Database is already up to date \(.+\): no migration to apply\.$/);

        const json = await sdg(undefined, 'migrate', '--json');
        expect(JSON.parse(json.stdout)).toEqual({ applied: [], database: expect.any(String) });
      });
    } finally {
      await scratch?.drop();
    }
  });
});

describe('sdg seed --demo --keys: lost demo keys', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  test('prints a fresh key per demo user that works at once; the earlier keys still work', {
    timeout: 120_000,
  }, async () => {
    // On a database without the demo, it creates it (and its keys).
    const created = await sdg(database, 'seed', '--demo', '--keys', '--json');
    expect(created.code, created.stderr).toBe(0);
    const first = JSON.parse(created.stdout);
    expect(Object.keys(first.orgs)).toEqual(['A', 'B']);

    // The keys were lost: `seed --demo` refuses, and names the command that helps.
    const twice = await sdg(database, 'seed', '--demo');
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/already in this database.*sdg seed --demo --keys/);

    const fresh = await sdg(database, 'seed', '--demo', '--keys');
    expect(fresh.code, fresh.stderr).toBe(0);
    const lines = fresh.stdout.split('\n');
    expect(lines[0]).toMatch(/^New API keys for the demo users \(shown once; their earlier keys still work/);
    const keys = Object.fromEntries(
      lines.slice(1).map((l) => /^ {2}(\w+) +(sdg_\S+)$/.exec(l)!.slice(1, 3) as [string, string]),
    );
    expect(Object.keys(keys)).toEqual(['alice', 'bob', 'vera', 'gina', 'nora']);

    const app = await buildApp({ database });
    try {
      for (const [who, key] of Object.entries(keys)) {
        expect(key).not.toBe(first.users[who].apiKey);
        const mine = await client(app, key).get('/organizations/v1');
        const before = await client(app, first.users[who].apiKey).get('/organizations/v1');
        expect(mine.status, who).toBe(200);
        expect(before.status, who).toBe(200);
        expect(mine.body, who).toEqual(before.body);
      }
      const orgs = await client(app, keys.alice).get('/organizations/v1');
      expect(orgs.body.map((o: { name: string }) => o.name)).toEqual(['Sunfield Energy']);
    } finally {
      await app.close();
    }

    const json = JSON.parse((await sdg(database, 'seed', '--demo', '--keys', '--json')).stdout);
    expect(Object.keys(json)).toEqual(['users']);
    expect(json.users.alice).toEqual({ uid: first.users.alice.uid, apiKey: expect.stringMatching(/^sdg_/) });
  });
});

describe('every flag of every command is checked before a database is opened', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sdg-flags-')), 'parcels.geojson');
  writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [] }));

  /** A complete call of each command, and the flags it cannot do without. */
  const CALLS: Record<string, { argv: string[]; required: string[] }> = {
    migrate: { argv: ['migrate'], required: [] },
    seed: { argv: ['seed', '--demo'], required: ['--demo'] },
    'org create': { argv: ['org', 'create', '--name', 'N'], required: ['--name'] },
    'portfolio create': {
      argv: ['portfolio', 'create', '--org', 'org_x', '--name', 'P'],
      required: ['--org', '--name'],
    },
    'user create': {
      argv: ['user', 'create', '--email', 'lee@example.com', '--name', 'Lee'],
      required: ['--email', '--name'],
    },
    'member add': {
      argv: ['member', 'add', '--org', 'org_x', '--user', 'u', '--role', 'member'],
      required: ['--org', '--user', '--role'],
    },
    'guest grant': {
      argv: ['guest', 'grant', '--portfolio', 'pf_x', '--user', 'u'],
      required: ['--portfolio', '--user'],
    },
    'key create': { argv: ['key', 'create', '--user', 'u'], required: ['--user'] },
    'key revoke': { argv: ['key', 'revoke', '--key', 'key_x'], required: ['--key'] },
    'schema index': {
      argv: ['schema', 'index', '--org', 'org_x', '--kind', 'parcel', '--id', 'acreage'],
      required: ['--org', '--kind', '--id'],
    },
    'schema property': {
      argv: [
        'schema',
        'property',
        'add',
        ...['--org', 'org_x', '--kind', 'parcel', '--id', 'x', '--name', 'X', '--type', 'text'],
      ],
      required: ['--org', '--kind', '--id', '--name', '--type'],
    },
    'parcels import': { argv: ['parcels', 'import', file, '--portfolio', 'pf_x'], required: ['--portfolio'] },
    'webhook add': {
      argv: [
        'webhook',
        'add',
        '--org',
        'org_x',
        '--url',
        'https://hooks.example/h',
        '--event',
        'parcel.updated',
      ],
      required: ['--org', '--url', '--event'],
    },
    'webhook list': { argv: ['webhook', 'list', '--org', 'org_x'], required: ['--org'] },
    'webhook remove': { argv: ['webhook', 'remove', '--id', 'whk_x'], required: ['--id'] },
    'webhook enable': { argv: ['webhook', 'enable', '--id', 'whk_x'], required: ['--id'] },
  };

  /** The call without `flag` (and its value, when it has one). */
  const without = (argv: string[], flag: string) => {
    const i = argv.indexOf(flag);
    const hasValue = argv[i + 1] !== undefined && !argv[i + 1].startsWith('--');
    return [...argv.slice(0, i), ...argv.slice(i + (hasValue ? 2 : 1))];
  };
  /** The call with `flag` moved to the end and its value dropped. */
  const valueless = (argv: string[], flag: string) => [...without(argv, flag), flag];

  /** Wrong values the call itself shows to be wrong. */
  const INVALID: [string, string[]][] = [
    ['member add', ['member', 'add', '--org', 'o', '--user', 'u', '--role', 'boss']],
    ['schema index', ['schema', 'index', '--org', 'o', '--kind', 'deal', '--id', 'x']],
    [
      'schema property',
      ['schema', 'property', 'add', ...CALLS['schema property'].argv.slice(3), '--type', 'colour'],
    ],
    [
      'schema property',
      ['schema', 'property', 'add', ...CALLS['schema property'].argv.slice(3), '--option', 'a:A'],
    ],
    ['schema property', ['schema', 'property', 'remove']],
    ['parcels import', ['parcels', 'import', '--portfolio', 'pf_x']],
    ['parcels import', ['parcels', 'import', '/no/such/file.geojson', '--portfolio', 'pf_x']],
    ['parcels import', [...CALLS['parcels import'].argv, '--map', 'nokey']],
    [
      'webhook add',
      ['webhook', 'add', '--org', 'o', '--url', 'ftp://x.example/h', '--event', 'parcel.updated'],
    ],
    ['webhook add', ['webhook', 'add', '--org', 'o', '--url', 'https://203.0.113.5/h', '--event', 'nope']],
    ['migrate', ['migrate', '--bogus']],
    ['seed', ['seed', '--demo', 'extra', '--keys=1']],
    ['user create', ['user', 'create', '--email', 'lee@example.com', '--name', 'Lee', '--role', 'owner']],
  ];

  test('the table names every command', () => {
    expect(Object.keys(CALLS).sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  test('a missing flag, a flag without its value, or a wrong value: exit 2, no database line, no folder', {
    timeout: 60_000,
  }, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sdg-flags-')), 'never');
    const mistakes: [string, string[]][] = [...INVALID];
    for (const [command, { argv, required }] of Object.entries(CALLS)) {
      for (const flag of required) {
        mistakes.push([`${command} without ${flag}`, without(argv, flag)]);
        if (flag !== '--demo') mistakes.push([`${command} ${flag} without a value`, valueless(argv, flag)]);
      }
    }
    // A flag of another command would be parsed and then ignored: refused (the import checks its own).
    for (const [command, { argv }] of Object.entries(CALLS))
      if (command !== 'parcels import')
        mistakes.push([
          `${command} with a foreign flag`,
          [...argv, ...(command === 'key create' ? ['--role', 'owner'] : ['--label', 'x'])],
        ]);
    expect(mistakes.length).toBeGreaterThan(60);
    await withStorage({ DATABASE_URL: '', SDG_DATA_DIR: dir }, async () => {
      for (const [what, argv] of mistakes) {
        const r = await sdg(undefined, ...argv);
        const said = `${what}: sdg ${argv.join(' ')}\n${r.stderr}`;
        expect(r.code, said).toBe(2);
        expect(r.stderr, said).toMatch(/(^|\n)sdg: \S/);
        expect(r.stderr, said).not.toMatch(/\(database:/);
        expect(r.stdout, said).toBe('');
        expect(existsSync(dir), said).toBe(false);
      }
    });
  });

  test('a flag the command does not take is named, with the flags it does take', async () => {
    const r = await sdg(
      undefined,
      'user',
      'create',
      '--email',
      'lee@example.com',
      '--name',
      'Lee',
      '--role',
      'owner',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'sdg: user create does not take --role (it takes --email, --name). Run sdg --help for usage.',
    );
    // --json, --help and --citus go with every command.
    expect((await sdg(undefined, 'user', 'create', '--help', '--json')).code).toBe(0);
  });

  test('as a process too: `sdg key create` with no flags exits 2 before any database line', async () => {
    const run = promisify(execFile);
    const dir = join(mkdtempSync(join(tmpdir(), 'sdg-flags-')), 'never');
    const r = await run(process.execPath, [...sourceArgs('src/cli/cli.ts'), 'key', 'create'], {
      env: { ...process.env, DATABASE_URL: '', SDG_DATA_DIR: dir },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('sdg: missing --user\n');
    expect(existsSync(dir)).toBe(false);
  });
});

describe('a refused command names the API operation that does its work, if there is one', () => {
  test('every operation it names is in the schema; the others say there is none', () => {
    const schema = buildSchema(readFileSync(join(import.meta.dirname, '..', 'schema.graphql'), 'utf8'));
    // Mutations, and the fields a query reads (webhookEndpoints is an organization's).
    const fields = new Set(
      Object.values(schema.getTypeMap()).flatMap((t) =>
        isObjectType(t) && !t.name.startsWith('__') ? Object.keys(t.getFields()) : [],
      ),
    );
    const holder = {
      pid: 4242,
      hostname: 'here',
      since: '2026-01-01T00:00:00.000Z',
      holder: 'server',
      url: 'http://127.0.0.1:4000',
      dataDir: '/data',
      token: 't',
    };
    const named: Record<string, string[]> = {};
    for (const command of Object.keys(COMMANDS)) {
      const message = inUseMessage(
        new DataFolderInUse('/data', '/data/sdg.lock', holder, 'running'),
        command,
      );
      expect(message, command).toMatch(/stop the server \(Ctrl-C in its terminal, or kill 4242\)/);
      const api =
        /GraphQL API at http:\/\/127\.0\.0\.1:4000\/graphql: (?:mutation|query) (\w+)(.*), with an organization (owner's|owner's or admin's) API key/.exec(
          message,
        );
      if (!api) {
        expect(message, command).toContain(`The server's API has no way to do what \`sdg ${command}\` does.`);
        continue;
      }
      named[command] = [api[1], ...[...api[2].matchAll(/\b([a-z]+[A-Z]\w+)\b/g)].map((m) => m[1])];
      for (const op of named[command]) expect(fields, `${command}: ${op}`).toContain(op);
    }
    expect(named).toEqual({
      'webhook add': ['createWebhookEndpoint'],
      'webhook list': ['webhookEndpoints'],
      'webhook remove': ['deleteWebhookEndpoint'],
      'webhook enable': ['enableWebhookEndpoint'],
      'member add': ['inviteUser', 'setMemberRole'],
      'guest grant': ['grantGuestAccess'],
      'key create': ['createApiKey'],
      'key revoke': ['revokeApiKey'],
      'schema property': ['createProperty'],
    });
  });
});
