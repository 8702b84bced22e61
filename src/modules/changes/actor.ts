import type { Viewer } from '../auth/index.js';
import type { Actor } from './types.js';

/** Who the request acts as, for the change log. */
export const actorOf = ({ viewer }: { viewer: Viewer }): Actor => ({
  userId: viewer.userId,
  keyId: viewer.keyId,
  source: 'api',
});
