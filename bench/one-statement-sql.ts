/**
 * The one-statement floor's SQL (bench/one-statement.ts): each answer is ONE statement in which
 * Postgres builds the whole response text over LATERAL pages (the design Hasura uses, written here
 * as text by concatenation and string_agg), which the server passes to the client without parsing it. The API-key
 * lookup and the access check are folded into the same statement, so a request costs one round trip.
 *
 * The answers are the gateway's, value for value: REST v1 pages (`{ items, nextKey }`) and the
 * nested GraphQL query with raw `properties` (NESTED_PROPERTIES_QUERY in bench/peers-equal.ts).
 * `properties` carries `labels` on select and people values and a project's `location`
 * (src/modules/records/values.ts restPropertiesIn); cursors are the gateway's HMAC-signed ones
 * (src/pagination/cursor.ts), computed here with Postgres's sha256(). `--peers` checks every answer
 * equal to the gateway's before it measures, and bench/test/one-statement-sql.test.ts does on the
 * demo data, so a change to the gateway's answers or schema that the floor misses fails there.
 *
 * Every statement returns one row: `access` ('ok', 'unknown-key' or 'not-found') and `body` (the
 * response text when access is 'ok', else null).
 */
import { createHash } from 'node:crypto';

/**
 * The HMAC-SHA256 key of the cursor secret, as its inner and outer padded blocks (RFC 2104):
 * HMAC(k, m) = sha256(opad || sha256(ipad || m)). Postgres has sha256() but no HMAC, so the server
 * computes these once at start-up and sends them with each statement; the secret never changes.
 */
export function hmacPads(secret: string): { ipad: Buffer; opad: Buffer } {
  let key = Buffer.from(secret, 'utf8');
  if (key.length > 64) key = createHash('sha256').update(key).digest();
  const block = Buffer.alloc(64);
  key.copy(block);
  return {
    ipad: Buffer.from(block.map((b) => b ^ 0x36)),
    opad: Buffer.from(block.map((b) => b ^ 0x5c)),
  };
}

/** base64url without padding (Buffer's 'base64url'); encode() breaks lines every 76 characters. */
const base64url = (bytes: string) => `rtrim(translate(encode(${bytes}, 'base64'), E'+/\\n', '-_'), '=')`;

/**
 * The cursor of a row, as CursorCodec.encode(scope, [sortAt in ms, id]) makes it:
 * base64url(JSON.stringify([ms, id])) + '.' + the first 16 characters of base64url(HMAC(scope \0 payload)).
 * The milliseconds are truncated, as the gateway's Date of the timestamptz is. `$pads` are the
 * statement's parameters holding hmacPads().
 */
function cursorSql(scope: string, sortAt: string, id: string, pads: { ipad: string; opad: string }): string {
  const payload = base64url(
    `convert_to('[' || (extract(epoch from date_trunc('milliseconds', ${sortAt})) * 1000)::bigint || ',' || to_json(${id})::text || ']', 'UTF8')`,
  );
  const mac = `sha256(${pads.opad} || sha256(${pads.ipad} || convert_to(${scope}, 'UTF8') || '\\x00'::bytea || convert_to(z.payload, 'UTF8')))`;
  return `(select z.payload || '.' || left(${base64url(mac)}, 16) from (select ${payload} as payload) z)`;
}

/**
 * The caller and the labels: a CTE list every statement starts with. Parameters: $1 the key's
 * SHA-256 (hex, as api_keys.key_hash holds it), $2 the org, $3 the portfolio.
 */
