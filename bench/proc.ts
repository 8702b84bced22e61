import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.unref();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds the process has used (/proc/<pid>/stat, clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used so far by each process whose command is `name` (say, all of Postgres' backends
 * and background workers), as far as /proc lets us see them.
 */
export function cpuSecondsByPid(name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== name) continue;
      const sec = cpuSeconds(Number(entry));
      if (sec !== undefined) out.set(Number(entry), sec);
    } catch {}
  }
  return out;
}

/**
 * CPU seconds those processes used between two snapshots. A process that started meanwhile counts
 * in full; one that exited meanwhile is lost (its last figures went with it), so this is a floor.
 */
export function cpuSecondsSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, sec] of after) total += Math.max(0, sec - (before.get(pid) ?? 0));
  return total;
}

/** Busy and total CPU seconds of the whole machine, summed over its cores (/proc/stat). */
export function machineCpuSeconds(): { busy: number; total: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: (total - f[3] - f[4]) / 100, total: total / 100 };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/**
 * A server under test, in its own process. Memory comes from /proc: VmRSS sampled while load runs,
 * and VmHWM (the kernel's peak), reset before each measured run by writing 5 to clear_refs.
 */
/** How much of a server's output a failed start quotes. */
const OUTPUT_TAIL_CHARS = 4_000;

export class ServerProcess {
  readonly url: string;
  /** performance.now() at spawn, and at the first measuring window: a profile's start-up lies before it. */
  readonly spawnedAt = performance.now();
  firstWindowAt?: number;
  private child: ChildProcess;
  private exited: Promise<number | null>;
  private sampler?: NodeJS.Timeout;
  private sampledPeakKb = 0;
  private cpuAtStart = 0;
  private rssAtStartKb = 0;
  private outputTail = '';

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    env: Record<string, string>,
    readonly port: number,
    logFile: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.child = spawn(command, args, {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(logFile);
    this.child.stdout!.pipe(log);
    this.child.stderr!.pipe(log);
    // Kept for the error of a failed start: a test's log folder is gone by the time anyone reads it.
    const keep = (chunk: Buffer) => {
      this.outputTail = (this.outputTail + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((ok) => this.child.on('exit', (code) => ok(code)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Polls /healthz until it answers, or fails when the process dies or time runs out. */
  async ready(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let dead = false;
    void this.exited.then(() => {
      dead = true;
    });
    while (Date.now() < deadline) {
      if (dead) {
        // Its last output may still be on its way through the pipes.
        await new Promise((r) => setTimeout(r, 200));
        throw new Error(
          `${this.name} exited during start-up (exit code ${this.child.exitCode}); its last output:\n${this.outputTail || '(none)'}`,
        );
      }
      try {
        const r = await fetch(`${this.url}/healthz`);
        if (r.ok) return;
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${this.name} did not become ready within ${timeoutMs / 1000}s`);
  }

  /**
   * Waits until the server is idle (under 5% of a core over 250 ms), so requests a load run
   * abandoned when it stopped do not spill into the next run. Gives up after `maxMs`.
   */
  async waitIdle(maxMs = 120_000): Promise<void> {
    const deadline = Date.now() + maxMs;
    let last = cpuSeconds(this.pid) ?? 0;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      const now = cpuSeconds(this.pid);
      if (now === undefined || now - last < 0.0125) return;
      last = now;
    }
  }

  rssMb(): number | undefined {
    const kb = statusKb(this.pid, 'VmRSS');
    return kb === undefined ? undefined : kb / 1024;
  }

  /** Starts a measuring window: resets the kernel's RSS peak, samples RSS every 50 ms, notes CPU time. */
  startWindow(): void {
    this.firstWindowAt ??= performance.now();
    this.cpuAtStart = cpuSeconds(this.pid) ?? 0;
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
    } catch {}
    this.sampledPeakKb = statusKb(this.pid, 'VmRSS') ?? 0;
    this.rssAtStartKb = this.sampledPeakKb;
    this.sampler = setInterval(() => {
      this.sampledPeakKb = Math.max(this.sampledPeakKb, statusKb(this.pid, 'VmRSS') ?? 0);
    }, 50);
  }

  /**
   * Ends the window: peak RSS in MB (the kernel's VmHWM, or the sampled peak without /proc access)
   * and the CPU seconds the server used meanwhile.
   */
  endWindow(): { peakRssMb: number; startRssMb: number; cpuSec: number } {
    clearInterval(this.sampler);
    const hwm = statusKb(this.pid, 'VmHWM') ?? 0;
    return {
      peakRssMb: Math.max(hwm, this.sampledPeakKb) / 1024,
      startRssMb: this.rssAtStartKb / 1024,
      cpuSec: (cpuSeconds(this.pid) ?? 0) - this.cpuAtStart,
    };
  }

  /** Lifetime peak RSS (MB) as the kernel saw it since the last reset. */
  peakMb(): number {
    return (statusKb(this.pid, 'VmHWM') ?? 0) / 1024;
  }

  /** SIGTERM, then SIGKILL after the grace period. Resolves with the exit code (null when killed). */
  async stop(graceMs = 20_000): Promise<number | null> {
    clearInterval(this.sampler);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/** CPU seconds used so far by every process /proc shows, with its command name. */
export function cpuByProcess(): Map<number, { name: string; sec: number }> {
  const out = new Map<number, { name: string; sec: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const sec = cpuSeconds(Number(entry));
      if (sec !== undefined)
        out.set(Number(entry), { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), sec });
    } catch {}
  }
  return out;
}

/**
 * Waits until no other statement of the monitor connection's database is running (up to `maxMs`):
 * requests a load run abandoned when it stopped may still be queued in the database, not the server.
 */
export async function waitDatabaseIdle(
  monitor: { query(text: string): Promise<{ rows: { n: number }[] }> },
  maxMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const { rows } = await monitor.query(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`,
    );
    if (!rows[0].n) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}
