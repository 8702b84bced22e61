import {
  type Context as OtelContext,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { LogEvent } from 'kysely';

/**
 * Spans through `@opentelemetry/api` only; the SDK is loaded by src/observability/otel.ts when the
 * OTEL_* environment asks for it. Off (the default) every helper here is one boolean test: no span
 * objects, no context propagation.
 *
 * On, parents are passed explicitly, never through a context manager: on Node 20 AsyncLocalStorage
 * installs promise hooks that every promise of every request pays for. A request's `RequestTrace`
 * travels on its observation (HTTP, executor) and its statement counter (the database handle); a
 * DataLoader batch is the parent of the statements its function compiles synchronously (see
 * `activeParent`).
 */
let on = false;
let cachedTracer: Tracer | undefined;

export const tracingEnabled = () => on;

/** Turned on by otel.ts once a tracer provider is registered (and off again by its shutdown). */
export function setTracingEnabled(value: boolean): void {
  on = value;
  cachedTracer = undefined;
}

// One lookup per provider, not one per span (getTracer builds a key and searches a map).
const tracer = () => (cachedTracer ??= trace.getTracer('solar-data-gateway'));

/** Where a request's next span hangs: the server span, then, while it runs, the operation's. */
export interface RequestTrace {
  parent: OtelContext;
}

/**
 * The span context that code running synchronously inside a traced batch function belongs to. Set
 * only for the synchronous part of the call, so it can never leak into another request: a
 * statement compiled there (Kysely compiles, and so runs the request plugin, before its first
 * await) takes the batch as its parent; one compiled after an await takes the request's.
 */
let syncParent: OtelContext | undefined;

/** The parent of a statement being compiled now for a request with this trace. */
export const activeParent = (t: RequestTrace): OtelContext => syncParent ?? t.parent;

/** The span of an HTTP request, continuing the caller's W3C `traceparent` when it sends one. */
export function startHttpSpan(method: string, route: string, headers: Record<string, unknown>) {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer().startSpan(
    `${method} ${route}`,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'http.route': route, 'url.scheme': 'http' },
    },
    parent,
  );
  return { span, trace: { parent: trace.setSpan(parent, span) } as RequestTrace };
}

/** Ends `span` with `fn`'s outcome; only called while tracing is on. */
async function ending<T>(span: Span, run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    // The error's class only: messages can quote values.
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', (err as Error)?.constructor?.name ?? 'Error');
    throw err;
  } finally {
    span.end();
  }
}

/**
 * The span of one GraphQL operation (REST routes run one too): its name and type, never variables.
 * While it runs it is the request's parent for loader batches and statements.
 */
export function operationSpan<T extends { errors?: readonly unknown[] }>(
  type: string,
  name: string,
  requestTrace: RequestTrace | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  // Not async itself: with tracing off, the operation's own promise is the caller's.
  return on ? inOperationSpan(type, name, requestTrace, fn) : fn();
}

