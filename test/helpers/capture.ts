import type { CompiledQuery, Kysely } from 'kysely';
import type { DB } from '../../src/db/types.js';
import { type PageRequest, type PageRow, pagesFor } from '../../src/modules/records/repository.js';

/** Runs `pagesFor` and returns its pages and the statements it sent, as compiled. */
export async function capturePages(
  db: Kysely<DB>,
  reqs: PageRequest[],
): Promise<{ pages: PageRow[][]; sent: CompiledQuery[] }> {
  const sent: CompiledQuery[] = [];
  const exec = db.getExecutor();
  // A proxy, bound to the real executor (it has private members), that records what it runs.
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
  const pages = await pagesFor({ getExecutor: () => spy } as unknown as Kysely<DB>, reqs);
  return { pages, sent };
}
