/**
 * What V8's garbage collector did, read from a process started with `--trace-gc-nvp`: one line per
 * collection, `name=value` pairs. Young collections (`gc=s`, scavenges) copy what is still alive and
 * promote to the old generation what survives its second one; full collections (`gc=mc`,
 * mark-compact) free the old generation. CPU time moves with whatever else the machine runs; these
 * counts do not, so they tell whether a change gave the collector less to do.
 */
export interface GcTotals {
  /** Young collections (scavenges). */
  young: number;
  /** Their pause on the main thread, ms. */
  youngPauseMs: number;
  /** Bytes they promoted to the old generation. */
  promotedBytes: number;
  /** Full collections (mark-compact), and their final pause, ms. */
  full: number;
  fullPauseMs: number;
}

const field = (line: string, name: string): number => {
  const m = line.match(new RegExp(`(?:^|\\s)${name}=([0-9.]+)`));
  return m ? Number(m[1]) : 0;
};

/** Sums the collections in a stretch of `--trace-gc-nvp` output; other lines are ignored. */
export function gcTotals(trace: string): GcTotals {
  const t: GcTotals = { young: 0, youngPauseMs: 0, promotedBytes: 0, full: 0, fullPauseMs: 0 };
  for (const line of trace.split('\n')) {
    const kind = line.match(/(?:^|\s)gc=(\w+)/)?.[1];
    if (kind === 's') {
      t.young++;
      t.youngPauseMs += field(line, 'pause');
      t.promotedBytes += field(line, 'promoted');
    } else if (kind === 'mc') {
      t.full++;
      t.fullPauseMs += field(line, 'pause');
    }
  }
  return t;
}

/** One line per request: "0.42 young (3.2 ms, 1,090 KB promoted), 0.01 full (0.2 ms)". */
export function perRequest(t: GcTotals, requests: number): string {
  const r = (x: number, digits = 2) => (x / requests).toFixed(digits);
  const kb = Math.round(t.promotedBytes / 1024 / requests).toLocaleString('en');
  return `${r(t.young)} young (${r(t.youngPauseMs, 1)} ms, ${kb} KB promoted), ${r(t.full)} full (${r(t.fullPauseMs, 1)} ms)`;
}
