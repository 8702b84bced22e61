import { closeSync, openSync, statSync } from 'node:fs';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { OrgRole, RecordKind } from '../db/types.js';
import { AppError } from '../errors.js';
import {
  describeProgress,
  describeSummary,
  type FeatureSource,
  formatOf,
  IMPORT_FORMATS,
  type ImportOptions,
  type ImportProgress,
  importParcels,
  KNOWN_EXTENSIONS,
  openFeatureSource,
  type ProgressView,
} from '../modules/imports/index.js';
import * as orgs from '../modules/org/index.js';
import { PROPERTY_TYPE_NAMES, type PropertyTypeName, propertyType } from '../modules/properties/index.js';
import { createPropertyIndexes, groupStatisticsSql, propertyIndexSql } from '../modules/records/index.js';
import { defineProperty, installDefaultProperties, schemasByKeys } from '../modules/schema/index.js';
import * as webhooks from '../modules/webhooks/index.js';
import { newSecret, validateEndpoint } from '../modules/webhooks/index.js';
import { hasDemoData, newDemoKeys, seedDemo } from '../seed/demo.js';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Whether stderr is a terminal (progress bars). */
  tty?: boolean;
}

/** A mistake in how sdg was called: exit code 2 and the message, no stack. */
export class UsageError extends Error {}

/** The parsed options of one call (see OPTIONS in main.ts). */
export interface Options {
  json?: boolean;
  demo?: boolean;
  keys?: boolean;
  required?: boolean;
  admin?: boolean;
  citus?: boolean;
  name?: string;
  org?: string;
  portfolio?: string;
  project?: string;
  user?: string;
  email?: string;
  role?: string;
  label?: string;
  key?: string;
  kind?: string;
  id?: string;
  type?: string;
  option?: string[];
  map?: string[];
  format?: string;
  'geometry-column'?: string;
  source?: string;
  'id-property'?: string;
  'declare-source'?: boolean;
  url?: string;
  event?: string[];
  portfolios?: string;
}

/** What a command checks before any database is opened: its options and the words after it. */
export interface Args {
  io: Io;
  json: boolean;
  values: Options;
  /** Positional words after the command (`parcels import FILE`). */
  rest: string[];
}

/** What a command's work gets: its arguments, and the database. */
export interface Call extends Args {
  database: Database;
  /** The database came from the caller (tests): it is already migrated and stays open. */
  injected: boolean;
  /** The migrations applied when sdg opened the database (none for an injected one). */
  applied: string[];
}

/**
 * A command in two steps. Called with its arguments, it checks them (throwing UsageError or
 * AppError) and returns its work, which runs once the database is open. So a mistake in the call
 * is reported without opening, creating or locking the database, and without the time that takes.
 */
export type Command = (a: Args) => Work | Promise<Work>;
export type Work = (c: Call) => Promise<void>;

function print(c: Call, value: unknown, text: string) {
  c.io.out(c.json ? JSON.stringify(value) : text);
}

/** The named options, or a usage error naming the missing ones. */
function need<K extends keyof Options>(
  values: Options,
  ...names: K[]
): { [P in K]-?: NonNullable<Options[P]> } {
  const missing = names.filter((n) => values[n] === undefined || values[n] === '');
  if (missing.length) throw new UsageError(`missing ${missing.map((m) => `--${m}`).join(', ')}`);
  return values as never;
}

const KINDS: RecordKind[] = ['project', 'parcel', 'contact'];
function kindOf(kind: string): RecordKind {
  if (!KINDS.includes(kind as RecordKind)) throw new UsageError(`--kind must be one of ${KINDS.join(', ')}`);
  return kind as RecordKind;
}

async function resolveUser(c: Call, idOrEmail: string) {
  const u = await orgs.findUser(c.database.db, idOrEmail);
  if (!u) throw new UsageError(`No user "${idOrEmail}". Create one with: sdg user create --email … --name …`);
  return u;
}

async function requireOrg(c: Call, id: string) {
  const [o] = await orgs.orgsByIds(c.database.db, [id]);
  if (!o)
    throw new UsageError(
      `No organization "${id}". List them with GET /organizations/v1, or create one with: sdg org create --name …`,
    );
  return o;
}

async function requirePortfolio(c: Call, id: string) {
  const p = await orgs.findPortfolio(c.database.db, id);
  if (!p)
    throw new UsageError(`No portfolio "${id}". Create one with: sdg portfolio create --org … --name …`);
  return p;
}

