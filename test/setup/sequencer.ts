import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * The longest files of a run on PGlite, longest first. Their time is not in their size: most start
 * servers, browsers, builds or benchmarks as their own processes. Vitest runs unknown files largest
 * first, so these used to start last and run alone at the end while the other core idled. Keep it
 * current when a file grows past the shortest of these.
 */
const SLOW = [
  'test/bench-smoke.test.ts',
  'test/imports-scale.test.ts',
  'test/cli-data-lock.test.ts',
  'test/e2e/example-web.browser.test.ts',
  'test/e2e/graphiql.browser.test.ts',
  'test/e2e/graphiql-subscription.browser.test.ts',
  'test/settings-process.test.ts',
  'test/faults/kill.test.ts',
  'test/security/tenant-matrix.test.ts',
  'test/engines.test.ts',
  'test/faults/webhook-kill.test.ts',
  'test/e2e/dashboard.browser.test.ts',
  'test/security/http-limits.test.ts',
  'test/links-concurrency.test.ts',
  'test/faults/shutdown.test.ts',
  'test/websocket-seam.test.ts',
  'test/filters-order.test.ts',
  'test/security/hostile-input.test.ts',
  'test/small-body-timeout.test.ts',
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW.findIndex((s) => f.moduleId.endsWith(s));
      return i < 0 ? SLOW.length : i;
    };
    // Array.prototype.sort is stable: the base order holds within each rank.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
