import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createDatabase, type Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { OrgRole, RecordKind } from '../db/types.js';
import { AppError } from '../errors.js';
import { createApiKey, revokeApiKey } from '../modules/auth/repository.js';
import * as orgs from '../modules/org/repository.js';
import { PROPERTY_TYPE_NAMES, type PropertyTypeName, propertyType } from '../modules/properties/registry.js';
import { importParcels } from '../modules/records/import.js';
import { sortIndexSql } from '../modules/records/order.js';
import { schemasByKeys } from '../modules/schema/repository.js';
import { defineProperty, installDefaultProperties } from '../modules/schema/service.js';
import { hasDemoData, seedDemo } from '../seed/demo.js';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Whether stderr is a terminal (progress bars). */
  tty?: boolean;
}

class UsageError extends Error {}

const HELP = `sdg — administer the Solar Data Gateway

Usage: sdg <command> [options]   (every command takes --json for scripts, and --help)

Commands:
  migrate                                   apply pending database migrations
  seed --demo                               create the demo organizations, users, keys and data
  org create --name NAME                    create an organization (with the default properties)
  portfolio create --org ORG --name NAME    create a portfolio
  user create --email EMAIL --name NAME     create a user
  member add --org ORG --user USER --role ROLE
                                            make a user a member (role: owner, admin, member, viewer)
  guest grant --portfolio PF --user USER    give a user guest access to one portfolio
  key create --user USER [--label TEXT]     create an API key (shown once)
  key revoke --key KEY_ID_OR_KEY            revoke an API key
  schema property add --org ORG --kind KIND --id ID --name NAME --type TYPE
                      [--option id:Name:#rrggbb ...] [--required]
                                            add or replace a property (kind: project, parcel, contact)
  schema index --org ORG --kind KIND --id ID
                                            create the indexes that make GraphQL orderBy on a
                                            text/number/date property fast on large portfolios
  parcels import FILE.geojson --portfolio PF [--project PRJ] [--map featureKey=propertyId ...]
                                            create parcels from a GeoJSON FeatureCollection

USER is a user id (usr_…) or an e-mail address.
The database is DATABASE_URL when set, else embedded PGlite in SDG_DATA_DIR (default ./.data/pglite).`;

const COMMAND_HELP: Record<string, string> = {
  'parcels import': `sdg parcels import FILE.geojson --portfolio PF [--project PRJ] [--map featureKey=propertyId ...] [--json]

Creates one parcel per Feature (Polygon or MultiPolygon). Feature properties are matched to the
org's parcel properties by id, then by name (case-insensitive), then by --map. Select values may be
option ids or option names. Everything is validated first; on any problem nothing is imported.
With --project, the parcels are linked to the project and its location is recomputed.`,
  'schema property add': `sdg schema property add --org ORG --kind project|parcel|contact --id ID --name NAME --type TYPE
    [--option id:Name:#rrggbb ...] [--required] [--json]

TYPE is one of: ${PROPERTY_TYPE_NAMES.join(', ')}. select and multi_select need --option, e.g.
  --option active:Active:#22c55e --option lost:Lost:#ef4444`,
};

function print(io: Io, json: boolean, value: unknown, text: string) {
  io.out(json ? JSON.stringify(value) : text);
}

async function resolveUser(database: Database, idOrEmail: string) {
  const u = await orgs.findUser(database.db, idOrEmail);
  if (!u) throw new UsageError(`No user "${idOrEmail}". Create one with: sdg user create --email … --name …`);
  return u;
}

async function requireOrg(database: Database, id: string) {
  const [o] = await orgs.orgsByIds(database.db, [id]);
  if (!o)
    throw new UsageError(
      `No organization "${id}". List them with GET /organizations/v1, or create one with: sdg org create --name …`,
    );
  return o;
}

async function requirePortfolio(database: Database, id: string) {
  const p = await orgs.findPortfolio(database.db, id);
  if (!p)
    throw new UsageError(`No portfolio "${id}". Create one with: sdg portfolio create --org … --name …`);
  return p;
}

function need(values: Record<string, unknown>, ...names: string[]) {
  const missing = names.filter((n) => values[n] === undefined || values[n] === '');
  if (missing.length) throw new UsageError(`missing ${missing.map((m) => `--${m}`).join(', ')}`);
}

