import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { setTracingEnabled } from './tracing.js';

type Env = Record<string, string | undefined>;

/**
 * Whether the standard OTEL_* environment asks for traces: an OTLP endpoint, or an
 * OTEL_TRACES_EXPORTER other than `none`; OTEL_SDK_DISABLED=true wins. Nothing set: off.
 */
export function tracingRequested(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Registers a tracer provider (W3C traceparent propagation) with these span processors and turns the
 * gateway's spans on. No context manager: the gateway passes each span's parent itself (tracing.ts),
 * because AsyncLocalStorage's promise hooks on Node 20 cost every promise of every request. The SDK is imported here, only when called.
 * Returns the shutdown, which flushes and turns the spans off again.
 */
export async function startTracing(
  spanProcessors: SpanProcessor[],
  env: Env = process.env,
): Promise<() => Promise<void>> {
  const [{ NodeTracerProvider }, { resourceFromAttributes }, api] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/api'),
  ]);
  const provider = new NodeTracerProvider({
    // The sampler comes from OTEL_TRACES_SAMPLER / _ARG (the SDK reads them); default: parent-based, always on.
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'solar-data-gateway' }),
    spanProcessors,
  });
  provider.register({ contextManager: null });
  setTracingEnabled(true);
  return async () => {
    setTracingEnabled(false);
    await provider.shutdown();
    api.trace.disable();
    api.context.disable();
    api.propagation.disable();
  };
}

/**
 * Tracing from the environment (server.ts): undefined when not requested. OTEL_TRACES_EXPORTER
 * `otlp` (the default, OTLP over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, read by the exporter) or
 * `console`; spans leave in batches (OTEL_BSP_* tune them).
 */
export async function startTracingFromEnv(env: Env = process.env) {
  if (!tracingRequested(env)) return undefined;
  const kind = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() || 'otlp';
  const sdk = await import('@opentelemetry/sdk-trace-node');
  let exporter: SpanExporter;
  if (kind === 'console') exporter = new sdk.ConsoleSpanExporter();
  else if (kind === 'otlp') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    exporter = new OTLPTraceExporter();
  } else throw new Error(`OTEL_TRACES_EXPORTER must be otlp, console or none, got "${kind}"`);
  return startTracing([new sdk.BatchSpanProcessor(exporter)], env);
}
