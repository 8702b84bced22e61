import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getVariableValues,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  valueFromAST,
} from 'graphql';
import { AppError } from '../errors.js';
import { MAX_TILE_FEATURES } from '../modules/maps/index.js';
import { DEFAULT_PAGE_SIZE } from '../pagination/connection.js';
import { rejection } from './errors.js';

/** Abuse limits for GraphQL operations; each is configurable through the environment. */
export interface GraphQLLimits {
  /** Deepest field nesting (introspection fields excluded). */
  maxDepth: number;
  /** Most nodes an operation may ask for, counted like GitHub: page sizes multiply down the tree. */
  maxCost: number;
  /** Most aliased fields in one operation, with every fragment written out where it is spread. */
  maxAliases: number;
  /** Most fields at the root of one operation. */
  maxRootFields: number;
  /** Most fields in one operation with every fragment written out where it is spread. */
  maxFields: number;
  /** Deepest nesting of objects and lists in one input value (an argument or a variable). */
  maxInputDepth: number;
  /** Longest query text, in bytes. */
  maxQueryBytes: number;
  /** Most lexer tokens graphql-js will parse. */
  maxTokens: number;
}

export const DEFAULT_LIMITS: GraphQLLimits = {
  maxDepth: 20,
  maxCost: 100_000,
  maxAliases: 30,
  maxRootFields: 20,
  maxFields: 2_000,
  maxInputDepth: 32,
  maxQueryBytes: 20_000,
  maxTokens: 5_000,
};

export function limitsFromEnv(env = process.env): GraphQLLimits {
  const n = (name: string, d: number) => {
    const v = env[name];
    if (!v) return d;
    const x = Number(v);
    if (!Number.isInteger(x) || x <= 0) throw new Error(`${name} must be a positive integer, got "${v}"`);
    return x;
  };
  return {
    maxDepth: n('GRAPHQL_MAX_DEPTH', DEFAULT_LIMITS.maxDepth),
    maxCost: n('GRAPHQL_MAX_COST', DEFAULT_LIMITS.maxCost),
    maxAliases: n('GRAPHQL_MAX_ALIASES', DEFAULT_LIMITS.maxAliases),
    maxRootFields: n('GRAPHQL_MAX_ROOT_FIELDS', DEFAULT_LIMITS.maxRootFields),
    maxFields: n('GRAPHQL_MAX_FIELDS', DEFAULT_LIMITS.maxFields),
    maxInputDepth: n('GRAPHQL_MAX_INPUT_DEPTH', DEFAULT_LIMITS.maxInputDepth),
    maxQueryBytes: n('GRAPHQL_MAX_QUERY_BYTES', DEFAULT_LIMITS.maxQueryBytes),
    maxTokens: n('GRAPHQL_MAX_TOKENS', DEFAULT_LIMITS.maxTokens),
  };
}

export interface OperationMeasure {
  /** Deepest field, introspection fields excluded. */
  depth: number;
  /** Nodes the response could hold: connection items, and items of introspection lists. */
  cost: number;
  aliases: number;
  rootFields: number;
  /** Field selections with every fragment written out where it is spread. */
  fields: number;
  /** Selections the walk visited: each one in the document at most once, however often it is spread. */
  steps: number;
}

/**
 * A guard on the walk itself. Each selection of the document is visited once, so a parsed document
 * (at most GRAPHQL_MAX_TOKENS tokens) never comes near it; it is there so that a future change that
 * re-walks fragments fails loudly instead of taking seconds.
 */
export const MAX_WALK_STEPS = 100_000;

/** Counts stop growing here: far above every limit, and never Infinity or NaN (0 × Infinity). */
const CEILING = 1e15;
const add = (a: number, b: number) => Math.min(CEILING, a + b);
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(CEILING, a * b));

const tooComplex = (message: string) => rejection(new AppError('QUERY_TOO_COMPLEX', message));

