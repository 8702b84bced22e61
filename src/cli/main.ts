import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { DataFolderInUse, describeHolder } from '../db/data-lock.js';
import { createDatabase, type Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { AppError } from '../errors.js';
import { PROPERTY_TYPE_NAMES } from '../modules/properties/index.js';
import { WEBHOOK_EVENTS } from '../modules/webhooks/index.js';
import { COMMANDS, type Io, type Options, UsageError, type Work } from './commands.js';

export type { Io };

const HELP = `sdg — administer the Solar Data Gateway

Usage: sdg <command> [options]   (every command takes --json for scripts, and --help)

Commands:
  migrate [--citus]                         apply pending database migrations and list them (--citus:
                                            create the citus extension first and distribute;
                                            detected anyway)
  seed --demo [--keys]                      create the demo organizations, users, keys and data;
                                            --keys: a fresh key for each demo user (lost keys)
  org create --name NAME                    create an organization (with the default properties)
  portfolio create --org ORG --name NAME    create a portfolio
  user create --email EMAIL --name NAME     create a user
  member add --org ORG --user USER --role ROLE
                                            make a user a member (role: owner, admin, member, viewer)
  guest grant --portfolio PF --user USER    give a user guest access to one portfolio
  key create --user USER [--label TEXT] [--admin]
                                           create an API key (shown once); --admin may send
                                           ad-hoc GraphQL documents under GRAPHQL_TRUSTED_DOCUMENTS
  key revoke --key KEY_ID_OR_KEY            revoke an API key
  schema property add --org ORG --kind KIND --id ID --name NAME --type TYPE
                      [--option id:Name:#rrggbb ...] [--required]
                                            add or replace a property (kind: project, parcel, contact)
  schema index --org ORG --kind KIND --id ID
                                            create the indexes that make GraphQL orderBy on a
                                            text/number/date property, and a number's range
                                            filters and their totalCount, fast on large portfolios;
                                            for select/people/checkbox, the statistics that let
                                            groupedAggregates by it run in parallel
  parcels import FILE --portfolio PF [--project PRJ] [--map featureKey=propertyId ...]
                 [--format geojson|ndjson|csv] [--geometry-column NAME]
                 [--source NAME --id-property KEY [--declare-source]]
                                            create (or, by external id, update) parcels from GeoJSON,
                                            newline-delimited GeoJSON or CSV, streamed
                                            (sdg parcels import --help)
  webhook add --org ORG --url URL --event EVENT [--event EVENT ...] [--portfolios PF,PF]
                                            register a signed webhook endpoint (secret shown once)
  webhook list --org ORG                    list an organization's endpoints and their state
  webhook remove --id WHK                   remove an endpoint and its delivery log
  webhook enable --id WHK                   turn on an endpoint disabled after repeated failures

USER is a user id (usr_…) or an e-mail address.
The database is DATABASE_URL when set, else embedded PGlite in SDG_DATA_DIR (default ./.data/pglite).
A PGlite folder is open to one process at a time: stop the server before running sdg on it.
Exit codes: 0 done, 2 a mistake in the call or the data, 3 the data folder is in use, 1 anything else.`;

const COMMAND_HELP: Record<string, string> = {
  'webhook add': `sdg webhook add --org ORG --url URL --event EVENT [--event EVENT ...] [--portfolios PF,PF] [--json]

Registers an endpoint that gets a signed POST for each change it asks for, at least once.
EVENT is ${WEBHOOK_EVENTS.join(', ')}
(repeat --event or separate with commas). --portfolios limits record changes to those portfolios.
The URL's host is resolved and refused when any address is loopback, link-local or private,
unless WEBHOOK_ALLOW_PRIVATE_TARGETS=1. The signing secret is printed once; keep it with the
receiver, which checks the Sdg-Signature header with it (docs/changes.md shows how).`,
  'parcels import': `sdg parcels import FILE --portfolio PF [--project PRJ] [--map featureKey=propertyId ...]
    [--format geojson|ndjson|csv] [--geometry-column NAME]
    [--source NAME --id-property KEY [--declare-source]] [--json]

Creates one parcel per feature (Polygon or MultiPolygon); with --source, creates or updates. FILE is read as a stream, so it may be
of any size; - reads standard input (then --format is needed). The format follows the file's ending:
  .geojson .json                   a GeoJSON FeatureCollection
  .ndjson .geojsonl .geojsons .jsonl
                                   one GeoJSON Feature per line
  .csv                             a header row, then one parcel per row: the geometry column
                                   (geometry, geom, the_geom, wkt, shape or geojson, or
                                   --geometry-column NAME) holds WKT POLYGON/MULTIPOLYGON or a
                                   GeoJSON geometry; every other column is a feature property
Feature properties are matched to the org's parcel properties by id, then by name
(case-insensitive), then by --map. Select values may be option ids or option names; empty values
are left unset. Parcels are checked and written 1,000 at a time in one transaction, by the service
of the API's upsertParcels (the same checks and messages): on any problem nothing is imported, and
every problem is listed (the first 100) by feature index or line.
--source NAME --id-property KEY: each feature's KEY property is its parcel's id in the external id
source NAME. A feature whose id the source already has updates that parcel, or leaves it untouched
(no write, no change-log entry) when nothing differs; any other feature creates a parcel and gives
it the id, so importing the next roll of the same system updates it in place. The counts of
created, updated and unchanged parcels are printed. An undeclared source is refused, unless
--declare-source declares it with the import. Without --source, every feature creates a parcel.
With --project, the file's parcels are linked to the project and its location is recomputed.
On a terminal a progress line shows features read and written, the rate and the share of the file;
elsewhere only a summary is printed at the end.`,
  'schema property add': `sdg schema property add --org ORG --kind project|parcel|contact --id ID --name NAME --type TYPE
    [--option id:Name:#rrggbb ...] [--required] [--json]

TYPE is one of: ${PROPERTY_TYPE_NAMES.join(', ')}. select and multi_select need --option, e.g.
  --option active:Active:#22c55e --option lost:Lost:#ef4444`,
};

const OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  demo: { type: 'boolean', default: false },
  keys: { type: 'boolean', default: false },
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
  admin: { type: 'boolean', default: false },
  map: { type: 'string', multiple: true },
  format: { type: 'string' },
  'geometry-column': { type: 'string' },
  source: { type: 'string' },
  'id-property': { type: 'string' },
  'declare-source': { type: 'boolean', default: false },
  citus: { type: 'boolean', default: false },
  url: { type: 'string' },
  event: { type: 'string', multiple: true },
  portfolios: { type: 'string' },
} as const;

