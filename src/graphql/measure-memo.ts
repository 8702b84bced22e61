import { type DocumentNode, type GraphQLSchema, Kind, type OperationDefinitionNode, visit } from 'graphql';
import { measureOperation, type OperationMeasure, PAGE_SIZE_ARGS } from './limits.js';

/** Measures kept per operation: one per distinct set of page sizes asked for. */
const MAX_PER_OPERATION = 64;

interface Memo {
  /** The variables a page-size argument reads, anywhere in the document. */
  sizeVariables: string[];
  measures: Map<string, OperationMeasure>;
}

/**
 * measureOperation, remembered per operation and page sizes. A measure reads the variables only
 * through `first` and `last` (limits.ts pageSizeArgument), so two requests of one document whose
 * page-size variables are equal measure the same: a REST route's fixed document is walked once
 * per page size, not once per request. Documents are the parsed ones Apollo and the REST adapter
 * keep, so the memo lives as long as they do.
 */
export function measureRemembered(
  schema: GraphQLSchema,
  doc: DocumentNode,
  op: OperationDefinitionNode,
  variables: Record<string, unknown>,
): OperationMeasure {
  let memo = memos.get(op);
  if (!memo) {
    memo = { sizeVariables: sizeVariablesOf(doc), measures: new Map() };
    memos.set(op, memo);
  }
  // An absent variable (the argument's default applies) differs from one sent as null.
  const key = JSON.stringify(
    memo.sizeVariables.map((name) => (Object.hasOwn(variables, name) ? [variables[name]] : [])),
  );
  const known = memo.measures.get(key);
  if (known) return known;
  const measure = measureOperation(schema, doc, op, variables);
  if (memo.measures.size >= MAX_PER_OPERATION) memo.measures.clear();
  memo.measures.set(key, measure);
  return measure;
}

const memos = new WeakMap<OperationDefinitionNode, Memo>();

/** The variables passed to `first` or `last` anywhere in the document (its fragments included). */
function sizeVariablesOf(doc: DocumentNode): string[] {
  const names = new Set<string>();
  visit(doc, {
    Argument(node) {
      if (
        (PAGE_SIZE_ARGS as readonly string[]).includes(node.name.value) &&
        node.value.kind === Kind.VARIABLE
      )
        names.add(node.value.name.value);
    },
  });
  return [...names];
}
