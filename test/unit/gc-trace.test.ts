import { describe, expect, test } from 'vitest';
import { gcTotals, perRequest } from '../../bench/gc-trace.js';

// Lines as Node 20 prints them with --trace-gc-nvp (shortened: the fields after those read here).
const TRACE = `[20607:0x26cb7ee0]       45 ms: pause=1.25 mutator=34.5 gc=s reduce_memory=0 fast_promote=0.00 scavenge=1.02 allocated=12276944 promoted=2676392 new_space_survived=2944240
{"level":40,"msg":"a server log line in between"}
[20607:0x26cb7ee0]       55 ms: pause=9.75 mutator=0.8 gc=s reduce_memory=0 fast_promote=0.00 scavenge=9.65 promoted=1048576 incremental.finalize.external.pause=3.0
[20616:0x13de6d00]       77 ms: pause=15.3 mutator=55.1 gc=mc reduce_memory=0 heap.prologue=0.00 promoted=0
`;

describe('reading V8 collection traces', () => {
  test('young and full collections are summed apart; other lines and longer field names do not count', () => {
    expect(gcTotals(TRACE)).toEqual({
      young: 2,
      youngPauseMs: 11,
      promotedBytes: 2676392 + 1048576,
      full: 1,
      fullPauseMs: 15.3,
    });
    expect(gcTotals('')).toEqual({ young: 0, youngPauseMs: 0, promotedBytes: 0, full: 0, fullPauseMs: 0 });
  });

  test('per request', () => {
    expect(perRequest(gcTotals(TRACE), 2)).toBe('1.00 young (5.5 ms, 1,819 KB promoted), 0.50 full (7.7 ms)');
  });
});
