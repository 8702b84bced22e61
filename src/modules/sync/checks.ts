import { AppError } from '../../errors.js';
import { MAX_BULK_ITEMS } from './types.js';

/**
 * Refusals of a sync call's input as a whole (VALIDATION_FAILED), before anything is read. Upserts,
 * links and sources all use them, so they stand apart from each of those.
 */

export const invalid = (field: string, message: string, reason = message) =>
  new AppError('VALIDATION_FAILED', message, [{ field, reason }]);

/** Refuses a call over the bulk limit before anything is read. */
export function checkBatchSize(field: string, n: number): void {
  if (n > MAX_BULK_ITEMS)
    throw invalid(
      field,
      `${field} holds ${n} entries; at most ${MAX_BULK_ITEMS} are accepted per call. Send them in calls of ${MAX_BULK_ITEMS}.`,
      `at most ${MAX_BULK_ITEMS} per call (got ${n})`,
    );
}
