/**
 * The raw floor's SQL (bench/baseline.ts): the texts the gateway sends, as Kysely compiles them,
 * with positional parameters. test/unit/baseline-sql.test.ts compiles the gateway's statements and
 * holds these to them, so a change to the gateway's SQL cannot leave the floor measuring another.
 */
export type Kind = 'project' | 'parcel' | 'contact';
export const TABLE: Record<Kind, string> = { project: 'projects', parcel: 'parcels', contact: 'contacts' };

export const AUTH_SQL = `
    /* sdg:cross-tenant */
    select k.id as key_id, (k.last_used_at is null or k.last_used_at < now() - $1::interval) as stale,
      u.id, u.email, u.name, k.admin,
      coalesce((select json_agg(json_build_object('org', m.org_id, 'role', m.role)) from org_members m where m.user_id = u.id), '[]') as roles,
      coalesce((select json_agg(json_build_object('org', g.org_id, 'portfolio', g.portfolio_id)) from portfolio_guests g where g.user_id = u.id), '[]') as guest,
      coalesce((select json_object_agg(v.org_id, v.version) from org_versions v where v.org_id in (
        select m.org_id from org_members m where m.user_id = u.id
        union select g.org_id from portfolio_guests g where g.user_id = u.id)), '{}') as versions
    from api_keys k join users u on u.id = k.user_id
    where k.key_hash = $2 and k.revoked_at is null`;

/** findViewerByHash's second statement, sent only when the key's stamp is a minute old. */
export const STAMP_SQL = `update api_keys set last_used_at = now()
    where id = $1 and (last_used_at is null or last_used_at < now() - $2::interval)`;

export const PORTFOLIOS_SQL =
  'select "org_id", "id", "name", "created_at" from "portfolios" where "org_id" = $1 order by "created_at", "id"';

const placeholders = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');

export const SCHEMA_SQL = (kinds: number) =>
  `select * from "property_defs" where "org_id" in ($1) and "kind" in (${placeholders(2, kinds)}) order by "position", "id"`;

export const ORG_USERS_SQL = `
    select u.id, u.email, u.name, m.role, null::text[] as portfolio_ids from org_members m join users u on u.id = m.user_id
    where m.org_id = $1
    union all
    select u.id, u.email, u.name, 'guest', array_agg(g.portfolio_id order by g.portfolio_id) from portfolio_guests g join users u on u.id = g.user_id
    where g.org_id = $2 and not exists (select 1 from org_members m2 where m2.org_id = $3 and m2.user_id = g.user_id)
    group by u.id, u.email, u.name
    order by name, id`;

export interface ListSql {
  child: Kind;
  link?: { table: string; parentCol: string; childCol: string };
  parentCol: string;
}
export const LIST: Record<'portfolio-projects' | 'project-contacts' | 'contact-parcels', ListSql> = {
  'portfolio-projects': { child: 'project', parentCol: 'portfolio_id' },
  'project-contacts': {
    child: 'contact',
    parentCol: 'project_id',
    link: { table: 'project_contacts', parentCol: 'project_id', childCol: 'contact_id' },
  },
  'contact-parcels': {
    child: 'parcel',
    parentCol: 'contact_id',
    link: { table: 'parcel_contacts', parentCol: 'contact_id', childCol: 'parcel_id' },
  },
};

/** The columns the gateway's record reads take: a project's location, a parcel's acres. */
const KIND_COLUMNS: Record<Kind, string> = { project: ', "c".location', parcel: ', "c".acres', contact: '' };
const cols = (kind: Kind) =>
  `"c".org_id, "c".portfolio_id, "c".id, "c".properties, "c".created_at, "c".updated_at${KIND_COLUMNS[kind]}`;

/**
 * pagesFor's statement (plain order, no filter): the parents with their bounds as unnested arrays
 * ($1–$5), each LATERAL-joined to its page. The org is a constant of its own for each use ($6, and
 * $7 on a link list), so that Citus reads the distribution value from the statement.
 */
export function pagesSql(list: ListSql): string {
  const inner = list.link
    ? `
      select ${cols(list.child)}, l.linked_at as sort_at, l.linked_at as linked_at
      from "${list.link.table}" l join "${TABLE[list.child]}" c on c.org_id = $6::text and c.id = "l"."${list.link.childCol}"
      where l.org_id = $7::text and "l"."${list.link.parentCol}" = p.parent_id and (l.linked_at, "l"."${list.link.childCol}") > (p.b0, p.b1)
      order by l.linked_at asc, "l"."${list.link.childCol}" asc limit p.lim`
    : `
      select ${cols(list.child)}, c.created_at as sort_at, null::timestamptz as linked_at
      from "${TABLE[list.child]}" c where c.org_id = $6::text and c."${list.parentCol}" = p.parent_id and (c.created_at, c.id) > (p.b0, p.b1)
      order by c.created_at asc, c.id asc limit p.lim`;
  return `
    select p.ord, x.* from unnest($1::int[], $2::text[], $3::timestamptz[], $4::text[], $5::int[]) as p(ord, parent_id, b0, b1, lim)
    cross join lateral (${inner}) x`;
}
