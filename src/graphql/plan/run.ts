import { getArgumentValues } from 'graphql';
import type { Context } from '../../context.js';
import { findOrganization, readablePortfolio } from '../../modules/org/index.js';
import { namesUsers } from '../../modules/properties/index.js';
import {
  type ConnectionModel,
  levelPages,
  type RecordModel,
  type RecordReads,
  recordReads,
  restPropertiesIn,
} from '../../modules/records/index.js';
import { type Builder, literal, oncePer, type Part } from './literal.js';
import type { ArgField, ConnPlan, NodePlan, PageInfoField, RootPlan } from './plan.js';
import { leaf, leafWriter, NotPlanned, valueWriters, writeValues } from './values.js';

export { NotPlanned };

type Out = Record<string, unknown>;
type Vars = Record<string, unknown>;

/**
 * Answers a planned operation: the same services, page loaders and value shapes as the resolvers,
 * one statement per list level as there, but the answer is built once, straight from the pages.
 * `undefined` when the organization or portfolio is not there (the executor then answers with its
 * nulls and errors); throws NotPlanned, or the error a service threw, for the executor to redo.
 */
export async function runPlan(ctx: Context, plan: RootPlan, vars: Vars): Promise<Out | undefined> {
  const org = findOrganization(ctx, String(args(plan.org, vars).id));
  if (!org) return undefined;
  const portfolio = await readablePortfolio(ctx, org.id, String(args(plan.portfolio, vars).id));
  if (!portfolio) return undefined;
  const [conn] = await connections(ctx, plan.conn, [{ orgId: org.id, id: portfolio.id }], vars);
  return { [plan.org.key]: { [plan.portfolio.key]: { [plan.conn.key]: conn } } };
}

/** A field's arguments, coerced from the request's variables as graphql-js does. */
const args = (f: ArgField, vars: Vars) => getArgumentValues(f.def, f.node, vars);

/** One connection per parent (at least one), fetched together: one statement per level. */
async function connections(
  ctx: Context,
  plan: ConnPlan,
  parents: readonly { orgId: string; id: string }[],
  vars: Vars,
): Promise<Out[]> {
  const orgId = parents[0].orgId;
  if (parents.some((p) => p.orgId !== orgId)) throw new NotPlanned('parents of two organizations');
  const pages = await levelPages(
    ctx,
    plan.list,
    orgId,
    parents.map((p) => p.id),
    args(plan, vars),
    plan.fields.some((f) => f.kind === 'totalCount' || f.kind === 'totalCountIsEstimate'),
  );
  // Each field's answers for all pages first, then each page's object as one literal.
  const lists: unknown[][] = [];
  for (const f of plan.fields) {
    if (f.kind === 'totalCount') lists.push(await Promise.all(pages.map((c) => c.totalCount())));
    else if (f.kind === 'totalCountIsEstimate')
      lists.push(await Promise.all(pages.map(async (c) => (await c.totalCountIsEstimate?.()) ?? false)));
    else if (f.kind === 'nodes')
      lists.push(sliced(pages, await records(ctx, f.node, flatNodes(pages), vars)));
    else if (f.kind === 'edges') lists.push(sliced(pages, await edges(ctx, f.fields, pages, vars)));
    else lists.push(NO_LIST);
  }
  const build = connectionBuilder(plan);
  return pages.map((page, i) => build(page, i, lists));
}

type EdgeFields = Extract<ConnPlan['fields'][number], { kind: 'edges' }>['fields'];

/** The edges of all pages in order, each with its node under every key that asks for one. */
async function edges(ctx: Context, fields: EdgeFields, pages: ConnectionModel[], vars: Vars) {
  const all = pages.flatMap((c) => c.edges);
  // Each `node` by its key: aliases may ask for it twice, with different fields.
  const nodes: Out[][] = [];
  for (const ef of fields)
    nodes.push(ef.kind === 'node' ? await records(ctx, ef.node, flatNodes(pages), vars) : NO_OUTS);
  const build = edgeBuilder(fields);
  return all.map((e, i) => build(e, i, nodes));
}

const NO_LIST: unknown[] = [];
const NO_OUTS: Out[] = [];

type ConnArgs = [page: ConnectionModel, i: number, lists: unknown[][]];
/** A page's object: its fields in the plan's order, from the lists gathered for all pages. */
const connectionBuilder = oncePer((plan: ConnPlan) =>
  literal(
    plan.fields.map((f, j): Part<ConnArgs> => {
      if (f.kind === 'typename') return { key: f.key, value: f.typename };
      if (f.kind === 'pageInfo') {
        const info = pageInfoBuilder(f.fields);
        return { key: f.key, compute: (page) => info(page.pageInfo) };
      }
      return { key: f.key, compute: (_, i, lists) => lists[j][i] };
    }),
    3,
  ),
);

