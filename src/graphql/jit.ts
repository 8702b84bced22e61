import {
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isInputObjectType,
  Kind,
  type TypeNode,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

export interface JitOptions {
  /** Documents kept, the least recently used dropped first. */
  max?: number;
  /** The run at which a document is compiled (2: when it comes back). */
  hotAfter?: number;
}

/**
 * Compiled forms of the operations /graphql sees often. An operation is compiled the `hotAfter`-th
 * time its document runs, and kept by document (Apollo keeps parsed documents in its own LRU, so
 * the same query text brings the same DocumentNode). Until then graphql-js runs it: compiling
 * costs far more than one run, and exploration in GraphiQL sends a new document with every edit.
 */
export class JitCache {
  /** hits: runs served compiled; misses: runs on graphql-js (cold, or not compilable) or compiled now. */
  readonly stats = { compiled: 0, hits: 0, misses: 0 };
  private readonly max: number;
  private readonly hotAfter: number;
  // Per document: how often it ran, then its compiled form per operation name (null: not compilable).
  private readonly seen = new Map<
    DocumentNode,
    { runs: number; compiled: Map<string, CompiledQuery | null> }
  >();

  private readonly recursive: ReadonlySet<string>;

  constructor(
    private readonly schema: GraphQLSchema,
    { max = 1000, hotAfter = 2 }: JitOptions = {},
  ) {
    this.max = max;
    this.hotAfter = hotAfter;
    this.recursive = recursiveInputTypes(schema);
  }

  /** The compiled operation when its document is hot, else null (graphql-js runs it). */
  hot(document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null {
    let entry = this.seen.get(document);
    if (entry) this.seen.delete(document);
    else {
      if (this.seen.size >= this.max) this.seen.delete(this.seen.keys().next().value!);
      entry = { runs: 0, compiled: new Map() };
    }
    // Re-inserted on every run, so the first key is always the least recently used.
    this.seen.set(document, entry);
    if (++entry.runs < this.hotAfter) {
      this.stats.misses++;
      return null;
    }
    const name = operationName ?? '';
    let c = entry.compiled.get(name);
    if (c) this.stats.hits++;
    else this.stats.misses++;
    if (c === undefined) {
      // graphql-jit refuses very few valid operations; those stay on graphql-js, and so do those
      // whose variables it would take seconds to compile.
      c = hasRecursiveVariable(document, operationName, this.recursive)
        ? null
        : compileOrNull(this.schema, document, operationName);
      if (c) this.stats.compiled++;
      entry.compiled.set(name, c);
    }
    return c;
  }
}

export function compileOrNull(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): CompiledQuery | null {
  const out = compileQuery(schema, document, operationName ?? undefined);
  return isCompiledQuery(out) ? out : null;
}

/**
 * Input types from which a cycle can be reached (RecordFilter: `and`, `or`, `not`). graphql-jit
 * writes out a variable of such a type field by field, recursion included, and one
 * `$filter: RecordFilter` blocked the event loop for many seconds
 * (docs/decisions.md#graphql-jit-for-execution). Variables are coerced by graphql-js anyway, so
 * those operations simply stay on graphql-js.
 */
export function recursiveInputTypes(schema: GraphQLSchema): Set<string> {
  const edges = new Map<string, string[]>();
  for (const t of Object.values(schema.getTypeMap()))
    if (isInputObjectType(t))
      edges.set(
        t.name,
        Object.values(t.getFields())
          .map((f) => getNamedType(f.type as GraphQLInputType))
          .filter(isInputObjectType)
          .map((n) => n.name),
      );
  const out = new Set<string>();
  for (const start of edges.keys()) {
    // Depth-first from start; a type met again on the current path closes a cycle.
    const path = new Set<string>();
    const done = new Set<string>();
    const cyclic = (name: string): boolean => {
      if (path.has(name)) return true;
      if (done.has(name)) return false;
      path.add(name);
      const found = (edges.get(name) ?? []).some(cyclic);
      path.delete(name);
      done.add(name);
      return found;
    };
    if (cyclic(start)) out.add(start);
  }
  return out;
}

const namedTypeOf = (t: TypeNode): string =>
  t.kind === Kind.NAMED_TYPE ? t.name.value : namedTypeOf(t.type);

function hasRecursiveVariable(
  document: DocumentNode,
  operationName: string | null | undefined,
  recursive: ReadonlySet<string>,
): boolean {
  const op = document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName),
  );
  return (
    op?.kind === Kind.OPERATION_DEFINITION &&
    (op.variableDefinitions ?? []).some((v) => recursive.has(namedTypeOf(v.type)))
  );
}
