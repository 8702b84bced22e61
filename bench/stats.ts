/**
 * The median of `xs` (the mean of the middle two when their count is even), unrounded; `xs` is
 * left as it was. An empty list gives NaN, so that a run that measured nothing shows as NaN in a
 * report (null in its JSON) rather than as a plausible number; a caller that wants another figure
 * for it says so where it calls.
 */
export function median(xs: number[]): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** A figure for a report: rounded to hundredths (milliseconds, ratios, req/s). */
export const r2 = (v: number): number => Math.round(v * 100) / 100;
