import {
  type Attributes,
  context,
  type Context as OtelContext,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { LogEvent } from 'kysely';

/**
 * Spans through `@opentelemetry/api` only; the SDK is loaded by src/observability/otel.ts when the
 * OTEL_* environment asks for it. Off (the default) every helper here is one boolean test: no span
 * objects, no context propagation, no AsyncLocalStorage.
 */
let on = false;

export const tracingEnabled = () => on;

/** Turned on by otel.ts once a tracer provider is registered (and off again by its shutdown). */
export function setTracingEnabled(value: boolean): void {
  on = value;
}

const tracer = () => trace.getTracer('solar-data-gateway');

/** The span of an HTTP request, continuing the caller's W3C `traceparent` when it sends one. */
export function startHttpSpan(
  method: string,
  route: string,
  headers: Record<string, unknown>,
): { span: Span; ctx: OtelContext } {
  const parent = propagation.extract(context.active(), headers);
  const span = tracer().startSpan(
    `${method} ${route}`,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'http.route': route, 'url.scheme': 'http' },
    },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Runs `fn` inside a new active span; only called while tracing is on. */
async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      // The error's class only: messages can quote values.
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', (err as Error)?.constructor?.name ?? 'Error');
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The span of one GraphQL operation (REST routes run one too): its name and type, never variables. */
export function operationSpan<T extends { errors?: readonly unknown[] }>(
  type: string,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  if (!on) return fn();
  return inSpan(
    `${type} ${name}`,
    { 'graphql.operation.type': type, 'graphql.operation.name': name },
    async (span) => {
      const result = await fn();
      if (result.errors?.length) {
        span.setAttribute('graphql.errors', result.errors.length);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      return result;
    },
  );
}

/**
 * A DataLoader batch function that runs in a span of its own (`dataloader.batch <name>`), with the
 * batch's size; the function itself when tracing is off (decided when the loader is made, once per
 * request).
 */
export function tracedBatch<K, V>(name: string, fn: (keys: readonly K[]) => Promise<V[]>) {
  if (!on) return fn;
  return (keys: readonly K[]) =>
    inSpan(`dataloader.batch ${name}`, { 'sdg.loader': name, 'sdg.batch.size': keys.length }, () => fn(keys));
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

/** One span per SQL statement, from Kysely's log event (after the fact, with its measured duration). */
export function sqlSpan(event: LogEvent): void {
  if (!on) return;
  const end = Date.now();
  const text = sanitizeSql(event.query.sql);
  // The first keyword after leading comments (a statement may start with a /* marker */).
  const verb = /^(?:\s|\/\*[\s\S]*?\*\/|--[^\n]*\n)*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  const span = tracer().startSpan(`${verb}`, {
    kind: SpanKind.CLIENT,
    startTime: end - event.queryDurationMillis,
    attributes: { 'db.system.name': 'postgresql', 'db.operation.name': verb, 'db.query.text': text },
  });
  if (event.level === 'error') {
    span.setStatus({ code: SpanStatusCode.ERROR });
    // Postgres's SQLSTATE, never the message (it can quote values, such as a duplicate key).
    const code = (event.error as { code?: unknown })?.code;
    span.setAttribute('error.type', typeof code === 'string' ? code : 'error');
  }
  span.end(end);
}
