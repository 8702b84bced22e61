/**
 * A one-line progress bar on stderr. On a terminal it redraws in place; otherwise (CI logs) it
 * prints a line at most every few seconds, so logs stay short.
 */
export class Progress {
  private done = 0;
  private lastDraw = 0;
  private readonly started = Date.now();
  private readonly tty = process.stderr.isTTY === true;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly quiet = false,
  ) {
    this.draw(true);
  }

  tick(n = 1): void {
    this.done += n;
    this.draw(false);
  }

  finish(): void {
    this.done = this.total;
    this.draw(true);
    if (this.tty && !this.quiet) process.stderr.write('\n');
  }

  private draw(force: boolean): void {
    if (this.quiet) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < (this.tty ? 100 : 5000)) return;
    this.lastDraw = now;
    const frac = this.total > 0 ? Math.min(1, this.done / this.total) : 1;
    const width = 30;
    const filled = Math.round(frac * width);
    const secs = (now - this.started) / 1000;
    const rate = secs > 0 ? Math.round(this.done / secs) : 0;
    const line = `${this.label.padEnd(26)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(frac * 100)).padStart(3)}%  ${this.done.toLocaleString('en-US')}/${this.total.toLocaleString('en-US')}  ${rate.toLocaleString('en-US')}/s  ${secs.toFixed(1)}s`;
    process.stderr.write(this.tty ? `\r${line}` : `${line}\n`);
  }
}
