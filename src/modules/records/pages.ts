import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context.js';
import { AppError } from '../../errors.js';
import { type ConnectionArgs, pageWindow } from '../../pagination/connection.js';
import { namesUsers, PROPERTY_TYPES, propertyType } from '../properties/index.js';
import {
  asksCount,
  checkboxLabel,
  type GroupedArgs,
  listAggregates,
  listGroupedAggregates,
} from './aggregate.js';
import { compileListQuery, type QueryArgs, type RecordQuery } from './filter.js';
import { LISTS, type ListName } from './lists.js';
import type { ListCount, PageRequest, PageRow } from './repository.js';
import type {
  AggregatesModel,
  ConnectionModel,
  EdgeModel,
  FacetModel,
  GroupsModel,
  PageInfoModel,
  RecordModel,
} from './types.js';
import { peopleOf, recordReads } from './values.js';

/** "select, multi_select, people or checkbox": the types with facets, for messages. */
const FACETED = PROPERTY_TYPES.filter((t) => t.facet)
  .map((t) => t.name)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/**
 * One page of a list (a portfolio's records or a link side) as a Relay connection, for a resolver.
 * The parent has already been access-checked by the caller. The page loader batches (and dedupes)
 * it with every other field's page of the same tick, and its records are handed to the record
 * loaders, where a later `node(id)` or field of the same request finds them. With the field's
 * `info`, a selection that asks for totalCount starts its count with the page (pagesOf).
 */
export async function listPage(
  ctx: Context,
  list: ListName,
  orgId: string,
  parentId: string,
  args: ConnectionArgs & QueryArgs,
  info?: GraphQLResolveInfo,
): Promise<ConnectionModel> {
  const counts = info ? asksCount(info) : false;
  const [page] = await pagesOf(ctx, list, orgId, [parentId], args, FOR_RESOLVERS, counts);
  return page;
}

/**
 * The same page of many parents' lists of one organization, in the parents' order: what a plan
 * (src/graphql/plan) asks for, one level of its query at a time. The caller has already checked
 * access to the parents. Against listPage per parent, it saves each parent's own async call, query
 * compilation and reads of the schema and users.
 */
export function levelPages(
  ctx: Context,
  list: ListName,
  orgId: string,
  parentIds: readonly string[],
  args: ConnectionArgs & QueryArgs,
  counts = false,
): Promise<ConnectionModel[]> {
  return pagesOf(ctx, list, orgId, parentIds, args, FOR_A_LEVEL, counts);
}

/** How pagesOf fetches its rows, and whether the record loaders get its records. */
interface Fetching {
  rows(ctx: Context, reqs: PageRequest[]): Promise<PageRow[][]>;
  primesRecordLoaders: boolean;
}

/** listPage's: through the page loader, with the records primed for later fields. */
const FOR_RESOLVERS: Fetching = {
  rows: (ctx, reqs) => Promise.all(reqs.map((r) => ctx.loaders.page.load(r))),
  primesRecordLoaders: true,
};

/**
 * levelPages': a plan asks for a whole level at once and reads nothing else of the request, so the
 * level goes to the page statement as one batch, without a page-loader key per parent, and no
 * record is handed to the record loaders.
 */
const FOR_A_LEVEL: Fetching = {
  rows: (ctx, reqs) => ctx.loaders.level(reqs),
  primesRecordLoaders: false,
};

