import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The header every delivery carries: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`. */
export const SIGNATURE_HEADER = 'Sdg-Signature';

/** A new endpoint secret: 32 random bytes. Shown once; the gateway keeps it to sign with. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export function sign(secret: string, timestamp: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/**
 * The receiver's check (docs/changes.md shows the same in a few lines): the signature must match
 * and the timestamp be within `toleranceSeconds` of now, so a captured delivery cannot be replayed
 * later.
 */
export function verify(
  secret: string,
  header: string,
  body: string,
  toleranceSeconds = 300,
  now = Date.now(),
): boolean {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1) return false;
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const want = Buffer.from(sign(secret, t, body).split('v1=')[1], 'hex');
  const got = Buffer.from(parts.v1, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