function pageInfoBuilder(fields: PageInfoField[]): Builder<[info: ConnectionModel['pageInfo']]> {
  return literal(
    fields.map((p) => {
      if (p.kind === 'typename') return { key: p.key, value: p.typename };
      const name = p.kind;
      return { key: p.key, compute: (info: ConnectionModel['pageInfo']) => info[name] };
    }),
    1,
  );
}

type EdgeArgs = [edge: ConnectionModel['edges'][number], i: number, nodes: Out[][]];
const edgeBuilder = oncePer((fields: EdgeFields) =>
  literal(
    fields.map((ef, j): Part<EdgeArgs> => {
      if (ef.kind === 'typename') return { key: ef.key, value: ef.typename };
      if (ef.kind === 'cursor') return { key: ef.key, compute: (e) => e.cursor };
      if (ef.kind === 'linkedAt') {
        const type = ef.type;
        return { key: ef.key, compute: (e) => (e.linkedAt === null ? null : leaf(type, e.linkedAt)) };
      }
      return { key: ef.key, compute: (_, i, nodes) => nodes[j][i] };
    }),
    3,
  ),
);

const flatNodes = (pages: ConnectionModel[]) => pages.flatMap((c) => c.edges.map((e) => e.node));

/** Each page's slice of `items`, which were built for all pages' edges in order. */
function sliced<T>(pages: ConnectionModel[], items: T[]): T[][] {
  let at = 0;
  return pages.map((c) => {
    const from = at;
    at += c.edges.length;
    return items.slice(from, at);
  });
}

/** The records' answers; their nested connections are fetched per level, for all records at once. */
async function records(ctx: Context, plan: NodePlan, rs: RecordModel[], vars: Vars): Promise<Out[]> {
  if (!rs.length) return [];
  const nested = await Promise.all(
    plan.fields.map((f) => (f.kind === 'conn' ? connections(ctx, f.conn, rs, vars) : NO_OUTS)),
  );
  const reads = await prepared(ctx, plan, rs);
  const env: RecordEnv = {
    reads,
    nested,
    writers: plan.fields.map((f) => (f.kind === 'values' ? valueWriters(reads!.schema, f.byType) : [])),
  };
  const build = recordBuilder(plan);
  const outs = new Array<Out>(rs.length);
  for (let i = 0; i < rs.length; i++) outs[i] = build(rs[i], i, env);
  return outs;
}

/** What a level's records share: the schema and users, each values field's writers, the nested pages. */
interface RecordEnv {
  reads: RecordReads | undefined;
  /** By the plan's field index: the writers of a `values` field, the answers of a nested connection. */
  writers: ReturnType<typeof valueWriters>[];
  nested: Out[][];
}

type RecordArgs = [r: RecordModel, i: number, env: RecordEnv];
/** A record's object: the plan's fields in order, one literal. */
const recordBuilder = oncePer((plan: NodePlan) =>
  literal(
    plan.fields.map((f, j): Part<RecordArgs> => {
      if (f.kind === 'typename') return { key: f.key, value: f.typename };
      if (f.kind === 'id') return { key: f.key, compute: (r) => r.id };
      if (f.kind === 'createdAt' || f.kind === 'updatedAt') {
        const serialize = leafWriter(f.type);
        const name = f.kind;
        return { key: f.key, compute: (r) => serialize(r[name]) };
      }
      if (f.kind === 'properties')
        return { key: f.key, compute: (r, _, e) => restPropertiesIn(r, e.reads!.schema, e.reads!.users) };
      if (f.kind === 'values')
        return { key: f.key, compute: (r, _, e) => writeValues(r, e.writers[j], e.reads!.users) };
      return { key: f.key, compute: (_, i, e) => e.nested[j][i] };
    }),
    3,
  ),
);

/** The schema and, when a record names users, the org's user list: what values and properties read. */
async function prepared(ctx: Context, plan: NodePlan, rs: RecordModel[]): Promise<RecordReads | undefined> {
  if (!plan.fields.some((f) => f.kind === 'values' || f.kind === 'properties')) return undefined;
  const orgId = rs[0].orgId;
  if (rs.some((r) => r.orgId !== orgId)) throw new NotPlanned('records of two organizations');
  return recordReads(
    ctx,
    orgId,
    plan.kind,
    rs.some((r) => namesUsers(r.properties)),
  );
}
