import { describe, expect, test } from 'vitest';
import { AppError } from '../../src/errors.js';
import { checkBatchSize, MAX_BULK_ITEMS } from '../../src/modules/sync/index.js';

/** The bulk calls' size limit (issue 40), refused before anything is read or written. */
describe('checkBatchSize', () => {
  test('1,000 entries pass; 1,001 are a 400 that states the limit and how to split', () => {
    expect(MAX_BULK_ITEMS).toBe(1000);
    expect(() => checkBatchSize('items', 1000)).not.toThrow();
    let err: unknown;
    try {
      checkBatchSize('items', 1001);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).message).toBe(
      'items holds 1001 entries; at most 1000 are accepted per call. Send them in calls of 1000.',
    );
    expect((err as AppError).details).toEqual([
      { field: 'items', reason: 'at most 1000 per call (got 1001)' },
    ]);
  });
});
