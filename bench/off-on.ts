import { type LoadOptions, type LoadResult, runLoad } from './load.js';
import type { ServerProcess } from './proc.js';

/** The two gateway processes of an A/B bench on one database: without and with the feature measured. */
export type OffOn = 'off' | 'on';

export interface OffOnRun {
  load: LoadResult;
  /** The server's CPU per successful request, unrounded; NaN when it served none. */
  cpuMsPerRequest: number;
}

/**
 * The turns of bench/tracing.ts and bench/changes.ts: each server warmed up once, then `rounds`
 * rounds of one measured run each, the order swapped every round so that neither side always runs
 * on a machine (and a database) the other has just heated. `done` gets each round (from 0) with
 * both its runs, as soon as the round ends, so the bench can report progress while it runs.
 */
export async function offOnRounds(
  servers: Record<OffOn, ServerProcess>,
  load: Pick<LoadOptions, 'apiKey' | 'connections' | 'next'> & {
    /** Seconds of each server's warm-up run (none when 0), and of each measured run. */
    warmup: number;
    duration: number;
    /** Responses instead of seconds (the heavy scenarios), for the warm-up and the measured runs. */
    warmupAmount?: number;
    amount?: number;
  },
  rounds: number,
  done: (round: number, runs: Record<OffOn, OffOnRun>) => void,
): Promise<void> {
  const { warmup, duration, warmupAmount, amount, ...base } = load;
  for (const which of ['off', 'on'] as const)
    if (warmup > 0)
      await runLoad({ ...base, url: servers[which].url, duration: warmup, amount: warmupAmount });
  for (let r = 0; r < rounds; r++) {
    const runs = {} as Record<OffOn, OffOnRun>;
    for (const which of r % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      await servers[which].waitIdle();
      servers[which].startWindow();
      const res = await runLoad({ ...base, url: servers[which].url, duration, amount });
      const w = servers[which].endWindow();
      runs[which] = {
        load: res,
        cpuMsPerRequest: res.requests ? (w.cpuSec * 1000) / res.requests : Number.NaN,
      };
    }
    done(r, runs);
  }
}