/**
 * What each introspection list can hold in this schema (every field, argument and enum value,
 * deprecated ones included), so introspection costs what it could return. `longest` is the longest
 * list of each kind, sound anywhere: under `type { fields }` or `ofType` one type can come back
 * many times. `total` is the sum over every parent of that kind, sound only where each parent is a
 * distinct item (see DISTINCT_PARENT): under `__schema { types { fields } }` each type comes back
 * once, so its fields together are the schema's fields, not the types times the longest list.
 */
interface IntrospectionBounds {
  longest: Map<string, number>;
  total: Map<string, number>;
}

/**
 * Introspection lists, each with the list its parent must come from for the list's items to be
 * distinct items of the schema (null: the parent is the schema itself, one per `__schema`). Along
 * such a path each type, field and directive comes back once, so a list sums to the schema's total.
 * Types reached from a type (`interfaces`, `possibleTypes`, `ofType`) or from a field (`type`)
 * repeat, so no path runs through them, and lists under them count the longest list.
 */
const DISTINCT_PARENT = new Map<string, string | null>([
  ['__Schema.types', null],
  ['__Schema.directives', null],
  ['__Type.fields', '__Schema.types'],
  ['__Type.interfaces', '__Schema.types'],
  ['__Type.possibleTypes', '__Schema.types'],
  ['__Type.enumValues', '__Schema.types'],
  ['__Type.inputFields', '__Schema.types'],
  ['__Field.args', '__Type.fields'],
  ['__Directive.args', '__Schema.directives'],
  ['__Directive.locations', '__Schema.directives'],
]);
/**
 * The lists that are some other list's distinct parent, by the type of their items: a fragment on
 * one of these types is also counted as if spread under its list (see Tally.distinct).
 */
const DISTINCT_LIST_OF = new Map([
  ['__Type', '__Schema.types'],
  ['__Field', '__Type.fields'],
  ['__Directive', '__Schema.directives'],
]);
const DISTINCT_PARENTS = new Set(DISTINCT_LIST_OF.values());

function introspectionBounds(schema: GraphQLSchema): IntrospectionBounds {
  const types = Object.values(schema.getTypeMap());
  const longest = new Map<string, number>();
  const total = new Map<string, number>();
  const count = (key: string, n: number) => {
    longest.set(key, Math.max(longest.get(key) ?? 0, n));
    total.set(key, (total.get(key) ?? 0) + n);
  };
  for (const key of DISTINCT_PARENT.keys()) count(key, 0);
  count('__Schema.types', types.length);
  for (const t of types) {
    if (isObjectType(t) || isInterfaceType(t)) {
      const fs = Object.values(t.getFields());
      count('__Type.fields', fs.length);
      for (const f of fs) count('__Field.args', f.args.length);
      count('__Type.interfaces', t.getInterfaces().length);
    }
    if (isEnumType(t)) count('__Type.enumValues', t.getValues().length);
    if (isInputObjectType(t)) count('__Type.inputFields', Object.keys(t.getFields()).length);
    if (isAbstractType(t)) count('__Type.possibleTypes', schema.getPossibleTypes(t).length);
  }
  const directives = schema.getDirectives();
  count('__Schema.directives', directives.length);
  for (const d of directives) {
    count('__Directive.args', d.args.length);
    count('__Directive.locations', d.locations.length);
  }
  return { longest, total };
}

/** Where a selection set is walked: what its nodes are counted at. */
interface Context {
  /** How many times the selection set can appear in the response. */
  multiplier: number;
  /** Under a connection: the multiplier above its page, which its aggregates are counted at. */
  perList?: number;
  /**
   * Under a list of DISTINCT_PARENTS reached along distinct parents: the list's key, and the
   * multiplier above the first list of that path, which the path's totals are counted at.
   */
  distinct?: { list: string; base: number };
}

const boundsBySchema = new WeakMap<GraphQLSchema, IntrospectionBounds>();

function isListField(field: GraphQLField<unknown, unknown>): boolean {
  const t = isNonNullType(field.type) ? field.type.ofType : field.type;
  return isListType(t);
}

/**
 * A Relay connection, or a page of GeoJSON features (which pages the same way): pages of
 * `first`/`last` items, and the default page size without them.
 */
