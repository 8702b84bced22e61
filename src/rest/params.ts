import { AppError, type ErrorDetail } from '../errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination/connection.js';

type Query = Record<string, unknown>;

/** A parameter name without case and punctuation, to catch near misses (`start_key`, `Limit`). */
const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Paging parameters of other APIs: a client sending one expects paging that would not happen. */
const PAGING_WORDS = new Set([
  'offset',
  'page',
  'pagesize',
  'perpage',
  'skip',
  'cursor',
  'after',
  'start',
  'size',
]);

/** Collects every problem with a request's parameters and body, then throws one 400 listing them all. */
export class ParamChecker {
  readonly details: ErrorDetail[] = [];

  constructor(private readonly query: Query) {}

  /** A required query parameter: a non-empty string given once. */
  required(name: string): string {
    const v = this.query[name];
    if (v === undefined) this.details.push({ field: name, reason: `query parameter ${name} is required` });
    else if (Array.isArray(v))
      this.details.push({ field: name, reason: `query parameter ${name} was given more than once` });
    else if (typeof v !== 'string' || v.trim() === '')
      this.details.push({ field: name, reason: `query parameter ${name} must not be empty` });
    else return v;
    return '';
  }

  /**
   * Unknown query parameters (cache busters such as `_=123`, tracking parameters) are ignored, but
   * a near miss of one this path takes (`startkey`, `Limit`) or another API's paging word (`offset`)
   * is refused: ignoring it would make a client read page one again and again.
   */
  only(names: string[]): void {
    const known = new Map(names.map((n) => [squash(n), n]));
    for (const k of Object.keys(this.query)) {
      if (names.includes(k)) continue;
      if (known.has(squash(k)) || (names.includes('startKey') && PAGING_WORDS.has(squash(k))))
        this.details.push({
          field: k,
          reason: `unknown query parameter; this path takes ${names.join(', ') || 'none'}`,
        });
    }
  }

  /** `startKey`: absent or empty (`startKey=`) both mean the first page. */
  startKey(): string | undefined {
    return this.query.startKey === '' ? undefined : this.optional('startKey');
  }

  optional(name: string): string | undefined {
    const v = this.query[name];
    if (v === undefined) return undefined;
    if (Array.isArray(v)) {
      this.details.push({ field: name, reason: `query parameter ${name} was given more than once` });
      return undefined;
    }
    if (typeof v !== 'string' || v === '') {
      this.details.push({ field: name, reason: `query parameter ${name} must not be empty` });
      return undefined;
    }
    return v;
  }

  /** `limit`: an integer from 1 to 5000; DEFAULT_PAGE_SIZE when omitted. */
  limit(): number {
    const v = this.optional('limit');
    if (v === undefined) return DEFAULT_PAGE_SIZE;
    if (!/^[0-9]{1,5}$/.test(v) || Number(v) < 1 || Number(v) > MAX_PAGE_SIZE) {
      this.details.push({ field: 'limit', reason: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}` });
      return DEFAULT_PAGE_SIZE;
    }
    return Number(v);
  }

  /** The JSON body must be an object with exactly these members. */
  body(body: unknown, members: Record<string, 'object' | 'string'>): Record<string, unknown> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      this.details.push({
        field: 'body',
        reason: `the body must be a JSON object with ${Object.keys(members).join(', ')}`,
      });
      return {};
    }
    const b = body as Record<string, unknown>;
    for (const k of Object.keys(b)) {
      if (!(k in members))
        this.details.push({
          field: k,
          reason: `unknown member; the body takes only ${Object.keys(members).join(', ')}`,
        });
    }
    for (const [k, type] of Object.entries(members)) {
      const v = b[k];
      // An object member (properties) is checked by the resolver's own validator, so REST and
      // GraphQL give the same details; only its absence is a REST matter.
      if (v === undefined || (type === 'object' && v === null))
        this.details.push({ field: k, reason: `${k} is required` });
      else if (type === 'string' && (typeof v !== 'string' || v.trim() === ''))
        this.details.push({ field: k, reason: `${k} must be a non-empty string` });
    }
    return b;
  }

  done(): void {
    if (this.details.length) {
      throw new AppError('VALIDATION_FAILED', 'The request is invalid; see details.', this.details);
    }
  }
}
