import { createHash, randomBytes } from 'node:crypto';

/** Keys look like `sdg_<43 base64url chars>`: 32 random bytes, with a prefix that secret scanners can match. */
export function generateApiKey(): string {
  return `sdg_${randomBytes(32).toString('base64url')}`;
}

/**
 * Keys carry 256 bits of entropy, so a plain SHA-256 is enough to make the stored hash useless
 * to an attacker (no dictionary to try), and it keeps the per-request lookup cheap.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The part of a key that is safe to show and log: enough to tell keys apart. */
export function keyPrefix(key: string): string {
  return key.slice(0, 10);
}
