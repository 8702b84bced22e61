/**
 * A transaction snapshot as Postgres prints it (`pg_current_snapshot()::text`: `xmin:xmax:xip,…`),
 * kept to tell which log entries had committed when a subscription started: those it must not
 * deliver, although the feed's position (the snapshot's xmin) still lies before them.
 */
export interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  /** Transactions running when it was taken, between xmin and xmax. */
  running: Set<bigint>;
}

export function parseSnapshot(text: string): Snapshot {
  const m = /^(\d+):(\d+):([\d,]*)$/.exec(text);
  if (!m) throw new Error(`not a pg_snapshot: ${text}`);
  return {
    xmin: BigInt(m[1]),
    xmax: BigInt(m[2]),
    running: new Set(m[3] ? m[3].split(',').map(BigInt) : []),
  };
}

/**
 * Whether transaction `tx` (an xid8, as text) had ended when the snapshot was taken, the
 * `pg_visible_in_snapshot` rule: below xmin all had ended; from xmax on none had started; in between,
 * all but the running ones. A log entry's transaction committed, so "ended" means "committed before".
 */
export function endedBefore(s: Snapshot, tx: string): boolean {
  const t = BigInt(tx);
  if (t < s.xmin) return true;
  if (t >= s.xmax) return false;
  return !s.running.has(t);
}
