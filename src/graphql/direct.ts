import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Context } from '../context.js';
import { HEAVY_GRAPHQL_COST, LARGE_GRAPHQL_COST } from '../http/admission.js';
import { jsonBytes } from '../http/json-bytes.js';
import { answer, type FormatError } from './apollo-executor.js';
import type { Seam } from './seam.js';

/**
 * POST /graphql with a plain JSON body, answered by the seam (seam.ts) without Apollo's request
 * pipeline: the seam reads the text (trusted documents, the text limits, its cache of parsed and
 * validated documents) and runs it. The answer is Apollo's, byte for byte: the same `answer` the
 * executor plugin gives Apollo (status, headers and formatted errors, apollo-executor.ts), then what
 * Apollo's HTTP layer adds, the JSON content type and the body as `stringifyResult` writes it
 * (errors, data, extensions). test/graphql-direct.test.ts holds every case to Apollo's own answer.
 *
 * Apollo keeps the other shapes of GraphQL over HTTP: GET, automatic persisted queries
 * (`extensions` other than a trusted document's hash), another Accept or Content-Type, and any body
 * that is not a JSON object with a non-empty string `query`. It hands what it reads to the same seam
 * (apollo-executor.ts).
 */
export function installDirectAnswers(
  graphql: FastifyInstance,
  seam: Seam,
  formatError: FormatError,
  trusted: boolean,
): void {
  graphql.addHook('preHandler', (req, reply, done) => {
    const body = directBody(req, trusted);
    if (!body) return done();
    if (req.obs) req.obs.direct = true;
    const ctx = req.ctx as Context;
    let op: ReturnType<Seam['read']>;
    try {
      op = seam.read(body, ctx.viewer.admin);
    } catch (err) {
      // A refusal before parsing (a limit, an untrusted text): the error body the hooks send.
      return done(err as Error);
    }
    if ('errors' in op) return send(reply, answer(ctx, { errors: op.errors }, formatError, false));
    seam
      .run(ctx, op, body.variables, {
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

/**
 * The body of a request Apollo would read as this one reads it, or undefined for Apollo to read.
 * With trusted documents, a body may name its document by `documentId` or by
 * `extensions.persistedQuery` alone, and its `query` may be absent.
 */
function directBody(req: FastifyRequest, trusted: boolean) {
  if (req.method !== 'POST') return undefined;
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !/^application\/json\s*(;|$)/i.test(type)) return undefined;
  const accept = req.headers.accept;
  // Apollo answers these with application/json; anything else it negotiates itself.
  if (accept !== undefined && accept !== '*/*' && accept !== 'application/json') return undefined;
  const body = req.body as Record<string, unknown> | null | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { query, operationName, variables, extensions, documentId } = body;
  const named = trusted && (documentId !== undefined || onlyPersistedQuery(extensions));
  if (!named && (typeof query !== 'string' || query === '' || 'extensions' in body || 'documentId' in body))
    return undefined;
  if (named && query !== undefined && typeof query !== 'string') return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return undefined;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
  return {
    query: (query as string | undefined) ?? '',
    operationName: operationName ?? undefined,
    variables: (variables ?? {}) as Record<string, unknown>,
    documentId,
    extensions,
  };
}

const onlyPersistedQuery = (extensions: unknown) =>
  isRecord(extensions) && Object.keys(extensions).length === 1 && isRecord(extensions.persistedQuery);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

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
