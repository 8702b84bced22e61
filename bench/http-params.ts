/**
 * What the two raw floors (bench/baseline.ts, bench/one-statement.ts) share of REST's parameter
 * checks: the same refusals, with the gateway's codes, so neither does less work than it would.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function intParam(q: URLSearchParams, name: string, fallback: number, max: number): number {
  const v = q.get(name);
  if (v === null) return fallback;
  if (!/^[0-9]{1,5}$/.test(v) || Number(v) < 1 || Number(v) > max)
    throw new HttpError(400, 'VALIDATION_FAILED', `${name} must be an integer from 1 to ${max}`);
  return Number(v);
}

export function required(q: URLSearchParams, name: string): string {
  const v = q.get(name);
  if (!v) throw new HttpError(400, 'VALIDATION_FAILED', `query parameter ${name} is required`);
  return v;
}
