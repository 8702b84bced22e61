/**
 * A preload (`node --import dist/bench/sql-capture.js dist/src/server.js`) that appends every
 * statement a process sends through `pg` to the file named by SDG_BENCH_SQL_LOG, one JSON line each:
 * the text and the parameters as pg puts them on the wire (prepareValue). bench/maps.ts reads them
 * to run a request's own statements raw, as its floor, without a second copy of the gateway's SQL
 * that could drift from it. Without SDG_BENCH_SQL_LOG it changes nothing.
 */
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { onStatements } from './pg-statements.js';

export interface CapturedStatement {
  text: string;
  values: (string | null)[];
}

const file = process.env.SDG_BENCH_SQL_LOG;
if (file) {
  const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
    prepareValue: (v: unknown) => string | null;
  };
  onStatements((text, values) => {
    const line: CapturedStatement = { text, values: values.map((v) => prepareValue(v)) };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  });
}
