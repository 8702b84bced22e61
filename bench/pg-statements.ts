import pg from 'pg';

/**
 * Calls `record` with the text and parameters of every statement this process's `pg` clients
 * send, until the returned function is called. The gateway's own Client class
 * (src/db/database.ts) reaches `pg.Client.prototype.query` through `super.query`, so this sees
 * the gateway's statements exactly as they go out. Used by bench/sql-capture.ts (a preload),
 * bench/aggregates.ts and test/aggregates-plan.test.ts (in process), so that none of them keeps a
 * second copy of the gateway's SQL that could drift from it.
 */
export function onStatements(record: (text: string, values: unknown[]) => void): () => void {
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [config, values] = args as [unknown, unknown];
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    const params = Array.isArray(values) ? values : (config as { values?: unknown[] } | null)?.values;
    if (typeof text === 'string') record(text, params ?? []);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return () => {
    pg.Client.prototype.query = original;
  };
}
