/**
 * Child of test/perf/v8-flags.test.ts: by what factor does V8 let the old generation grow past what
 * a full collection left? With an argument, the gateway's V8 settings are imported first, as
 * src/server.ts imports them. Run with --trace-gc-verbose, V8 prints the factor it used after each
 * full collection ("[HeapController] Limit: old size: … KB, new limit: … KB (3.0)"); the parent
 * reads it from stderr.
 *
 *   node --expose-gc --trace-gc-verbose --import tsx test/perf/heap-growth-probe.ts [with-settings]
 */
if (process.argv[2]) await import('../../src/v8-flags.js');
const gc = (globalThis as { gc?: (o?: { type: 'major'; execution?: 'sync' }) => void }).gc!;
const held = [];
for (let i = 0; i < 200_000; i++) held.push({ i, s: `x${i}` });
gc({ type: 'major', execution: 'sync' });
console.log(JSON.stringify({ held: held.length }));