/** Runs one CLI command. Returns the exit code; never calls process.exit, so tests can run it in-process. */
export async function runCli(argv: string[], io: Io, injected?: Database): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      demo: { type: 'boolean', default: false },
      name: { type: 'string' },
      org: { type: 'string' },
      portfolio: { type: 'string' },
      project: { type: 'string' },
      user: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      label: { type: 'string' },
      key: { type: 'string' },
      kind: { type: 'string' },
      id: { type: 'string' },
      type: { type: 'string' },
      option: { type: 'string', multiple: true },
      required: { type: 'boolean', default: false },
      map: { type: 'string', multiple: true },
    },
  });
  const json = values.json!;
  const [c1, c2, c3] = positionals;
  const cmd = [c1, c2, c3].filter(Boolean).join(' ');
  if (!c1 || values.help) {
    const specific = Object.keys(COMMAND_HELP).find((k) => cmd.startsWith(k));
    io.out(specific ? COMMAND_HELP[specific] : HELP);
    return 0;
  }
  const database = injected ?? (await openDatabase(io, json));
  try {
    if (!injected) await migrateToLatest(database.db);
    const db = database.db;
    switch (`${c1} ${c2 ?? ''}`.trim()) {
      case 'migrate': {
        const applied = injected ? await migrateToLatest(db) : [];
        print(
          io,
          json,
          { applied, database: database.describe },
          `Database is up to date (${database.describe}).`,
        );
        return 0;
      }
      case 'seed': {
        if (!values.demo) throw new UsageError('seed needs --demo (the only data set there is).');
        if (await hasDemoData(db)) {
          throw new UsageError(
            'The demo data is already in this database, and its keys were shown when it was created. Make new keys with: sdg key create --user alice@sunfield.example',
          );
        }
        const out = await seedDemo(db);
        if (json) io.out(JSON.stringify(out));
        else {
          io.out('Demo data created. API keys (shown once):');
          for (const [h, u] of Object.entries(out.users)) io.out(`  ${h.padEnd(6)} ${u.apiKey}`);
        }
        return 0;
      }
      case 'org create': {
        need(values, 'name');
        const o = await db.transaction().execute(async (tx) => {
          const o = await orgs.createOrg(tx, values.name!);
          await installDefaultProperties(tx, o.id);
          return o;
        });
        print(io, json, o, `Created organization ${o.id} (${o.name}).`);
        return 0;
      }
      case 'portfolio create': {
        need(values, 'org', 'name');
        await requireOrg(database, values.org!);
        const p = await orgs.createPortfolio(db, values.org!, values.name!);
        print(io, json, p, `Created portfolio ${p.id} (${p.name}) in ${p.orgId}.`);
        return 0;
      }
      case 'user create': {
        need(values, 'email', 'name');
        if (await orgs.findUser(db, values.email!))
          throw new UsageError(`A user with e-mail ${values.email} already exists.`);
        const u = await orgs.createUser(db, values.email!, values.name!);
        print(io, json, u, `Created user ${u.id} (${u.email}).`);
        return 0;
      }
      case 'member add': {
        need(values, 'org', 'user', 'role');
        const roles: OrgRole[] = ['owner', 'admin', 'member', 'viewer'];
        if (!roles.includes(values.role as OrgRole))
          throw new UsageError(`--role must be one of ${roles.join(', ')}`);
        await requireOrg(database, values.org!);
        const u = await resolveUser(database, values.user!);
        await orgs.addMember(db, values.org!, u.id, values.role as OrgRole);
        print(
          io,
          json,
          { orgId: values.org, userId: u.id, role: values.role },
          `${u.email} is now ${values.role} of ${values.org}.`,
        );
        return 0;
      }
      case 'guest grant': {
        need(values, 'portfolio', 'user');
        const p = await requirePortfolio(database, values.portfolio!);
        const u = await resolveUser(database, values.user!);
        await orgs.grantGuest(db, p.orgId, p.id, u.id);
        print(
          io,
          json,
          { orgId: p.orgId, portfolioId: p.id, userId: u.id },
          `${u.email} is now a guest of portfolio ${p.id}.`,
        );
        return 0;
      }
      case 'key create': {
        need(values, 'user');
        const u = await resolveUser(database, values.user!);
        const k = await createApiKey(db, u.id, values.label);
        if (json) io.out(JSON.stringify({ id: k.id, userId: u.id, apiKey: k.apiKey }));
        else io.out(`Created key ${k.id} for ${u.email}. It is shown only now:\n${k.apiKey}`);
        return 0;
      }
      case 'key revoke': {
        need(values, 'key');
        const ok = await revokeApiKey(db, values.key!);
        if (!ok) throw new UsageError('No live key matches. Pass the key id (key_…) or the key itself.');
        print(io, json, { revoked: true }, 'Key revoked.');
        return 0;
      }
      case 'schema index': {
        need(values, 'org', 'kind', 'id');
        const kinds: RecordKind[] = ['project', 'parcel', 'contact'];
        if (!kinds.includes(values.kind as RecordKind))
          throw new UsageError(`--kind must be one of ${kinds.join(', ')}`);
        await requireOrg(database, values.org!);
        const [schema] = await schemasByKeys(db, [{ orgId: values.org!, kind: values.kind as RecordKind }]);
        const def = schema.byId.get(values.id!);
        if (!def)
          throw new UsageError(
            `No ${values.kind} property "${values.id}" in ${values.org}. GET /${values.kind}s/v1/schema lists them.`,
          );
        const statements = sortIndexSql(`${values.kind as RecordKind}s`, schema, def.id);
        if (!statements.length) {
          throw new UsageError(
            `${def.id} is a ${def.type} property: ${propertyType(def.type)?.sort?.noIndex ?? 'it cannot be sorted'}.`,
          );
        }
        if (!json)
          io.err(`creating ${statements.length} indexes on ${values.kind}s; large tables take a while…`);
        for (const s of statements) await s.execute(db);
        print(
          io,
          json,
          { kind: values.kind, id: def.id, indexes: statements.length },
          `Sort indexes for ${values.kind}s.${def.id} are in place.`,
        );
        return 0;
      }
      case 'schema property': {
        if (c3 !== 'add') throw new UsageError('usage: sdg schema property add … (or sdg schema index …)');
        need(values, 'org', 'kind', 'id', 'name', 'type');
        const kinds: RecordKind[] = ['project', 'parcel', 'contact'];
        if (!kinds.includes(values.kind as RecordKind))
          throw new UsageError(`--kind must be one of ${kinds.join(', ')}`);
        await requireOrg(database, values.org!);
        const options = (values.option ?? []).map((o) => {
          const [id, name, color] = o.split(':');
          if (!id || !name || !color) throw new UsageError(`--option "${o}" must look like id:Name:#rrggbb`);
          return { id, name, color };
        });
        await defineProperty(db, values.org!, values.kind as RecordKind, {
          id: values.id!,
          name: values.name!,
          type: values.type as PropertyTypeName,
          options,
          required: values.required,
        });
        print(
          io,
          json,
          { orgId: values.org, kind: values.kind, id: values.id },
          `Property ${values.id} saved on ${values.kind}s of ${values.org}.`,
        );
        return 0;
      }
      case 'parcels import': {
        const file = c3;
        if (!file)
          throw new UsageError('usage: sdg parcels import FILE.geojson --portfolio PF [--project PRJ]');
        need(values, 'portfolio');
        const p = await requirePortfolio(database, values.portfolio!);
        let geojson: unknown;
        try {
          geojson = JSON.parse(readFileSync(file, 'utf8'));
        } catch (e) {
          throw new UsageError(`Cannot read ${file} as JSON: ${(e as Error).message}`);
        }
        const map: Record<string, string> = {};
        for (const m of values.map ?? []) {
          const [k, v] = m.split('=');
          if (!k || !v) throw new UsageError(`--map "${m}" must look like featureKey=propertyId`);
          map[k] = v;
        }
        const res = await importParcels(db, geojson, {
          orgId: p.orgId,
          portfolioId: p.id,
          projectId: values.project,
          map,
          onProgress: (done, total) => {
            if (!json)
              io.err(
                `${io.tty ? '\r' : ''}imported ${done}/${total} parcels${io.tty ? '' : '\n'}`.replace(
                  /\n$/,
                  '',
                ),
              );
          },
        });
        if (json) io.out(JSON.stringify(res));
        else {
          io.out(
            `\nCreated ${res.created.length} parcels in ${p.id}${res.linkedTo ? `, linked to ${res.linkedTo}` : ''}.`,
          );
          if (res.skippedKeys.length)
            io.out(
              `Skipped feature properties with no matching parcel property: ${res.skippedKeys.join(', ')} (use --map key=propertyId).`,
            );
        }
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${cmd}". Run sdg --help for the list.`);
    }
  } catch (err) {
    const msg =
      err instanceof UsageError
        ? err.message
        : err instanceof AppError
          ? `${err.message}${err.details?.length ? `\n${err.details.map((d) => `  - ${d.field ?? ''}: ${d.reason}`).join('\n')}` : ''}`
          : `unexpected error: ${(err as Error).message}`;
    if (json)
      io.out(
        JSON.stringify({
          error: {
            message: msg,
            ...(err instanceof AppError ? { code: err.code, details: err.details } : {}),
          },
        }),
      );
    else io.err(`sdg: ${msg}`);
    return err instanceof UsageError || err instanceof AppError ? 2 : 1;
  } finally {
    if (!injected) await database.close();
  }
}

async function openDatabase(io: Io, json: boolean): Promise<Database> {
  const cfg = loadConfig();
  const database = await createDatabase({ url: cfg.databaseUrl, dataDir: cfg.dataDir });
  if (!json) io.err(`(database: ${database.describe})`);
  return database;
}
