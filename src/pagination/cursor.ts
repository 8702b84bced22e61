import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';

/**
 * Opaque keyset cursors: base64url(JSON of the sort values) + "." + a truncated HMAC.
 * The HMAC covers the list's scope (say "portfolio-projects:pf_…"), so a cursor cannot be edited,
 * nor replayed on another list. The secret lives in the database, so every replica accepts every cursor.
 */
export type CursorValues = (string | number)[];

export class CursorCodec {
  constructor(private readonly secret: string) {}

  private sign(scope: string, payload: string): string {
    return createHmac('sha256', this.secret)
      .update(scope)
      .update('\0')
      .update(payload)
      .digest('base64url')
      .slice(0, 16);
  }

  encode(scope: string, values: CursorValues): string {
    const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
    return `${payload}.${this.sign(scope, payload)}`;
  }

  decode(scope: string, cursor: string, arity: number): CursorValues {
    const bad = () =>
      new AppError(
        'INVALID_CURSOR',
        'The cursor (startKey / after / before) is malformed, was altered, or belongs to another list. Use a nextKey or cursor exactly as returned for this list.',
      );
    if (typeof cursor !== 'string' || cursor.length > 512) throw bad();
    const dot = cursor.indexOf('.');
    if (dot <= 0) throw bad();
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.sign(scope, payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
    try {
      const values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!Array.isArray(values) || values.length !== arity) throw bad();
      if (!values.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))))
        throw bad();
      return values;
    } catch {
      throw bad();
    }
  }
}
