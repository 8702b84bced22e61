import type { CompiledQuery, Kysely } from 'kysely';
import type { DB } from '../../src/db/types.js';
import { type PageRequest, type PageRow, pagesFor } from '../../src/modules/records/repository.js';

/**
 * A handle on `db` that records every statement it sends, as compiled: a proxy bound to the real
 * executor (it has private members) that records what it runs.
 */
export function capturing(db: Kysely<DB>): { db: Kysely<DB>; sent: CompiledQuery[] } {
  const sent: CompiledQuery[] = [];
  const exec = db.getExecutor();
  const spy = new Proxy(exec, {
    get(target, prop) {
      if (prop === 'executeQuery')
        return (q: CompiledQuery) => {
          sent.push(q);
          return target.executeQuery(q);
        };
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { db: { getExecutor: () => spy } as unknown as Kysely<DB>, sent };
}

/** Runs `pagesFor` and returns its pages and the statements it sent, as compiled. */
export async function capturePages(
  db: Kysely<DB>,
  reqs: PageRequest[],
): Promise<{ pages: PageRow[][]; sent: CompiledQuery[] }> {
  const spy = capturing(db);
  const pages = await pagesFor(spy.db, reqs);
  return { pages, sent: spy.sent };
}