/**
 * Exit codes: 0 done; 2 a mistake in the call or the data (UsageError, AppError); 3 the PGlite data
 * folder is in use by another process (try again once it is stopped); 1 anything else.
 */
export const EXIT_IN_USE = 3;

/**
 * Runs one CLI command. Returns the exit code; never calls process.exit, so tests can run it in-process.
 * The arguments are checked before the database is opened: a mistake costs no start-up, creates no
 * data folder and needs no lock on one.
 */
export async function runCli(argv: string[], io: Io, injected?: Database): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (err) {
    // An unknown flag, a value missing after a flag, a flag that takes none given one.
    report(
      io,
      argv.includes('--json'),
      new UsageError(`${(err as Error).message}. Run sdg --help for usage.`),
    );
    return 2;
  }
  const { values, positionals } = parsed;
  const json = values.json;
  const [c1, c2, ...rest] = positionals;
  const cmd = positionals.slice(0, 3).join(' ');
  if (!c1 || values.help) {
    const specific = Object.keys(COMMAND_HELP).find((k) => cmd.startsWith(k));
    io.out(specific ? COMMAND_HELP[specific] : HELP);
    return 0;
  }
  const name = `${c1} ${c2 ?? ''}`.trim();
  const args = { io, json, values: values as Options, rest };
  let work: Work;
  let database: Database;
  try {
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`unknown command "${cmd}". Run sdg --help for the list.`);
    checkFlags(name, values);
    work = await command(args);
    database = injected ?? (await openDatabase(io, json, name));
  } catch (err) {
    if (err instanceof DataFolderInUse) {
      report(io, json, new UsageError(inUseMessage(err, name)));
      return EXIT_IN_USE;
    }
    report(io, json, err);
    return exitCode(err);
  }
  try {
    const applied = injected ? [] : await migrateToLatest(database.db, { citus: values.citus });
    await work({ ...args, database, injected: !!injected, applied });
    return 0;
  } catch (err) {
    report(io, json, err);
    return exitCode(err);
  } finally {
    if (!injected) await database.close();
  }
}

/** Flags every command takes. */
const EVERY_COMMAND = ['json', 'help', 'citus'];

/**
 * The flags each command takes. A flag another command takes would be accepted by the parser and
 * then ignored (`user create --role owner` makes no owner), so it is refused instead.
 */
export const COMMAND_FLAGS: Record<string, readonly string[]> = {
  migrate: [],
  seed: ['demo', 'keys'],
  'org create': ['name'],
  'portfolio create': ['org', 'name'],
  'user create': ['email', 'name'],
  'member add': ['org', 'user', 'role'],
  'guest grant': ['portfolio', 'user'],
  'key create': ['user', 'label', 'admin'],
  'key revoke': ['key'],
  'schema index': ['org', 'kind', 'id'],
  'schema property': ['org', 'kind', 'id', 'name', 'type', 'option', 'required'],
  'parcels import': [
    'portfolio',
    'project',
    'map',
    'format',
    'geometry-column',
    'source',
    'id-property',
    'declare-source',
  ],
  'webhook add': ['org', 'url', 'event', 'portfolios'],
  'webhook list': ['org'],
  'webhook remove': ['id'],
  'webhook enable': ['id'],
};