function isConnection(field: GraphQLField<unknown, unknown>): boolean {
  return (
    /(?:Connection|FeatureCollection)$/.test(getNamedType(field.type).name) &&
    field.args.some((a) => a.name === 'first' || a.name === 'last')
  );
}

interface Tally {
  depth: number;
  cost: number;
  /**
   * A fragment on the items of a distinct list (`fragment FullType on __Type`): its cost where it is
   * spread under that list along distinct parents (`__schema { types { ...FullType } }`), at base 1.
   * The walk counts it beside `cost`, so a fragment is still walked once.
   */
  distinct?: { list: string; cost: number };
  aliases: number;
  fields: number;
  /** Fields at the top of the selection set walked (the operation's root fields). */
  topFields: number;
}

/** The arguments that size a connection's page: a measure reads variables through these alone. */
export const PAGE_SIZE_ARGS = ['first', 'last'] as const;

/**
 * One page-size argument's value as graphql-js coerces it for execution (a variable's coerced
 * value, or the argument's default when it is absent). Only this argument is coerced: the others
 * do not change the cost, and execution refuses any that are wrong before resolving anything.
 */
function pageSizeArgument(
  def: GraphQLField<unknown, unknown>,
  node: FieldNode,
  name: (typeof PAGE_SIZE_ARGS)[number],
  variables: Record<string, unknown>,
): unknown {
  const arg = def.args.find((a) => a.name === name);
  if (!arg) return undefined;
  const given = node.arguments?.find((a) => a.name.value === name)?.value;
  if (!given) return arg.defaultValue;
  if (given.kind === Kind.VARIABLE && !Object.hasOwn(variables, given.name.value)) return arg.defaultValue;
  return valueFromAST(given, arg.type, variables);
}

const zero = (): Tally => ({ depth: 0, cost: 0, aliases: 0, fields: 0, topFields: 0 });

/** The names of the fragments a fragment spreads, directly or inside nested selections. */
function spreadsIn(fragment: FragmentDefinitionNode): string[] {
  const names: string[] = [];
  const sets: SelectionSetNode[] = [fragment.selectionSet];
  for (let set = sets.pop(); set; set = sets.pop())
    for (const sel of set.selections) {
      if (sel.kind === Kind.FRAGMENT_SPREAD) names.push(sel.name.value);
      else if (sel.selectionSet) sets.push(sel.selectionSet);
    }
  return names;
}

/** Fragment names, each after every fragment it spreads (cycles, which validation refuses, are cut). */
function dependencyOrder(fragments: Map<string, FragmentDefinitionNode>): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  for (const start of fragments.keys()) {
    if (seen.has(start)) continue;
    seen.add(start);
    const stack: [string, string[]][] = [[start, spreadsIn(fragments.get(start)!)]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const next = top[1].pop();
      if (next === undefined) {
        stack.pop();
        order.push(top[0]);
      } else if (fragments.has(next) && !seen.has(next)) {
        seen.add(next);
        stack.push([next, spreadsIn(fragments.get(next)!)]);
      }
    }
  }
  return order;
}

/**
 * Measures an operation: depth, node cost, aliases, root fields and fields, with every fragment
 * counted as if it were written out wherever it is spread, yet each fragment walked only once: a
 * fragment's tally (at multiplier 1) is kept and scaled at each spread. So the walk is linear in the
 * size of the document even when fragments spread each other exponentially often.
 *
 * Page sizes come from the coerced argument values: `variables` must be the coerced variable values
 * (graphql-js's getVariableValues), so defaults of variables and arguments count as sent.
 */