const PRELUDE = `
with
  -- The key lookup the gateway makes on every request (auth/repository.ts findViewerByHash): the
  -- key's user, and whether they are a member of the org or a guest of the portfolio.
  caller as (
    select u.id as user_id,
      exists (select 1 from org_members m where m.org_id = $2 and m.user_id = u.id) as member,
      exists (select 1 from portfolio_guests g where g.org_id = $2 and g.portfolio_id = $3 and g.user_id = u.id) as guest
    from api_keys k join users u on u.id = k.user_id
    where k.key_hash = $1 and k.revoked_at is null),
  -- findViewerByHash's stamp: last_used_at moves at most once a minute. A data-modifying CTE runs
  -- whether or not it is read; when the stamp is fresh it updates nothing.
  stamp as (
    update api_keys set last_used_at = now()
    where key_hash = $1 and revoked_at is null and (last_used_at is null or last_used_at < now() - interval '60 seconds')
    returning id),
  -- Access as Viewer.canReadPortfolio decides it, for a portfolio that exists in the org.
  access as (
    select case
      when not exists (select 1 from caller) then 'unknown-key'
      when exists (select 1 from caller c where c.member or c.guest)
        and exists (select 1 from portfolios p where p.org_id = $2 and p.id = $3) then 'ok'
      else 'not-found' end as access),
  -- The labels a read adds: option names by property and option id, one map per record kind
  -- (the record kind's schema, as select.ts withLabels reads it), and the names of the org's users
  -- the caller may see (org/service.ts visibleOrgUsers: every member; guests when the caller is a
  -- member, is that guest, or shares one of the guest's portfolios). One row, built once; every page
  -- below reads it by key (jsonb lookups, not joins per value).
  labels as (
    select
      ${(['project', 'contact', 'parcel'] as const)
        .map(
          (
            kind,
          ) => `(select coalesce(jsonb_object_agg(d.id, (select jsonb_object_agg(o ->> 'id', o ->> 'name') from jsonb_array_elements(d.options) o)), '{}')
         from property_defs d where d.org_id = $2 and d.kind = '${kind}' and jsonb_array_length(d.options) > 0) as ${kind}_options`,
        )
        .join(',\n      ')},
      (select coalesce(jsonb_object_agg(u.id, u.name), '{}') from users u
        where u.id in (select m.user_id from org_members m where m.org_id = $2)
          or u.id in (select g.user_id from portfolio_guests g, caller c where g.org_id = $2 and (c.member or g.user_id = c.user_id
            or g.portfolio_id in (select g2.portfolio_id from portfolio_guests g2 where g2.org_id = $2 and g2.user_id = c.user_id)))) as users)`;

/** A constant as an SQL string literal. */
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * JSON text of an object with constant keys, from SQL expressions that are JSON texts (never null):
 * `'{"a":' || x || ',"b":' || y || '}'`. The answer is written as text, by concatenation, rather
 * than with json_build_object, which looks up how to write each argument's type on every call.
 */
function object(fields: [string, string][]): string {
  const parts = fields.map(
    ([key, value], i) => `${lit(`${i ? ',' : '{'}${JSON.stringify(key)}:`)} || ${value}`,
  );
  return `(${parts.join(' || ')} || '}')`;
}

/** A text as a JSON string (to_json escapes it). */
const str = (text: string) => `to_json(${text})::text`;

/**
 * The `labels` of a select or people value `v` (jsonb), names from the jsonb map `names`: the
 * option's or user's name, else the id itself. A value holds one id but for multi-selects, and one
 * id needs no sub-select.
 */
function labelsSql(v: string, names: (id: string) => string): string {
  const one = `(${v} ->> 0)`;
  return `case when jsonb_array_length(${v}) = 1 then '[' || ${str(`coalesce(${names(one)}, ${one})`)} || ']'
      else coalesce((select '[' || string_agg(${str(`coalesce(${names('s')}, s)`)}, ',') || ']' from jsonb_array_elements_text(${v}) s), '[]') end`;
}

/**
 * A record's `properties` as REST v1 and the GraphQL field answer it, as JSON text: each stored
 * value as it is, select and people values with `labels`, and a project's `location` last.
 * string_agg keeps the stored order: its rows come from one function scan, unsorted.
 */