const migrate: Command = () => async (c) => {
  // A database sdg opened itself was migrated on opening; an injected one is migrated here.
  const applied = c.injected ? await migrateToLatest(c.database.db, { citus: c.values.citus }) : c.applied;
  const where = c.database.describe;
  print(
    c,
    { applied, database: where },
    applied.length
      ? `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${where}:\n${applied.map((m) => `  ${m}`).join('\n')}`
      : `Database is already up to date (${where}): no migration to apply.`,
  );
};

const seed: Command = ({ values }) => {
  if (!values.demo) throw new UsageError('seed needs --demo (the only data set there is).');
  return values.keys ? demoKeys : seedDemoData;
};

async function seedDemoData(c: Call) {
  if (await hasDemoData(c.database.db)) {
    throw new UsageError(
      'The demo data is already in this database, and its keys were shown when it was created. Lost them? sdg seed --demo --keys prints a fresh key for each demo user.',
    );
  }
  printDemoKeys(c, await seedDemo(c.database.db), 'Demo data created. API keys (shown once):');
}

/**
 * `seed --demo --keys`: a fresh key for each demo user, the one way back to the demo for a reader
 * who lost the keys the first start printed (they are stored only as hashes). The earlier keys stay
 * valid: revoking keys someone may still use is not this command's call. Without demo data, it
 * creates it, which prints keys too.
 */
async function demoKeys(c: Call) {
  if (!(await hasDemoData(c.database.db))) return seedDemoData(c);
  const users = await newDemoKeys(c.database.db);
  printDemoKeys(
    c,
    { users },
    'New API keys for the demo users (shown once; their earlier keys still work, sdg key revoke ends one):',
  );
}

function printDemoKeys(c: Call, out: { users: Record<string, { apiKey: string }> }, title: string) {
  if (c.json) c.io.out(JSON.stringify(out));
  else {
    c.io.out(title);
    for (const [h, u] of Object.entries(out.users)) c.io.out(`  ${h.padEnd(6)} ${u.apiKey}`);
  }
}

const orgCreate: Command = ({ values }) => {
  const { name } = need(values, 'name');
  return async (c) => {
    const o = await c.database.db.transaction().execute(async (tx) => {
      const o = await orgs.createOrg(tx, name);
      await installDefaultProperties(tx, o.id);
      return o;
    });
    print(c, o, `Created organization ${o.id} (${o.name}).`);
  };
};

const portfolioCreate: Command = ({ values }) => {
  const { org, name } = need(values, 'org', 'name');
  return async (c) => {
    await requireOrg(c, org);
    const p = await orgs.createPortfolio(c.database.db, org, name);
    print(c, p, `Created portfolio ${p.id} (${p.name}) in ${p.orgId}.`);
  };
};

const userCreate: Command = ({ values }) => {
  const { email, name } = need(values, 'email', 'name');
  return async (c) => {
    if (await orgs.findUser(c.database.db, email))
      throw new UsageError(`A user with e-mail ${email} already exists.`);
    const u = await orgs.createUser(c.database.db, email, name);
    print(c, u, `Created user ${u.id} (${u.email}).`);
  };
};

const ROLES: OrgRole[] = ['owner', 'admin', 'member', 'viewer'];