async function pagesOf(
  ctx: Context,
  list: ListName,
  orgId: string,
  parentIds: readonly string[],
  args: ConnectionArgs & QueryArgs,
  fetching: Fetching,
  counts: boolean,
): Promise<ConnectionModel[]> {
  const w = pageWindow(args);
  const query = await compileListQuery(ctx, LISTS[list].childKind, orgId, args);
  // A cursor names its list, parent and query: replayed under another filter, order or search it
  // is refused (INVALID_CURSOR) rather than silently skipping or repeating rows.
  const scopes = parentIds.map((id) => (query.sig ? `${list}:${id}:${query.sig}` : `${list}:${id}`));
  const reqs =
    w.size === 0
      ? undefined
      : parentIds.map(
          (parentId, i): PageRequest => ({
            list,
            orgId,
            parentId,
            limit: w.size + 1,
            direction: w.direction,
            query,
            bound: w.cursor ? decodeBound(ctx, scopes[i], w.cursor, query) : undefined,
          }),
        );
  // Asked for, the counts start now, on a connection of their own, instead of after the page: a
  // filtered count at county scale takes as long as the page. Caught here too, so that a count no
  // one reads (the page failed) is not an unhandled rejection; totalCount still gets its error.
  const counting = counts
    ? parentIds.map((parentId) => {
        const c = ctx.loaders.count.load({ list, orgId, parentId, query });
        c.catch(() => {});
        return c;
      })
    : undefined;
  const loaded = reqs ? await fetching.rows(ctx, reqs) : undefined;
  const record = fetching.primesRecordLoaders ? ctx.loaders.record : undefined;
  let named = false;
  const pages = parentIds.map((parentId, i) => {
    const rows = loaded?.[i] ?? [];
    const more = rows.length > w.size;
    // Equal requests share one array of rows: a page that trims or reverses it takes a copy.
    const pageRows = more || w.direction === 'backward' ? rows.slice(0, w.size) : rows;
    if (w.direction === 'backward') pageRows.reverse();
    const cursors = new PageCursors(ctx, scopes[i]);
    const edges: Edge[] = [];
    for (const r of pageRows) {
      record?.[r.record.kind].prime(r.record.id, r.record);
      named ||= namesUsers(r.record.properties);
      edges.push(new Edge(cursors, r));
    }
    return new Connection(
      edges,
      new PageInfo(
        edges,
        w.direction === 'forward' ? more : !!w.cursor,
        w.direction === 'backward' ? more : !!w.cursor,
      ),
      { ctx, list, orgId, parentId, query },
      counting?.[i],
    );
  });
  // What every record's `properties` and `values` read, loaded once for the page: the records'
  // resolvers then wait for nothing (values.ts recordReads).
  if (pages.some((p) => p.edges.length)) await recordReads(ctx, orgId, LISTS[list].childKind, named);
  return pages;
}

/*
 * A nested query holds a page per parent and an edge per row, so these are classes: their lazy parts
 * are prototype getters and methods, where per-object closures cost an allocation each. Fields are
 * assigned, not declared as class fields, whose define semantics made construction slower (TypedValue).
 */

/** Signs the cursors of one page's rows (its list, parent and query are the scope). */
class PageCursors {
  declare private readonly ctx: Context;
  declare private readonly scope: string;

  constructor(ctx: Context, scope: string) {
    this.ctx = ctx;
    this.scope = scope;
  }

  sign(r: PageRow): string {
    return this.ctx.cursors.encode(this.scope, [...r.keys, r.sortAt.getTime(), r.record.id]);
  }
}

/** An edge whose cursor is signed only if read: REST pages read one cursor (nextKey), not one per item. */
class Edge implements EdgeModel {
  declare readonly node: RecordModel;
  declare readonly linkedAt: Date | null;
  declare private readonly cursors: PageCursors;
  declare private readonly row: PageRow;
  declare private signed: string | undefined;

  constructor(cursors: PageCursors, row: PageRow) {
    this.node = row.record;
    this.linkedAt = row.linkedAt;
    this.cursors = cursors;
    this.row = row;
    this.signed = undefined;
  }

  get cursor(): string {
    this.signed ??= this.cursors.sign(this.row);
    return this.signed;
  }
}

/** pageInfo, with the cursors signed only when asked for. */
class PageInfo implements PageInfoModel {
  declare private readonly edges: readonly Edge[];
  declare readonly hasNextPage: boolean;
  declare readonly hasPreviousPage: boolean;

  constructor(edges: readonly Edge[], hasNextPage: boolean, hasPreviousPage: boolean) {
    this.edges = edges;
    this.hasNextPage = hasNextPage;
    this.hasPreviousPage = hasPreviousPage;
  }

  get startCursor(): string | null {
    return this.edges[0]?.cursor ?? null;
  }

  get endCursor(): string | null {
    return this.edges.at(-1)?.cursor ?? null;
  }
}

/** What totalCount and facets need of the page's list. */
interface ListScope {
  ctx: Context;
  list: ListName;
  orgId: string;
  parentId: string;
  query: RecordQuery;
}

