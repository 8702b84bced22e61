/**
 * Paired rounds: on a machine whose speed drifts (other tenants, frequency), two builds measured
 * in the same round are comparable with each other, not with another round. So a change reads as
 * the per-round ratio of its figure to the other build's, summarized over the rounds.
 */
export interface Paired {
  /** Median over the rounds of this ÷ that, per round. */
  median: number;
  min: number;
  max: number;
  /** Rounds in which this was below that. */
  lower: number;
  rounds: number;
}

export function paired(these: readonly number[], those: readonly number[]): Paired {
  const n = Math.min(these.length, those.length);
  if (n === 0) throw new Error('paired: no rounds');
  const ratios = Array.from({ length: n }, (_, i) => these[i] / those[i]).sort((a, b) => a - b);
  const mid = Math.floor(n / 2);
  return {
    median: n % 2 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2,
    min: ratios[0],
    max: ratios[n - 1],
    lower: these.slice(0, n).filter((x, i) => x < those[i]).length,
    rounds: n,
  };
}

/** `0.94× [0.81–1.02], lower in 7 of 12 rounds` */
export const pairedText = (p: Paired) =>
  `${p.median.toFixed(3)}× [${p.min.toFixed(2)}–${p.max.toFixed(2)}], lower in ${p.lower} of ${p.rounds} rounds`;