const memberAdd: Command = ({ values }) => {
  const { org, user, role } = need(values, 'org', 'user', 'role');
  if (!ROLES.includes(role as OrgRole)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return async (c) => {
    await requireOrg(c, org);
    const u = await resolveUser(c, user);
    await orgs.setMemberRole(c.database.db, 'cli', org, u.id, role, { add: true });
    print(c, { orgId: org, userId: u.id, role }, `${u.email} is now ${role} of ${org}.`);
  };
};

const guestGrant: Command = ({ values }) => {
  const { portfolio, user } = need(values, 'portfolio', 'user');
  return async (c) => {
    const p = await requirePortfolio(c, portfolio);
    const u = await resolveUser(c, user);
    await orgs.grantGuestAccess(c.database.db, 'cli', p.orgId, p.id, u.id);
    print(
      c,
      { orgId: p.orgId, portfolioId: p.id, userId: u.id },
      `${u.email} is now a guest of portfolio ${p.id}.`,
    );
  };
};

const keyCreate: Command = ({ values }) => {
  const { user } = need(values, 'user');
  return async (c) => {
    const u = await resolveUser(c, user);
    const k = await orgs.createUserKey(c.database.db, 'cli', null, u.id, {
      label: c.values.label,
      admin: c.values.admin === true,
    });
    if (c.json) c.io.out(JSON.stringify({ id: k.id, userId: u.id, apiKey: k.apiKey }));
    else c.io.out(`Created key ${k.id} for ${u.email}. It is shown only now:\n${k.apiKey}`);
  };
};

const keyRevoke: Command = ({ values }) => {
  const { key } = need(values, 'key');
  return async (c) => {
    try {
      await orgs.revokeUserKey(c.database.db, 'cli', null, key);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND')
        throw new UsageError('No live key matches. Pass the key id (key_…) or the key itself.');
      throw err;
    }
    print(c, { revoked: true }, 'Key revoked.');
  };
};

const schemaIndex: Command = ({ values }) => {
  const { org, id } = need(values, 'org', 'kind', 'id');
  const kind = kindOf(values.kind!);
  return (c) => propertyIndexes(c, org, kind, id);
};

async function propertyIndexes(c: Call, org: string, kind: RecordKind, id: string) {
  await requireOrg(c, org);
  const [schema] = await schemasByKeys(c.database.db, [{ orgId: org, kind }]);
  const def = schema.byId.get(id);
  if (!def)
    throw new UsageError(`No ${kind} property "${id}" in ${org}. GET /${kind}s/v1/schema lists them.`);
  const table = `${kind}s` as const;
  const indexes = propertyIndexSql(table, schema, def.id);
  const statistics = groupStatisticsSql(table, schema, def.id);
  if (!indexes.length && !statistics) {
    const type = propertyType(def.type);
    const sorts = type?.sort?.noIndex ?? 'it cannot be sorted';
    const groups = type?.aggregate?.group ? 'a record can be in several of its groups' : 'it does not group';
    throw new UsageError(`${def.id} is a ${def.type} property: ${sorts}, and ${groups}. Nothing to create.`);
  }
  if (!c.json && indexes.length)
    c.io.err(`creating ${indexes.length} indexes on ${table}; large tables take a while…`);
  const { renamed } = await createPropertyIndexes(c.database.db, table, schema, def.id, (from, to) => {
    if (!c.json) c.io.err(`renamed ${from} to ${to} (its name before ids were hashed into it)`);
  });
  if (statistics) {
    if (!c.json) c.io.err(`creating statistics for grouping by ${def.id}, then analyzing ${table}…`);
    await statistics.create.execute(c.database.db);
    await statistics.analyze.execute(c.database.db);
  }
  const serves = [
    ...(indexes.length ? ['sorting'] : []),
    ...(indexes.length > 2 ? ['number ranges'] : []),
    ...(statistics ? ['grouped aggregates'] : []),
  ];
  print(
    c,
    { kind, id: def.id, indexes: indexes.length, renamed, statistics: statistics ? 1 : 0 },
    `${[...(indexes.length ? [`${indexes.length} indexes`] : []), ...(statistics ? ['statistics'] : [])].join(' and ')} for ${table}.${def.id} in place: ${serves.join(', ')}.`,
  );
}

const schemaProperty: Command = ({ values, rest }) => {
  if (rest[0] !== 'add') throw new UsageError('usage: sdg schema property add … (or sdg schema index …)');
  const { org, id, name, type } = need(values, 'org', 'kind', 'id', 'name', 'type');
  const kind = kindOf(values.kind!);
  // The one rule of the definition that is the flag's alone; defineProperty checks the rest again.
  if (!propertyType(type))
    throw new AppError('VALIDATION_FAILED', 'The property definition is invalid.', [
      { field: 'type', reason: `must be one of ${PROPERTY_TYPE_NAMES.join(', ')}` },
    ]);
  const options = (values.option ?? []).map((o) => {
    const [id, name, color] = o.split(':');
    if (!id || !name || !color) throw new UsageError(`--option "${o}" must look like id:Name:#rrggbb`);
    return { id, name, color };
  });
  return async (c) => {
    await requireOrg(c, org);
    await defineProperty(c.database.db, org, kind, {
      id,
      name,
      type: type as PropertyTypeName,
      options,
      required: values.required,
    });
    print(c, { orgId: org, kind, id }, `Property ${id} saved on ${kind}s of ${org}.`);
  };
};

const parcelsImport: Command = ({ values, rest }) => {
  const file = rest[0];
  if (!file)
    throw new UsageError(
      'usage: sdg parcels import FILE --portfolio PF [--project PRJ] [--source NAME --id-property KEY [--declare-source]] (FILE: .geojson, .ndjson/.geojsonl/.geojsons or .csv; - for standard input with --format)',
    );
  const { portfolio } = need(values, 'portfolio');
  const map: Record<string, string> = {};
  for (const m of values.map ?? []) {
    const [k, v] = m.split('=');
    if (!k || !v) throw new UsageError(`--map "${m}" must look like featureKey=propertyId`);
    map[k] = v;
  }
  const format = formatOf(file, values.format);
  if (!format)
    throw new UsageError(
      values.format !== undefined
        ? `--format must be one of ${IMPORT_FORMATS.join(', ')}`
        : `Cannot tell the format of ${file} from its name (known endings: ${KNOWN_EXTENSIONS.map((e) => `.${e}`).join(', ')}). Name it with --format ${IMPORT_FORMATS.join('|')}.`,
    );
  if (values['geometry-column'] !== undefined && format !== 'csv')
    throw new UsageError('--geometry-column is for CSV files only.');
  let totalBytes: number | undefined;
  if (file !== '-') {
    try {
      const st = statSync(file);
      if (!st.isFile()) throw new Error('not a file');
      closeSync(openSync(file, 'r'));
      totalBytes = st.size;
    } catch (e) {
      throw new UsageError(`Cannot read ${file}: ${(e as Error).message}`);
    }
  }
  const byId = values.source ?? values['id-property'];
  if (byId !== undefined && (!values.source || !values['id-property']))
    throw new UsageError(
      '--source and --id-property go together: --source names the system the ids come from, --id-property the feature property that holds each id (for example --source county --id-property APN).',
    );
  if (values['declare-source'] && !values.source)
    throw new UsageError('--declare-source declares the --source of the import; give --source too.');
  const match = values.source
    ? {
        source: values.source,
        idProperty: values['id-property']!,
        declareSource: values['declare-source'] === true,
      }
    : undefined;
  const source = openFeatureSource(file, format, totalBytes, { geometryColumn: values['geometry-column'] });
  return (c) => importFile(c, source, portfolio, map, match);
};

async function importFile(
  c: Call,
  source: FeatureSource,
  portfolio: string,
  map: Record<string, string>,
  match: ImportOptions['match'],
) {
  const p = await requirePortfolio(c, portfolio);
  const { io } = c;
  const started = performance.now();
  let last: ImportProgress = { read: 0, written: 0, created: 0, updated: 0, unchanged: 0, problems: 0 };
  const view = (): ProgressView => ({
    ...last,
    bytesRead: source.bytesRead(),
    totalBytes: source.totalBytes,
    elapsedMs: performance.now() - started,
  });
  // On a terminal, one line redrawn after each batch; elsewhere (a log, a pipe) only the summary,
  // which ends the redrawn line before anything else is printed.
  const live = io.tty && !c.json;
  const summary = (committed: boolean) => {
    if (!c.json && last.read) io.err(`${live ? '\n' : ''}${describeSummary(view(), committed)}`);
  };
  let res: Awaited<ReturnType<typeof importParcels>>;
  try {
    res = await importParcels(c.database.db, source, {
      orgId: p.orgId,
      portfolioId: p.id,
      projectId: c.values.project,
      map,
      match,
      keepIds: c.json,
      onProgress: (progress) => {
        last = progress;
        if (live) io.err(`\r${describeProgress(view())}`);
      },
    });
  } catch (err) {
    summary(false);
    throw err;
  }
  summary(true);
  if (c.json) return io.out(JSON.stringify(res));
  const linked = res.linkedTo ? `, linked to ${res.linkedTo}` : '';
  io.out(
    match
      ? `Parcels of ${p.id} by ${match.idProperty} in ${match.source}: ${res.count} created, ${res.updated} updated, ${res.unchanged} unchanged${linked}.`
      : `Created ${res.count} parcels in ${p.id}${linked}.`,
  );
  if (res.skippedKeys.length)
    io.out(
      `Skipped feature properties with no matching parcel property: ${res.skippedKeys.join(', ')} (use --map key=propertyId).`,
    );
}

/** Comma-separated or repeated values, trimmed, empty ones dropped. */
const list = (values: string[] | string | undefined) =>
  (Array.isArray(values) ? values : values ? [values] : [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);

const webhookAdd: Command = async ({ io, json, values }) => {
  const { org, url } = need(values, 'org', 'url');
  const events = list(values.event);
  if (!events.length)
    throw new UsageError('missing --event (for example --event parcel.updated --event project.created)');
  const portfolioIds = list(values.portfolios);
  const allowPrivate = process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS === '1';
  // The URL and the events now; once the database is open, all again with the portfolios, which need it.
  if (!json) io.err(`checking ${url} (resolving its host)…`);
  await validateEndpoint({ url, events }, allowPrivate, async () => true);
  return async (c) => {
    await requireOrg(c, org);
    await validateEndpoint(
      { url, events, portfolioIds },
      allowPrivate,
      async (id) => (await orgs.findPortfolio(c.database.db, id))?.orgId === org,
    );
    await addEndpoint(c, org, url, events, portfolioIds);
  };
};

async function addEndpoint(c: Call, org: string, url: string, events: string[], portfolioIds: string[]) {
  const secret = newSecret();
  const e = await webhooks.insertEndpoint(
    c.database.db,
    {
      orgId: org,
      url,
      events: [...new Set(events)],
      portfolioIds: portfolioIds.length ? [...new Set(portfolioIds)] : null,
      secret,
      createdBy: null,
    },
    loadConfig().webhooks.maxEndpointsPerOrg,
  );
  if (c.json) c.io.out(JSON.stringify({ ...e, secret }));
  else
    c.io.out(
      `Created webhook endpoint ${e.id} for ${e.events.join(', ')} → ${e.url}.\nIts signing secret is shown only now (verify Sdg-Signature with it):\n${secret}`,
    );
}

const webhookList: Command = ({ values }) => {
  const { org } = need(values, 'org');
  return (c) => listEndpoints(c, org);
};

async function listEndpoints(c: Call, org: string) {
  await requireOrg(c, org);
  const all = await webhooks.listEndpoints(c.database.db, org);
  if (c.json) return c.io.out(JSON.stringify(all));
  if (!all.length)
    return c.io.out(
      `No webhook endpoints in ${org}. Add one with: sdg webhook add --org ${org} --url … --event …`,
    );
  for (const e of all)
    c.io.out(
      `${e.id}  ${e.enabled ? 'on ' : 'OFF'}  ${e.url}  ${e.events.join(',')}${e.portfolioIds ? `  portfolios: ${e.portfolioIds.join(',')}` : ''}${e.consecutiveFailures ? `  failures: ${e.consecutiveFailures}` : ''}${e.disabledReason ? `  (${e.disabledReason})` : ''}`,
    );
}

async function requireEndpoint(c: Call, id: string) {
  const e = await webhooks.findEndpointAnywhere(c.database.db, id);
  if (!e) throw new UsageError(`No webhook endpoint "${id}". List them with: sdg webhook list --org …`);
  return e;
}

const webhookRemove: Command = ({ values }) => {
  const { id } = need(values, 'id');
  return async (c) => {
    const e = await requireEndpoint(c, id);
    await webhooks.deleteEndpoint(c.database.db, e.orgId, e.id);
    print(c, { removed: e.id }, `Removed webhook endpoint ${e.id} (${e.url}) and its delivery log.`);
  };
};

const webhookEnable: Command = ({ values }) => {
  const { id } = need(values, 'id');
  return async (c) => {
    const e = await requireEndpoint(c, id);
    await webhooks.enableEndpoint(c.database.db, e.orgId, e.id);
    print(c, { enabled: e.id }, `Webhook endpoint ${e.id} is on again; its pending deliveries go out.`);
  };
};

/** Every command, by its first two words. */
export const COMMANDS: Record<string, Command> = {
  migrate,
  seed,
  'org create': orgCreate,
  'portfolio create': portfolioCreate,
  'user create': userCreate,
  'member add': memberAdd,
  'guest grant': guestGrant,
  'key create': keyCreate,
  'key revoke': keyRevoke,
  'schema index': schemaIndex,
  'schema property': schemaProperty,
  'parcels import': parcelsImport,
  'webhook add': webhookAdd,
  'webhook list': webhookList,
  'webhook remove': webhookRemove,
  'webhook enable': webhookEnable,
};
