import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DocumentNode, ExecutionResult, GraphQLError, OperationDefinitionNode } from 'graphql';
import type { Context } from '../context.js';
import { HEAVY_GRAPHQL_COST, LARGE_GRAPHQL_COST } from '../http/admission.js';
import { jsonBytes } from '../http/json-bytes.js';
import { answer, type FormatError } from './apollo-executor.js';
import type { Executor } from './executor.js';

/**
 * POST /graphql for a query whose text Apollo has parsed, validated and resolved before: the
 * Executor answers it straight from the request, and Apollo's request pipeline is skipped (its
 * plugin hooks, document-store lookup, and response assembly): without it a nested query took 0.974×
 * the Node CPU, and one of 10 projects 0.863× (bench/results/2026-11-23-issue18/README.md,
 * "2026-11-27, 14:30").
 *
 * The answer is Apollo's, byte for byte: the same `answer` the executor plugin gives Apollo
 * (status, headers and formatted errors, apollo-executor.ts), then what Apollo's HTTP layer adds,
 * the JSON content type and the body as `stringifyResult` writes it (errors, data, extensions).
 * test/graphql-direct.test.ts holds every case to Apollo's own answer.
 *
 * Apollo keeps everything else: the first request of each text, GET, mutations and subscriptions,
 * automatic persisted queries (`extensions`), another Accept or Content-Type, and any body that is
 * not a plain JSON object with a string `query`.
 */
export class KnownOperations {
  private readonly byText = new Map<string, Operation>();
  private chars = 0;

  /**
   * Bounded by entries and by the length of their texts, oldest out first. Each holds its parsed
   * document, about 75 times the size of its text (the bench's nested query: 674 characters, 50 KB
   * parsed), so a client sending ever new texts holds at most about 22 MB here.
   */
  constructor(
    private readonly maxEntries = 500,
    private readonly maxChars = 300_000,
  ) {}

  get(query: string, operationName: string | undefined): Operation | undefined {
    return this.byText.get(keyOf(query, operationName));
  }

  /** Remembers an operation Apollo resolved. */
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

  /** Entries and the characters of their texts (tests). */
  get size(): { entries: number; chars: number } {
    return { entries: this.byText.size, chars: this.chars };
  }
}

export interface Operation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName?: string;
}

const keyOf = (query: string, operationName: string | undefined) => `${operationName ?? ''}\0${query}`;

/** An Apollo plugin that hands every query Apollo resolved (parsed and validated) to `known`. */
export function rememberOperations(known: KnownOperations): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, request }) {
          if (operation?.operation === 'query' && typeof request.query === 'string')
            known.remember(request.query, request.operationName ?? undefined, {
              document,
              operation,
              operationName: request.operationName ?? undefined,
            });
        },
      };
    },
  };
}

/** The body of a request Apollo would read as it reads this one, or undefined for Apollo to read. */
function directBody(req: FastifyRequest) {
  if (req.method !== 'POST') return undefined;
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !/^application\/json\s*(;|$)/i.test(type)) return undefined;
  const accept = req.headers.accept;
  // Apollo answers these with application/json; anything else it negotiates itself.
  if (accept !== undefined && accept !== '*/*' && accept !== 'application/json') return undefined;
  const body = req.body as Record<string, unknown> | null | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { query, operationName, variables } = body;
  if (typeof query !== 'string' || 'extensions' in body) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return undefined;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
  return {
    query,
    operationName: operationName ?? undefined,
    variables: (variables ?? {}) as Record<string, unknown>,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A preHandler on the /graphql scope, after its own checks (query text limits, trusted documents):
 * answers a known query, or hands the request on to Apollo.
 */
export function installDirectAnswers(
  graphql: FastifyInstance,
  executor: Executor,
  known: KnownOperations,
  formatError: FormatError,
): void {
  graphql.addHook('preHandler', (req, reply, done) => {
    const body = directBody(req);
    const op = body && known.get(body.query, body.operationName);
    if (!body || !op) return done();
    if (req.obs) req.obs.direct = true;
    const ctx = req.ctx as Context;
    executor
      .execute(ctx, op, body.variables, {
        heavyCost: HEAVY_GRAPHQL_COST,
        largeCost: LARGE_GRAPHQL_COST,
        writesJson: true,
      })
      .then(
        (result) => send(reply, answer(ctx, result, formatError, false)),
        // As the executor plugin answers an executor that threw (a client gone while it waited).
        (err) => send(reply, answer(ctx, { errors: [err as GraphQLError] }, formatError, true)),
      )
      // A fault in writing the answer itself: the error handler's masked 500, never an unhandled rejection.
      .catch((err: Error) => (reply.sent ? req.log.error({ err }, 'direct answer failed') : done(err)));
  });
}

function send(reply: FastifyReply, response: ReturnType<typeof answer>): void {
  const { http, body } = response;
  for (const [name, value] of http.headers) reply.header(name, value);
  const result = (body as { singleResult: ExecutionResult }).singleResult;
  // Apollo's order of the members (runHttpQuery's orderExecutionResultFields).
  const ordered = { errors: result.errors, data: result.data, extensions: result.extensions };
  reply
    .code(http.status ?? 200)
    .type(http.headers.get('content-type') ?? 'application/json; charset=utf-8')
    .send(jsonBytes(ordered, '\n'));
}
