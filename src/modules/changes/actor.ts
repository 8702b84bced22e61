import type { Context } from '../../context.js';
import type { Actor } from './types.js';

/** Who the request acts as, for the change log. */
export const actorOf = (ctx: Context): Actor => ({
  userId: ctx.viewer.userId,
  keyId: ctx.viewer.keyId,
  source: 'api',
});
