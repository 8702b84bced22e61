import { getArgumentValues } from 'graphql';
import type { Context } from '../../context.js';
import { findOrganization, readablePortfolio } from '../../modules/org/service.js';
import type { UserModel } from '../../modules/org/types.js';
import { namesUsers } from '../../modules/properties/registry.js';
import { listPages } from '../../modules/records/pages.js';
import type { ConnectionModel, RecordModel } from '../../modules/records/types.js';
import { restPropertiesIn, schemaOf, userMap } from '../../modules/records/values.js';
import type { ArgField, ConnPlan, NodePlan, RootPlan } from './plan.js';
import { leaf, NotPlanned, valueWriters, writeValues } from './values.js';

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
  const pages = await listPages(
    ctx,
    plan.list,
    orgId,
    parents.map((p) => p.id),
    args(plan, vars),
  );
  const outs = pages.map((): Out => ({}));
  for (const f of plan.fields) {
    if (f.kind === 'typename') for (const o of outs) o[f.key] = f.typename;
    else if (f.kind === 'totalCount') {
      const counts = await Promise.all(pages.map((c) => c.totalCount()));
      outs.forEach((o, i) => {
        o[f.key] = counts[i];
      });
    } else if (f.kind === 'pageInfo')
      outs.forEach((o, i) => {
        const info = pages[i].pageInfo;
        const out: Out = {};
        for (const p of f.fields) out[p.key] = p.kind === 'typename' ? p.typename : info[p.kind];
        o[f.key] = out;
      });
    else if (f.kind === 'nodes') {
      const nodes = await records(ctx, f.node, flatNodes(pages), vars);
      spread(pages, nodes, outs, f.key);
    } else {
      const edges = pages.flatMap((c) => c.edges);
      // Each `node` by its key: aliases may ask for it twice, with different fields.
      const nodes = new Map<string, Out[]>();
      for (const ef of f.fields)
        if (ef.kind === 'node') nodes.set(ef.key, await records(ctx, ef.node, flatNodes(pages), vars));
      const built = edges.map((e, i): Out => {
        const out: Out = {};
        for (const ef of f.fields) {
          if (ef.kind === 'typename') out[ef.key] = ef.typename;
          else if (ef.kind === 'cursor') out[ef.key] = e.cursor;
          else if (ef.kind === 'linkedAt')
            out[ef.key] = e.linkedAt === null ? null : leaf(ef.type, e.linkedAt);
          else out[ef.key] = nodes.get(ef.key)![i];
        }
        return out;
      });
      spread(pages, built, outs, f.key);
    }
  }
  return outs;
}

const flatNodes = (pages: ConnectionModel[]) => pages.flatMap((c) => c.edges.map((e) => e.node));

/** Hands each page its slice of `items` (built for all pages' edges in order) under `key`. */
function spread(pages: ConnectionModel[], items: Out[], outs: Out[], key: string) {
  let at = 0;
  pages.forEach((c, i) => {
    outs[i][key] = items.slice(at, at + c.edges.length);
    at += c.edges.length;
  });
}

/** The records' answers; their nested connections are fetched per level, for all records at once. */
async function records(ctx: Context, plan: NodePlan, rs: RecordModel[], vars: Vars): Promise<Out[]> {
  const outs = rs.map((): Out => ({}));
  if (!rs.length) return outs;
  const nested = plan.fields.flatMap((f) => (f.kind === 'conn' ? [f] : []));
  const fetched = await Promise.all(nested.map((f) => connections(ctx, f.conn, rs, vars)));
  const byKey = new Map(nested.map((f, i) => [f.key, fetched[i]]));
  const reads = await prepared(ctx, plan, rs);
  const writers = new Map(
    plan.fields.flatMap((f) => (f.kind === 'values' ? [[f.key, valueWriters(reads!.schema, f.byType)]] : [])),
  );
  rs.forEach((r, i) => {
    const out = outs[i];
    for (const f of plan.fields) {
      if (f.kind === 'typename') out[f.key] = f.typename;
      else if (f.kind === 'id') out[f.key] = r.id;
      else if (f.kind === 'createdAt' || f.kind === 'updatedAt') out[f.key] = leaf(f.type, r[f.kind]);
      else if (f.kind === 'properties') out[f.key] = restPropertiesIn(r, reads!.schema, reads!.users);
      else if (f.kind === 'values') out[f.key] = writeValues(r, writers.get(f.key)!, reads!.users);
      else out[f.key] = byKey.get(f.key)![i];
    }
  });
  return outs;
}

interface Reads {
  schema: Awaited<ReturnType<typeof schemaOf>>;
  users: ReadonlyMap<string, UserModel> | undefined;
}

/** The schema and, when a record names users, the org's user list: what values and properties read. */
async function prepared(ctx: Context, plan: NodePlan, rs: RecordModel[]): Promise<Reads | undefined> {
  if (!plan.fields.some((f) => f.kind === 'values' || f.kind === 'properties')) return undefined;
  const orgId = rs[0].orgId;
  if (rs.some((r) => r.orgId !== orgId)) throw new NotPlanned('records of two organizations');
  const [schema, users] = await Promise.all([
    schemaOf(ctx, orgId, plan.kind),
    rs.some((r) => namesUsers(r.properties)) ? userMap(ctx, orgId) : undefined,
  ]);
  return { schema, users };
}
