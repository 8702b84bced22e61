import type { LoadResult } from './load.js';

/**
 * What one benchmark scenario measured. Its own file, apart from the runner, so the targets
 * (targets.ts) read results without importing the runner that evaluates them.
 */

export interface Probe {
  status: number;
  /** Statements of a warm request (the second of its kind), as under load. */
  sql: number | null;
  /** Statements of the first request of its kind in this process (per-org caches still empty). */
  coldSql: number | null;
  bodyBytes: number;
  ms: number;
}

/** A load run plus what the server process itself showed: peak RSS, and CPU time per request. */
export type Measured = LoadResult & {
  peakRssMb: number;
  /** RSS when the measured run began: V8 keeps heap it grew earlier, so this is the floor of the peak. */
  startRssMb: number;
  cpuMsPerRequest: number;
};

export interface ScenarioResult {
  id: string;
  title: string;
  write: boolean;
  probe: { gateway: Probe; baseline?: Probe; bodiesEqual?: boolean };
  runs: {
    connections: number;
    gateway: Measured;
    baseline?: Measured;
    /** Gateway req/s ÷ baseline req/s. */
    ratio?: number;
    /** Gateway CPU per request ÷ baseline CPU per request: steadier than req/s on a busy machine. */
    cpuRatio?: number;
    /** With more than one round: each round's req/s ratio, in the order run (`ratio` is their median). */
    roundRatios?: number[];
  }[];
}