function propertiesSql(kind: 'project' | 'contact' | 'parcel', r: string): string {
  const entries =
    kind === 'project'
      ? `(select key, value from jsonb_each(${r}.properties)
          union all select 'location', jsonb_build_object('location', ${r}.location) where ${r}.location is not null) e`
      : `jsonb_each(${r}.properties) e`;
  const select = `e.value -> 'select'`;
  const people = `e.value -> 'people'`;
  return `coalesce((select '{' || string_agg(${str('e.key')} || ':' || case
      when e.value ? 'select' then '{"select":' || (${select})::text || ',"labels":' || ${labelsSql(select, (id) => `lab.${kind}_options -> e.key ->> ${id}`)} || '}'
      when e.value ? 'people' then '{"people":' || (${people})::text || ',"labels":' || ${labelsSql(people, (id) => `lab.users ->> ${id}`)} || '}'
      else e.value::text end, ',') || '}'
    from ${entries}), '{}')`;
}

/** A REST item's timestamp as the gateway writes a DateTime, as a JSON string: ISO 8601, milliseconds, Z. */
const isoSql = (t: string) =>
  `'"' || to_char(${t} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`;

/**
 * The pages, as the gateway's pagesFor reads them (bench/baseline-sql.ts pagesSql): keyset order,
 * one row more than asked, to know whether there is a next page. `n` is an SQL expression.
 */
const projectsPage = (n: string, after = `('-infinity'::timestamptz, '')`) => `
  select c.id, c.properties, c.location, c.created_at, c.updated_at, c.created_at as sort_at
  from projects c
  where c.org_id = $2 and c.portfolio_id = $3 and (c.created_at, c.id) > ${after}
  order by c.created_at, c.id limit ${n} + 1`;

const linkedPage = (
  link: string,
  child: string,
  parentCol: string,
  childCol: string,
  parentId: string,
  n: string,
) => `
  select c.id, c.properties, l.linked_at as sort_at
  from ${link} l join ${child} c on c.org_id = $2 and c.id = l.${childCol}
  where l.org_id = $2 and l.${parentCol} = ${parentId}
  order by l.linked_at, l.${childCol} limit ${n} + 1`;

/**
 * The rows of a page, numbered in their order, each knowing how many came (n + 1 means a next
 * page). Row numbers decide which rows are nodes (the first n) and which one carries the cursor
 * (the last node): only that one's cursor is computed, and only the nodes' children are read, since
 * a CASE evaluates its subqueries only for the rows that take its branch.
 */
const numbered = (page: string, as: string) =>
  `(select p.*, row_number() over () as rn, count(*) over () as total from (${page}) p) ${as}`;

/**
 * A GraphQL connection `{ pageInfo { hasNextPage endCursor } nodes }` as JSON text. The aggregate reads
 * the numbered rows in page order (no sort between them), so string_agg keeps it; `--peers` and the
 * test check the order against the gateway's. `as` names the level's rows: each level has its own
 * name, so a child's page and scope can name its parent's row.
 */
function connectionSql(
  page: string,
  n: string,
  scope: string,
  as: string,
  node: (r: string) => string,
  pads: { ipad: string; opad: string },
): string {
  return `(select ${object([
    [
      'pageInfo',
      object([
        ['hasNextPage', `(count(*) > ${n})::text`],
        ['endCursor', `coalesce('"' || max(x.cursor) || '"', 'null')`],
      ]),
    ],
    ['nodes', `coalesce('[' || string_agg(x.node, ',') filter (where x.rn <= ${n}) || ']', '[]')`],
  ])}
    from (select ${as}.rn,
        case when ${as}.rn <= ${n} then ${node(as)} end as node,
        case when ${as}.rn = least(${as}.total, ${n}) then ${cursorSql(scope, `${as}.sort_at`, `${as}.id`, pads)} end as cursor
      from ${numbered(page, as)}) x)`;
}

/**
 * The nested query with raw properties: portfolio → projects(first: $4) → contacts(first: $5) →
 * parcels(first: $6), each level a connection with its cursors, as the gateway answers
 * NESTED_PROPERTIES_QUERY. Parameters: $1 key hash, $2 org, $3 portfolio, $4–$6 the page sizes,
 * $7 and $8 the HMAC pads.
 */