/** A page as a Relay connection; totalCount, facets and aggregates run only when a client asks for them. */
class Connection implements ConnectionModel {
  declare readonly edges: Edge[];
  declare readonly pageInfo: PageInfo;
  declare private readonly of: ListScope;
  declare private counting: Promise<ListCount> | undefined;

  constructor(edges: Edge[], pageInfo: PageInfo, of: ListScope, counting?: Promise<ListCount>) {
    this.edges = edges;
    this.pageInfo = pageInfo;
    this.of = of;
    this.counting = counting;
  }

  async totalCount(): Promise<number> {
    return (await this.counted()).count;
  }

  async totalCountIsEstimate(): Promise<boolean> {
    return (await this.counted()).estimate;
  }

  /** Both count fields read the one count: the count loader caches nothing, so it is kept here. */
  private counted(): Promise<ListCount> {
    const { ctx, list, orgId, parentId, query } = this.of;
    this.counting ??= ctx.loaders.count.load({ list, orgId, parentId, query });
    return this.counting;
  }

  facets(propertyId: string): Promise<FacetModel[]> {
    const { ctx, list, orgId, parentId, query } = this.of;
    return listFacets(ctx, list, orgId, parentId, query, propertyId);
  }

  aggregates(info: GraphQLResolveInfo): Promise<AggregatesModel> {
    return listAggregates(this.of, info);
  }

  groupedAggregates(args: GroupedArgs, info: GraphQLResolveInfo): Promise<GroupsModel> {
    return listGroupedAggregates(this.of, args, info);
  }
}

/** A cursor's values, checked against the list's order: each sort key's type, then (time, id). */
function decodeBound(ctx: Context, scope: string, cursor: string, query: RecordQuery) {
  const arity = query.keys.length + 2;
  const bound = ctx.cursors.decode(scope, cursor, arity);
  if (
    typeof bound[arity - 2] !== 'number' ||
    typeof bound[arity - 1] !== 'string' ||
    query.keys.some((k, i) => typeof bound[i] !== (k.type === 'ts' ? 'number' : 'string'))
  )
    throw new AppError('INVALID_CURSOR', 'The cursor is malformed.');
  return bound;
}

/**
 * Counts per option (every option of the property, in schema order, zeros included) or per user
 * (users with records, most first), then the records without a value when there are any.
 */
async function listFacets(
  ctx: Context,
  list: ListName,
  orgId: string,
  parentId: string,
  query: RecordQuery,
  propertyId: string,
): Promise<FacetModel[]> {
  const schema = await ctx.loaders.schema.load({ orgId, kind: LISTS[list].childKind });
  const def = schema.byId.get(propertyId);
  const member = def && propertyType(def.type)?.facet;
  if (!def || !member)
    throw new AppError('VALIDATION_FAILED', `facets need a ${FACETED} property.`, [
      {
        field: propertyId,
        reason: def
          ? `a ${def.type} property has no facets; use a ${FACETED} property`
          : `unknown property "${propertyId}"; the property schema lists the ids`,
      },
    ]);
  const counts = await ctx.loaders.facets.load({ list, orgId, parentId, query, propertyId, member });
  const none = counts.find((c) => c.value === null);
  const tail = none ? [{ value: null, label: null, count: none.count }] : [];
  if (member === 'checkbox') {
    const by = new Map(counts.map((c) => [c.value, c.count]));
    return [
      ...['true', 'false'].map((v) => ({ value: v, label: checkboxLabel(v), count: by.get(v) ?? 0 })),
      ...tail,
    ];
  }
  if (member === 'select') {
    const by = new Map(counts.map((c) => [c.value, c.count]));
    return [...def.options.map((o) => ({ value: o.id, label: o.name, count: by.get(o.id) ?? 0 })), ...tail];
  }
  const users = counts
    .filter((c) => c.value !== null)
    .sort((a, b) => b.count - a.count || a.value!.localeCompare(b.value!));
  const named = await peopleOf(
    ctx,
    orgId,
    users.map((u) => u.value!),
  );
  return [
    ...users.map((u, i) => ({ value: u.value, label: named[i]?.name ?? null, count: u.count })),
    ...tail,
  ];
}
