import { expect, test } from 'vitest';
import { BoundedNames } from '../../src/observability/names.js';
import { tracingRequested } from '../../src/observability/otel.js';
import { operationSpan, sanitizeSql, tracedBatch, tracingEnabled } from '../../src/observability/tracing.js';

test('tracing is off by default, and off costs nothing: the batch function itself, the operation run directly', async () => {
  expect(tracingEnabled()).toBe(false);
  const batch = async (keys: readonly string[]) => keys.map((k) => k.length);
  expect(tracedBatch('x', batch)).toBe(batch);
  const result: { data: number; errors?: unknown[] } = { data: 1 };
  const fn = async () => result;
  expect(await operationSpan('query', 'Q', undefined, fn)).toBe(result);
});

test('the OTEL_* environment turns tracing on; nothing set, none, or OTEL_SDK_DISABLED keep it off', () => {
  expect(tracingRequested({})).toBe(false);
  expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
  expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
    true,
  );
  expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  expect(
    tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
  ).toBe(false);
  expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
});

test('SQL in spans keeps its shape and parameters, never a literal', () => {
  expect(sanitizeSql(`select * from api_keys where key_hash = 'abc''def' and n = 42 and id = $1`)).toBe(
    'select * from api_keys where key_hash = ? and n = ? and id = $1',
  );
  expect(
    sanitizeSql(`select $$secret$$, $tag$also secret$tag$, E'x\\'y', -3.5e2 from t1 where "col2" = $12`),
  ).toBe('select ?, ?, ?, ? from t1 where "col2" = $12');
});

test('operation names as labels: the first N distinct, then other; odd or long names are other', () => {
  const names = new BoundedNames(2);
  expect(names.label('A')).toBe('A');
  expect(names.label('B')).toBe('B');
  expect(names.label('A')).toBe('A');
  expect(names.label('C')).toBe('other');
  expect(names.label(undefined)).toBe('(anonymous)');
  expect(new BoundedNames().label('x'.repeat(65))).toBe('other');
  expect(new BoundedNames().label('a"b')).toBe('other');
});
