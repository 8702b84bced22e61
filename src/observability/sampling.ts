import { ERROR_STATUS, type ErrorCode } from '../errors.js';

/** At most one log line per code in this time, during a flood of refusals. */
export const REFUSAL_LOG_INTERVAL_MS = 1_000;

/**
 * Log lines of refusals by a limit, sampled per error code: the first refusal of a code is logged,
 * then at most one per interval, carrying `suppressed`, how many of that code went unlogged since
 * the line before. A flood of 429s would otherwise write a line each (megabytes a second), which
 * costs the server the CPU the limit saves and buries everything else in the log. The metrics still
 * count every refusal. A 5xx is never sampled: each is a failure someone has to read.
 */
export class RefusalSampler {
  /** Per code: when its last line was written, and how many were held back since. */
  private readonly codes = new Map<ErrorCode, { at: number; suppressed: number }>();

  constructor(
    private readonly intervalMs = REFUSAL_LOG_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Whether this refusal gets its log line: undefined when it is held back, else the fields to add to
   * the line (`suppressed` when some were held back before it).
   */
  take(code: ErrorCode): { suppressed?: number } | undefined {
    if (ERROR_STATUS[code] >= 500) return {};
    const at = this.now();
    const last = this.codes.get(code);
    if (last && at - last.at < this.intervalMs) {
      last.suppressed++;
      return undefined;
    }
    this.codes.set(code, { at, suppressed: 0 });
    return last?.suppressed ? { suppressed: last.suppressed } : {};
  }
}

const samplers = new WeakMap<object, RefusalSampler>();

/**
 * The sampler of one app (its root Fastify instance), shared by everything that logs its refusals
 * (observability/http.ts, http/client-errors.ts); two apps in one process count apart.
 */
export function refusalSampler(app: object): RefusalSampler {
  let s = samplers.get(app);
  if (!s) {
    s = new RefusalSampler();
    samplers.set(app, s);
  }
  return s;
}
