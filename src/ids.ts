import { randomBytes } from 'node:crypto';

/**
 * Ids are `<prefix>_<22 base62 chars>`: the prefix names the type so `node(id)` can resolve any id,
 * and the same string is the id in REST and GraphQL.
 */
export const ID_PREFIX = {
  Organization: 'org',
  Portfolio: 'pf',
  User: 'usr',
  Project: 'prj',
  Parcel: 'par',
  Contact: 'con',
  ApiKey: 'key',
  WebhookEndpoint: 'whk',
  WebhookDelivery: 'whd',
} as const;
export type NodeType = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(22, '0');
}

export function newId(type: NodeType): string {
  return `${ID_PREFIX[type]}_${base62(randomBytes(16))}`;
}

const BY_PREFIX = new Map<string, NodeType>(Object.entries(ID_PREFIX).map(([t, p]) => [p, t as NodeType]));

export function typeOfId(id: string): NodeType | undefined {
  const i = id.indexOf('_');
  return i > 0 ? BY_PREFIX.get(id.slice(0, i)) : undefined;
}
