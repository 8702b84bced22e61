import type { ImportProgress } from './parcels.js';

/** Where an import is, as the CLI shows it. */
export interface ProgressView extends ImportProgress {
  /** Bytes of the file read so far, and its size when known. */
  bytesRead: number;
  totalBytes?: number;
  elapsedMs: number;
}

const n = (x: number) => x.toLocaleString('en-US');

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;

/** A percentage of the file, by bytes read: features vary in size, the file's length does not. */
function share(v: ProgressView): string {
  if (!v.totalBytes) return '';
  const pct = Math.min(100, Math.floor((100 * v.bytesRead) / v.totalBytes));
  return ` ${pct}% of ${mb(v.totalBytes)}`;
}

const rate = (count: number, ms: number) => (ms > 0 ? Math.round((count * 1000) / ms) : 0);

/** One line: how many features were read and written, how fast, and how much of the file is done. */
export function describeProgress(v: ProgressView): string {
  const bar = v.totalBytes ? `${barOf(v.bytesRead / v.totalBytes)} ` : '';
  const problems = v.problems ? `, ${n(v.problems)} problem(s): checking the rest, writing nothing` : '';
  const same = v.unchanged ? `, ${n(v.unchanged)} unchanged` : '';
  return `${bar}${n(v.read)} features read, ${n(v.written)} written${same} (${n(rate(v.read, v.elapsedMs))}/s)${share(v)}${problems}`;
}

/** A bar of 20 cells, for a terminal. */
function barOf(fraction: number): string {
  const full = Math.max(0, Math.min(20, Math.floor(fraction * 20)));
  return `[${'#'.repeat(full)}${'.'.repeat(20 - full)}]`;
}

/** The last line, once the transaction committed (or rolled back). */
export function describeSummary(v: ProgressView, committed: boolean): string {
  const secs = (v.elapsedMs / 1000).toFixed(1);
  const speed = `in ${secs} s (${n(rate(v.read, v.elapsedMs))}/s)`;
  if (!committed) return `read ${n(v.read)} features in ${secs} s; nothing was imported`;
  // Matched by external id, some parcels existed: say what became of each.
  if (v.updated || v.unchanged)
    return `imported ${n(v.read)} features ${speed}: ${n(v.created)} created, ${n(v.updated)} updated, ${n(v.unchanged)} unchanged`;
  return `imported ${n(v.written)} parcels from ${n(v.read)} features ${speed}`;
}