async function inOperationSpan<T extends { errors?: readonly unknown[] }>(
  type: string,
  name: string,
  requestTrace: RequestTrace | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const t = requestTrace ?? { parent: ROOT_CONTEXT };
  const outer = t.parent;
  const span = tracer().startSpan(
    `${type} ${name}`,
    { attributes: { 'graphql.operation.type': type, 'graphql.operation.name': name } },
    outer,
  );
  t.parent = trace.setSpan(outer, span);
  try {
    const result = await ending(span, fn());
    if (result.errors?.length) {
      span.setAttribute('graphql.errors', result.errors.length);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } finally {
    t.parent = outer;
  }
}

/** The request whose loaders are being built now (synchronously; see withRequestTrace). */
let building: RequestTrace | undefined;

/** Builds a request's loaders with its trace at hand: tracedBatch, called meanwhile, keeps it. */
export function withRequestTrace<T>(t: RequestTrace | undefined, make: () => T): T {
  if (!on) return make();
  const outer = building;
  building = t;
  try {
    return make();
  } finally {
    building = outer;
  }
}

/**
 * A DataLoader batch function that runs in a span of its own (`dataloader.batch <name>`), with the
 * batch's size, under its request's current parent; the function itself when tracing is off
 * (decided when the loader is made, once per request).
 */
export function tracedBatch<K, V>(name: string, fn: (keys: readonly K[]) => Promise<V[]>) {
  if (!on) return fn;
  const t = building;
  return (keys: readonly K[]) => {
    const parent = t?.parent ?? ROOT_CONTEXT;
    const span = tracer().startSpan(
      `dataloader.batch ${name}`,
      { attributes: { 'sdg.loader': name, 'sdg.batch.size': keys.length } },
      parent,
    );
    const outer = syncParent;
    syncParent = trace.setSpan(parent, span);
    let run: Promise<V[]>;
    try {
      run = fn(keys);
    } catch (err) {
      run = Promise.reject(err);
    } finally {
      syncParent = outer;
    }
    return ending(span, run);
  };
}

/**
 * SQL text with every literal replaced by `?`. Kysely sends values as parameters ($1, …), so this is
 * a second line: a literal written into a raw statement never reaches a span.
 */
export function sanitizeSql(text: string): string {
  return text
    .replace(/\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$/g, '?')
    .replace(/[Ee]'(?:[^'\\]|\\.|'')*'/g, '?')
    .replace(/[BbXxUu]?'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$".])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b/g, '?')
    .slice(0, 4000);
}

/** What a statement span says about a statement text, computed once per distinct text. */
interface StatementInfo {
  text: string;
  verb: string;
}
const statementInfo = new Map<string, StatementInfo>();
const STATEMENT_INFO_MAX = 1_000;

function infoOf(sql: string): StatementInfo {
  let info = statementInfo.get(sql);
  if (!info) {
    const text = sanitizeSql(sql);
    // The first keyword after leading comments (a statement may start with a /* marker */).
    const verb = /^(?:\s|\/\*[\s\S]*?\*\/|--[^\n]*\n)*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
    info = { text, verb };
    // Texts vary with the length of IN lists; a full cache starts over rather than grow.
    if (statementInfo.size >= STATEMENT_INFO_MAX) statementInfo.clear();
    statementInfo.set(sql, info);
  }
  return info;
}

/** Each statement a request's handle compiles, with the span it belongs under (read by sqlSpan). */
const statementParents = new WeakMap<object, OtelContext>();

/** Called by the request's database plugin as Kysely compiles a statement (queryId: Kysely's). */
export function noteStatement(queryId: object, t: RequestTrace): void {
  statementParents.set(queryId, activeParent(t));
}

/**
 * One span per SQL statement a request sends through its handle, from Kysely's log event (after the
 * fact, with its measured duration). Statements outside a request's handle (a transaction's BEGIN
 * and COMMIT, which Kysely sends itself, and background work) have no parent to hang under and get
 * no span.
 */
export function sqlSpan(event: LogEvent): void {
  if (!on) return;
  const parent = statementParents.get(event.query.queryId);
  if (!parent) return;
  const end = Date.now();
  const { text, verb } = infoOf(event.query.sql);
  const span = tracer().startSpan(
    verb,
    {
      kind: SpanKind.CLIENT,
      startTime: end - event.queryDurationMillis,
      attributes: { 'db.system.name': 'postgresql', 'db.operation.name': verb, 'db.query.text': text },
    },
    parent,
  );
  if (event.level === 'error') {
    span.setStatus({ code: SpanStatusCode.ERROR });
    // Postgres's SQLSTATE, never the message (it can quote values, such as a duplicate key).
    const code = (event.error as { code?: unknown })?.code;
    span.setAttribute('error.type', typeof code === 'string' ? code : 'error');
  }
  span.end(end);
}
