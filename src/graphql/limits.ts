import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from '../pagination/connection.js';

/** Abuse limits for GraphQL operations; each is configurable through the environment. */
export interface GraphQLLimits {
  /** Deepest field nesting (introspection fields excluded). */
  maxDepth: number;
  /** Most nodes an operation may ask for, counted like GitHub: page sizes multiply down the tree. */
  maxCost: number;
  /** Most aliased fields in one operation. */
  maxAliases: number;
  /** Most fields at the root of one operation. */
  maxRootFields: number;
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
    maxQueryBytes: n('GRAPHQL_MAX_QUERY_BYTES', DEFAULT_LIMITS.maxQueryBytes),
    maxTokens: n('GRAPHQL_MAX_TOKENS', DEFAULT_LIMITS.maxTokens),
  };
}

export interface OperationMeasure {
  depth: number;
  cost: number;
  aliases: number;
  rootFields: number;
}

function pageSize(
  args: readonly { name: { value: string }; value: ValueNode }[] | undefined,
  vars: Record<string, unknown>,
) {
  let size: number | undefined;
  for (const a of args ?? []) {
    if (a.name.value !== 'first' && a.name.value !== 'last') continue;
    const v =
      a.value.kind === Kind.VARIABLE
        ? vars[a.value.name.value]
        : a.value.kind === Kind.INT
          ? Number(a.value.value)
          : undefined;
    if (typeof v === 'number') size = Math.max(size ?? 0, v);
  }
  return size;
}

/** Fields that return connections: their page size multiplies the cost of everything under them. */
const CONNECTION_FIELDS = new Set(['projects', 'parcels', 'contacts']);

/**
 * Measures an operation: depth, node cost, aliases and root fields. Fragments are expanded (each
 * fragment once per path, with a guard against cycles, which validation rejects anyway).
 */
export function measureOperation(
  doc: DocumentNode,
  op: OperationDefinitionNode,
  vars: Record<string, unknown>,
): OperationMeasure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const m: OperationMeasure = { depth: 0, cost: 0, aliases: 0, rootFields: 0 };

  const walk = (
    set: SelectionSetNode,
    depth: number,
    multiplier: number,
    seen: Set<string>,
    root: boolean,
  ) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value.startsWith('__')) continue;
        if (root) m.rootFields++;
        if (sel.alias) m.aliases++;
        m.depth = Math.max(m.depth, depth);
        let mult = multiplier;
        if (CONNECTION_FIELDS.has(sel.name.value)) {
          mult = multiplier * (pageSize(sel.arguments, vars) ?? DEFAULT_PAGE_SIZE);
          m.cost += mult;
        }
        if (sel.selectionSet) walk(sel.selectionSet, depth + 1, mult, seen, false);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet, depth, multiplier, seen, root);
      } else {
        const f = fragments.get(sel.name.value);
        if (!f || seen.has(f.name.value)) continue;
        walk(f.selectionSet, depth, multiplier, new Set([...seen, f.name.value]), root);
      }
    }
  };
  walk(op.selectionSet, 1, 1, new Set(), true);
  return m;
}

const tooComplex = (message: string) =>
  new GraphQLError(message, { extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 } } });

/** Throws QUERY_TOO_COMPLEX (400) naming the limit when an operation exceeds one. */
export function enforceLimits(
  limits: GraphQLLimits,
  doc: DocumentNode,
  op: OperationDefinitionNode,
  vars: Record<string, unknown>,
) {
  const m = measureOperation(doc, op, vars);
  if (m.depth > limits.maxDepth)
    throw tooComplex(
      `The query is ${m.depth} levels deep; the limit is ${limits.maxDepth}. Split it into several queries.`,
    );
  if (m.rootFields > limits.maxRootFields)
    throw tooComplex(`The query has ${m.rootFields} root fields; the limit is ${limits.maxRootFields}.`);
  if (m.aliases > limits.maxAliases)
    throw tooComplex(`The query uses ${m.aliases} aliases; the limit is ${limits.maxAliases}.`);
  if (m.cost > limits.maxCost)
    throw tooComplex(
      `The query could return ${m.cost} nodes (page sizes multiply down the tree); the limit is ${limits.maxCost}. Ask for smaller pages (first/last).`,
    );
  return m;
}