function checkFlags(command: string, values: Record<string, unknown>): void {
  const takes = COMMAND_FLAGS[command];
  if (!takes) return;
  const given = Object.keys(values).filter((k) => values[k] !== undefined && values[k] !== false);
  const foreign = given.filter((k) => !takes.includes(k) && !EVERY_COMMAND.includes(k));
  if (foreign.length)
    throw new UsageError(
      `${command} does not take ${foreign.map((f) => `--${f}`).join(', ')} (${takes.length ? `it takes ${takes.map((f) => `--${f}`).join(', ')}` : 'it takes no flags of its own'}). Run sdg --help for usage.`,
    );
}

const parseOptions = (argv: string[]) =>
  parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });

const exitCode = (err: unknown) => (err instanceof UsageError || err instanceof AppError ? 2 : 1);

const OWNER = "an organization owner's API key";
const MANAGER = "an organization owner's or admin's API key (docs/admin.md)";

/**
 * What the server's GraphQL API does of a command's work, for the commands it has, and whose key
 * may. `user create` has none: a user comes into being over the API only by an invitation to an
 * organization.
 */
const IN_THE_API: Record<string, { api: string; key: string }> = {
  'webhook add': { api: 'mutation createWebhookEndpoint', key: OWNER },
  'webhook list': { api: 'query webhookEndpoints', key: OWNER },
  'webhook remove': { api: 'mutation deleteWebhookEndpoint', key: OWNER },
  'webhook enable': { api: 'mutation enableWebhookEndpoint', key: OWNER },
  'member add': { api: 'mutation inviteUser (setMemberRole for a member already there)', key: MANAGER },
  'guest grant': { api: 'mutation grantGuestAccess', key: MANAGER },
  'key create': { api: 'mutation createApiKey', key: MANAGER },
  'key revoke': { api: 'mutation revokeApiKey', key: MANAGER },
  'schema property': { api: 'mutation createProperty (and the other property mutations)', key: MANAGER },
};

/**
 * The refusal of a data folder another process holds: who holds it, why sdg does not open it anyway,
 * and the ways on. Nothing was opened, so nothing was changed.
 */
export function inUseMessage(err: DataFolderInUse, command: string): string {
  const h = err.holder;
  if (err.reason === 'other-host') return err.lead;
  const lines = [
    err.lead,
    'Embedded PGlite lets one process at a time open a data folder (a second one corrupts it), so sdg did not open it and changed nothing.',
  ];
  if (h.holder !== 'server') {
    lines.push(`Wait until ${describeHolder(h)} has finished, then run this command again.`);
    return lines.join('\n');
  }
  const inApi = IN_THE_API[command];
  const stop = `stop the server (Ctrl-C in its terminal, or kill ${h.pid}), run this command again, then start the server again`;
  if (inApi)
    lines.push(
      'To go on, either:',
      `  - ${stop}; or`,
      `  - with the server running, do it through its GraphQL API${h.url ? ` at ${h.url}/graphql` : ''}: ${inApi.api}, with ${inApi.key} (docs/cli.md#while-the-server-runs).`,
    );
  else
    lines.push(
      `To go on, ${stop}.`,
      `The server's API has no way to do what \`sdg ${command}\` does. On Postgres (DATABASE_URL) instead of PGlite, sdg and the server can run at the same time (docs/cli.md#while-the-server-runs).`,
    );
  return lines.join('\n');
}

/** A failure as the caller asked for it: a JSON error object, or a line on stderr. */
function report(io: Io, json: boolean, err: unknown): void {
  const msg =
    err instanceof UsageError
      ? err.message
      : err instanceof AppError
        ? `${err.message}${err.details?.length ? `\n${err.details.map((d) => `  - ${d.field ?? ''}: ${d.reason}`).join('\n')}` : ''}`
        : `unexpected error: ${(err as Error).message}`;
  if (json)
    io.out(
      JSON.stringify({
        error: { message: msg, ...(err instanceof AppError ? { code: err.code, details: err.details } : {}) },
      }),
    );
  else io.err(`sdg: ${msg}`);
}

async function openDatabase(io: Io, json: boolean, command: string): Promise<Database> {
  const cfg = loadConfig();
  const database = await createDatabase({
    url: cfg.databaseUrl,
    dataDir: cfg.dataDir,
    holder: `sdg ${command}`,
  });
  if (database.dataLock?.tookOver) io.err(`(${database.dataLock.tookOver})`);
  if (!json) io.err(`(database: ${database.describe})`);
  return database;
}
