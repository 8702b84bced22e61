import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  parse,
  validate,
} from 'graphql';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { rejection } from './errors.js';
import type { Executor, RunOptions } from './executor.js';
import { checkQueryText } from './input-limits.js';
import type { GraphQLLimits } from './limits.js';
import type { Operation } from './operation.js';
import { type TrustedDocuments, trustedQuery } from './trusted-documents.js';

/** An operation as a client sends it: its text, or the hash of a trusted document. */
export interface OperationSource {
  query: string;
  operationName?: string | null;
  /** With trusted documents: the hash of the document (GraphQL over HTTP's `documentId`)… */
  documentId?: unknown;
  /** …or `persistedQuery.sha256Hash` here. */
  extensions?: unknown;
}

/** A source the seam could not turn into an operation: graphql-js's parse or validation errors. */
export interface Unreadable {
  errors: readonly GraphQLError[];
}

/**
 * The seam every GraphQL operation passes, whichever door it came in by (docs/architecture.md):
 * REST routes, POST /graphql, Apollo's other requests (GET, persisted queries), and WebSocket
 * messages. Before it, each transport authenticates the key against its current state and takes
 * from the key's rate-limit budget; from here on the path is the same:
 *
 * 1. `read`: trusted documents (when enforced), the query-text limits, then the parsed and validated
 *    document from the cache of texts seen before, or parsed and validated now and remembered;
 * 2. `run`: the Executor, with the input limits, the measured cost, the admission tiers, the read
 *    pool and the engine (plan, graphql-jit or graphql-js), which it records for the access log.
 *
 * A REST route's document and one Apollo has read arrive already parsed and validated, and start
 * at `run`.
 */
export class Seam {
  private readonly documents: DocumentCache;

  constructor(
    readonly executor: Executor,
    private readonly limits: GraphQLLimits,
    private readonly trusted?: TrustedDocuments,
  ) {
    this.documents = new DocumentCache();
  }

  get schema(): GraphQLSchema {
    return this.executor.schema;
  }

  /**
   * The operation a source names, for a caller whose key is `admin` or not (trusted documents let
   * admin keys send their own texts). Throws the AppError of a refusal before parsing (a limit, an
   * untrusted text); returns the errors of a text that does not parse or validate, or names no
   * operation it has.
   */
  read(source: OperationSource, admin: boolean): Operation | Unreadable {
    const query = this.trusted ? trustedQuery(this.trusted, source, admin) : source.query;
    const operationName = source.operationName ?? undefined;
    const known = this.documents.get(query, operationName);
    if (known) return known;
    checkQueryText(query, this.limits);
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.limits.maxTokens });
    } catch (err) {
      return { errors: [coded(err as GraphQLError, 'GRAPHQL_PARSE_FAILED')] };
    }
    const invalid = validate(this.schema, document);
    if (invalid.length) return { errors: invalid.map((e) => coded(e, 'GRAPHQL_VALIDATION_FAILED')) };
    const operation = getOperationAST(document, operationName);
    if (!operation) return { errors: [rejection(noOperation(document, operationName))] };
    const op: Operation = { document, operation, operationName };
    this.documents.remember(query, operationName, op);
    return op;
  }

  /** Runs an operation that `read` (or REST's `prepare`, or Apollo) produced. */
  run(
    ctx: Context,
    op: Operation,
    variables: Record<string, unknown>,
    opts: RunOptions,
  ): Promise<ExecutionResult> {
    return this.executor.execute(ctx, op, variables, opts);
  }

  /** Documents remembered, and the characters of their texts (tests). */
  get cached(): { entries: number; chars: number } {
    return this.documents.size;
  }
}

/** graphql-js's error with the code Apollo gives the same failure, so both doors answer alike. */
function coded(e: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(e.message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    originalError: e.originalError,
    extensions: { ...e.extensions, code },
  });
}

/** The document has no operation to run: name the ones it has, so the caller can pick. */
export function noOperation(document: DocumentNode, name?: string | null): AppError {
  const names = document.definitions
    .filter((d) => d.kind === Kind.OPERATION_DEFINITION)
    .map((d) => (d.name ? `"${d.name.value}"` : '(anonymous)'));
  return new AppError(
    'BAD_REQUEST',
    name
      ? `The document has no operation named "${name}"; it has ${names.join(', ')}. Set operationName to one of them.`
      : `The document has ${names.length} operations (${names.join(', ')}); set operationName to the one to run.`,
  );
}

/**
 * Parsed and validated documents by text and operation name, so a text seen before is neither
 * parsed nor validated again. Bounded by entries and by the length of their texts, oldest out
 * first: each entry holds its parsed document, many times the size of its text, so a client sending
 * ever new texts holds a bounded amount here.
 */
export class DocumentCache {
  private readonly byText = new Map<string, Operation>();
  private chars = 0;

  constructor(
    private readonly maxEntries = 500,
    private readonly maxChars = 300_000,
  ) {}

  get(query: string, operationName: string | undefined): Operation | undefined {
    return this.byText.get(keyOf(query, operationName));
  }

  remember(query: string, operationName: string | undefined, op: Operation): void {
    const key = keyOf(query, operationName);
    if (this.byText.has(key) || key.length > this.maxChars) return;
    this.byText.set(key, op);
    this.chars += key.length;
    for (const oldest of this.byText.keys()) {
      if (this.byText.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.byText.delete(oldest);
      this.chars -= oldest.length;
    }
  }

  get size(): { entries: number; chars: number } {
    return { entries: this.byText.size, chars: this.chars };
  }
}

const keyOf = (query: string, operationName: string | undefined) => `${operationName ?? ''}\0${query}`;