export const NESTED_SQL = (() => {
  const pads = { ipad: '$7::bytea', opad: '$8::bytea' };
  const parcels = (contact: string) =>
    connectionSql(
      linkedPage('parcel_contacts', 'parcels', 'contact_id', 'parcel_id', `${contact}.id`, '$6::int'),
      '$6::int',
      `'contact-parcels:' || ${contact}.id`,
      'parcel',
      (r) =>
        object([
          ['id', str(`${r}.id`)],
          ['properties', propertiesSql('parcel', r)],
        ]),
      pads,
    );
  const contacts = (project: string) =>
    connectionSql(
      linkedPage('project_contacts', 'contacts', 'project_id', 'contact_id', `${project}.id`, '$5::int'),
      '$5::int',
      `'project-contacts:' || ${project}.id`,
      'contact',
      (r) =>
        object([
          ['id', str(`${r}.id`)],
          ['properties', propertiesSql('contact', r)],
          ['parcels', parcels(r)],
        ]),
      pads,
    );
  const projects = connectionSql(
    projectsPage('$4::int'),
    '$4::int',
    `'portfolio-projects:' || $3`,
    'project',
    (r) =>
      object([
        ['id', str(`${r}.id`)],
        ['properties', propertiesSql('project', r)],
        ['contacts', contacts(r)],
      ]),
    pads,
  );
  return `${PRELUDE}
  select a.access, case when a.access = 'ok' then (
    select '{"data":{"organization":{"portfolio":{"projects":' || ${projects} || '}}}}'
    from labels lab) end as body
  from access a`;
})();

/**
 * A REST v1 page of projects, `{ items, nextKey }`: GET /projects/v1 with limit $4, after the row
 * ($5, $6) that the startKey names (-infinity and '' for the first page; the server verifies the
 * cursor's signature before it asks). Parameters: $1 key hash, $2 org, $3 portfolio, $7 and $8 the
 * HMAC pads.
 */
export const PAGE_SQL = (() => {
  const pads = { ipad: '$7::bytea', opad: '$8::bytea' };
  const n = '$4::int';
  const item = (r: string) =>
    object([
      ['id', str(`${r}.id`)],
      ['properties', propertiesSql('project', r)],
      ['created_at', isoSql(`${r}.created_at`)],
      ['updated_at', isoSql(`${r}.updated_at`)],
    ]);
  const page = `(select ${object([
    ['items', `coalesce('[' || string_agg(x.item, ',') filter (where x.rn <= ${n}) || ']', '[]')`],
    ['nextKey', `coalesce('"' || max(x.cursor) || '"', 'null')`],
  ])}
    from (select r.rn,
        case when r.rn <= ${n} then ${item('r')} end as item,
        case when r.rn = ${n} and r.total > ${n} then ${cursorSql(`'portfolio-projects:' || $3`, 'r.sort_at', 'r.id', pads)} end as cursor
      from ${numbered(projectsPage(n, '($5::timestamptz, $6::text)'), 'r')}) x)`;
  return `${PRELUDE}
  select a.access, case when a.access = 'ok' then (select ${page} from labels lab) end as body
  from access a`;
})();

export type Access = 'ok' | 'unknown-key' | 'not-found';

type Pads = { ipad: Buffer; opad: Buffer };

/** NESTED_SQL's parameters, in their order. */
export const nestedValues = (
  keyHash: string,
  orgId: string,
  portfolioId: string,
  sizes: { projects: number; contacts: number; parcels: number },
  pads: Pads,
): unknown[] => [
  keyHash,
  orgId,
  portfolioId,
  sizes.projects,
  sizes.contacts,
  sizes.parcels,
  pads.ipad,
  pads.opad,
];

/**
 * PAGE_SQL's parameters, in their order. `after` is the startKey's (verified) bound: its time as
 * an ISO string and its id; none for the first page.
 */
export const pageValues = (
  keyHash: string,
  orgId: string,
  portfolioId: string,
  limit: number,
  after: [string, string] | undefined,
  pads: Pads,
): unknown[] => [keyHash, orgId, portfolioId, limit, ...(after ?? ['-infinity', '']), pads.ipad, pads.opad];