export function measureOperation(
  schema: GraphQLSchema,
  doc: DocumentNode,
  op: OperationDefinitionNode,
  variables: Record<string, unknown>,
): OperationMeasure {
  let bounds = boundsBySchema.get(schema);
  if (!bounds) {
    bounds = introspectionBounds(schema);
    boundsBySchema.set(schema, bounds);
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const tallies = new Map<string, Tally>();
  let steps = 0;
  const step = () => {
    if (++steps > MAX_WALK_STEPS)
      throw tooComplex(`The query is too large to measure (over ${MAX_WALK_STEPS} selections).`);
  };

  const fieldDef = (parent: GraphQLNamedType, node: FieldNode) => {
    const name = node.name.value;
    if (name === '__typename') return TypeNameMetaFieldDef;
    if (parent === schema.getQueryType()) {
      if (name === '__schema') return SchemaMetaFieldDef;
      if (name === '__type') return TypeMetaFieldDef;
    }
    return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
  };

  const pageSize = (def: GraphQLField<unknown, unknown>, node: FieldNode) => {
    const sizes = PAGE_SIZE_ARGS.map((name) => pageSizeArgument(def, node, name, variables)).filter(
      (v): v is number => typeof v === 'number',
    );
    return sizes.length ? Math.max(0, ...sizes) : DEFAULT_PAGE_SIZE;
  };

  /**
   * Walks a selection set once, counting its nodes in each context at once (a fragment on the items
   * of a distinct list has two: spread anywhere, and spread under that list); `costs[i]` grows by
   * the nodes counted in `contexts[i]`.
   */
  const walk = (
    set: SelectionSetNode,
    parent: GraphQLNamedType | undefined,
    depth: number,
    top: boolean,
    t: Tally,
    contexts: readonly Context[],
    costs: number[],
  ) => {
    for (const sel of set.selections) {
      step();
      if (sel.kind === Kind.FIELD) {
        t.fields = add(t.fields, 1);
        if (top) t.topFields = add(t.topFields, 1);
        if (sel.alias) t.aliases = add(t.aliases, 1);
        const def = parent && fieldDef(parent, sel);
        if (!def) continue; // validation refuses unknown fields
        const name = sel.name.value;
        const introspection = isIntrospectionType(parent) || name === '__schema' || name === '__type';
        if (!introspection && name !== '__typename') t.depth = Math.max(t.depth, depth);
        // Connections and introspection lists hold many items each: those items are the nodes counted.
        let items: number | undefined;
        let introspectionList: string | undefined;
        if (isConnection(def)) items = pageSize(def, sel);
        // A vector tile is no page, but it draws up to this many records: its bound is its cost.
        else if (getNamedType(def.type).name === 'VectorTile') items = MAX_TILE_FEATURES;
        // Dashboards: a list's aggregates are one node, its groups up to `first` (default 100)
        // nodes, once per list, not per item of its page.
        else if (getNamedType(def.type).name === 'RecordAggregates') items = 1;
        else if (getNamedType(def.type).name === 'AggregateGroups') items = pageSize(def, sel);
        else if (introspection && isListField(def)) {
          introspectionList = `${parent.name}.${name}`;
          items = bounds.longest.get(introspectionList) ?? bounds.longest.get('__Schema.types')!;
        }
        const perItem = /^(?:RecordAggregates|AggregateGroups)$/.test(getNamedType(def.type).name);
        const from = introspectionList === undefined ? undefined : DISTINCT_PARENT.get(introspectionList);
        const inner = contexts.map((ctx, i): Context => {
          if (from === null || (from !== undefined && ctx.distinct?.list === from)) {
            // Each parent is a distinct item, so this list across all of them holds the schema's
            // total, once per base: not the parents times the longest list.
            const base = from === null ? ctx.multiplier : ctx.distinct!.base;
            const list = introspectionList!;
            const multiplier = mul(base, bounds.total.get(list)!);
            costs[i] = add(costs[i], multiplier);
            return { multiplier, distinct: DISTINCT_PARENTS.has(list) ? { list, base } : undefined };
          }
          const above = perItem && ctx.perList !== undefined ? ctx.perList : ctx.multiplier;
          const multiplier = items === undefined ? ctx.multiplier : mul(above, items);
          if (items !== undefined) costs[i] = add(costs[i], multiplier);
          return { multiplier, perList: isConnection(def) ? ctx.multiplier : undefined };
        });
        if (sel.selectionSet)
          walk(sel.selectionSet, getNamedType(def.type), depth + 1, false, t, inner, costs);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const type = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        walk(sel.selectionSet, type, depth, top, t, contexts, costs);
      } else {
        const f = tallies.get(sel.name.value);
        if (!f) continue; // unknown, or part of a cycle: validation refuses both
        if (f.depth) t.depth = Math.max(t.depth, depth - 1 + f.depth);
        contexts.forEach((ctx, i) => {
          const d = ctx.distinct && f.distinct?.list === ctx.distinct.list ? ctx.distinct : undefined;
          costs[i] = add(costs[i], d ? mul(d.base, f.distinct!.cost) : mul(ctx.multiplier, f.cost));
        });
        t.aliases = add(t.aliases, f.aliases);
        t.fields = add(t.fields, f.fields);
        if (top) t.topFields = add(t.topFields, f.topFields);
      }
    }
  };

  for (const name of dependencyOrder(fragments)) {
    const f = fragments.get(name)!;
    const t = zero();
    const list = DISTINCT_LIST_OF.get(f.typeCondition.name.value);
    const contexts: Context[] = [{ multiplier: 1 }];
    // Spread under its list at base 1, the fragment's selections stand for each item of that list.
    if (list) contexts.push({ multiplier: bounds.total.get(list)!, distinct: { list, base: 1 } });
    const costs = contexts.map(() => 0);
    walk(f.selectionSet, schema.getType(f.typeCondition.name.value), 1, true, t, contexts, costs);
    t.cost = costs[0];
    if (list) t.distinct = { list, cost: costs[1] };
    tallies.set(name, t);
  }
  const t = zero();
  const costs = [0];
  const root = schema.getRootType(op.operation) ?? undefined;
  walk(op.selectionSet, root, 1, true, t, [{ multiplier: 1 }], costs);
  return {
    depth: t.depth,
    cost: costs[0],
    aliases: t.aliases,
    rootFields: t.topFields,
    fields: t.fields,
    steps,
  };
}

/**
 * Measures an operation with its variables coerced as graphql-js will coerce them for execution
 * (defaults included). Variables that do not coerce are refused by execution before any resolver
 * runs, so their operation is measured without them: the structural limits still apply.
 */
export function measureRequest(
  schema: GraphQLSchema,
  doc: DocumentNode,
  op: OperationDefinitionNode,
  rawVariables: Record<string, unknown>,
): OperationMeasure {
  const vars = getVariableValues(schema, op.variableDefinitions ?? [], rawVariables, { maxErrors: 1 });
  return measureOperation(schema, doc, op, vars.coerced ?? {});
}

/** Throws QUERY_TOO_COMPLEX (400) naming the limit when an operation exceeds one. */
export function enforceLimits(
  limits: GraphQLLimits,
  schema: GraphQLSchema,
  doc: DocumentNode,
  op: OperationDefinitionNode,
  rawVariables: Record<string, unknown>,
): OperationMeasure {
  return enforceMeasured(limits, measureRequest(schema, doc, op, rawVariables));
}

/** enforceLimits on a measure already taken (the Executor coerces a request's variables once). */
export function enforceMeasured(limits: GraphQLLimits, m: OperationMeasure): OperationMeasure {
  if (m.depth > limits.maxDepth)
    throw tooComplex(
      `The query is ${m.depth} levels deep; the limit is ${limits.maxDepth}. Split it into several queries.`,
    );
  if (m.rootFields > limits.maxRootFields)
    throw tooComplex(`The query has ${m.rootFields} root fields; the limit is ${limits.maxRootFields}.`);
  if (m.aliases > limits.maxAliases)
    throw tooComplex(
      `The query uses ${m.aliases} aliases (fragments counted wherever they are spread); the limit is ${limits.maxAliases}.`,
    );
  if (m.fields > limits.maxFields)
    throw tooComplex(
      `The query selects ${m.fields} fields (fragments counted wherever they are spread); the limit is ${limits.maxFields}.`,
    );
  if (m.cost > limits.maxCost)
    throw tooComplex(
      `The query could return ${m.cost} nodes (page sizes multiply down the tree); the limit is ${limits.maxCost}. Ask for smaller pages (first/last).`,
    );
  return m;
}
