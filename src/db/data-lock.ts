import { randomBytes } from 'node:crypto';
import {
  closeSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * One process at a time per PGlite data folder. PGlite is Postgres in single-user mode inside one
 * process: it has no shared buffers or locks between processes, and it writes no postmaster.pid. A
 * second process on the same folder works on its own copy of the pages and the two overwrite each
 * other's files, so the folder ends up corrupt while both report success. The server and sdg both
 * open PGlite through createDatabase, which takes this lock first.
 *
 * The lock is a file in the data folder, created atomically (`wx`), that names its holder. It is
 * removed on close and, failing that, at process exit. A holder that died without either (kill -9,
 * a crash, a power cut) leaves the file behind: the next opener checks whether that holder still
 * runs and takes the lock over when it does not, so no one is locked out by a dead process.
 */

export const LOCK_FILE = 'sdg.lock';

/** What the lock file holds. */
export interface LockHolder {
  pid: number;
  hostname: string;
  /** Linux: the kernel's boot id. A lock from an earlier boot is stale, whatever its pid. */
  bootId?: string;
  /** Linux: when the process started, in clock ticks since boot, so that a reused pid is told apart. */
  processStart?: number;
  /** When the lock was taken (ISO 8601). */
  since: string;
  /** Who holds it: 'server', or the sdg command ('sdg user create'). */
  holder: string;
  /** The server's address once it listens, for the refusals of those who come later. */
  url?: string;
  /** The folder the lock was taken for: a folder copied with its lock names another path. */
  dataDir: string;
  /** Tells this lock from any other, also one the same pid took earlier: release removes only its own. */
  token: string;
}

/** Why a live lock is not taken over. */
export type InUseReason = 'running' | 'this-process' | 'other-host';

/** The data folder is held by a process that may still be running: opening it would corrupt it. */
export class DataFolderInUse extends Error {
  /** The first sentence of the message: who holds the folder (callers add their own advice). */
  readonly lead: string;

  constructor(
    readonly dataDir: string,
    readonly lockFile: string,
    readonly holder: LockHolder,
    readonly reason: InUseReason,
  ) {
    const lead =
      reason === 'this-process'
        ? `the data folder ${dataDir} is already open in this process.`
        : reason === 'other-host'
          ? `the data folder ${dataDir} is in use by ${describeHolder(holder)} on host ${holder.hostname}, which this machine cannot check. If nothing runs there any more, delete ${lockFile} and try again.`
          : `the data folder ${dataDir} is in use by ${describeHolder(holder)}.`;
    super(
      reason === 'this-process'
        ? lead
        : `${lead} Embedded PGlite lets one process at a time open a data folder: stop that process first, or use another folder (SDG_DATA_DIR) or a Postgres database (DATABASE_URL).`,
    );
    this.name = 'DataFolderInUse';
    this.lead = lead;
  }
}

/** "the server at http://… (pid 42, started …)", or "`sdg user create` (pid 43, started …)". */
export function describeHolder(h: LockHolder): string {
  const about = `pid ${h.pid}, started ${new Date(h.since).toLocaleString()}`;
  if (h.url) return `the server at ${h.url} (${about})`;
  if (h.holder === 'server') return `a server that is starting (${about})`;
  return `\`${h.holder}\` (${about})`;
}

/** A lock this process holds. */
export class DataLock {
  /** Said when the lock was taken over from a holder that is gone: why it was stale. */
  readonly tookOver?: string;
  #content: LockHolder;
  #released = false;

  constructor(
    readonly file: string,
    content: LockHolder,
    tookOver?: string,
  ) {
    this.#content = content;
    this.tookOver = tookOver;
  }

  get holder(): LockHolder {
    return this.#content;
  }

  /** Records the server's address in the lock, so that a refused sdg can point to its API. */
  serving(url: string): void {
    this.#content = { ...this.#content, url };
    this.rewrite();
  }

  /**
   * Writes the lock again, whole, in one rename: after a data folder dump was unpacked over it
   * (loadDataDir), which may carry the lock file of the process that dumped it.
   */
  rewrite(): void {
    if (this.#released) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#content));
    renameSync(tmp, this.file);
  }

  /** Removes the lock file, if it is still this lock's. Synchronous: it also runs at process exit. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    held.delete(this);
    const raw = readRaw(this.file);
    if (raw === undefined || parse(raw)?.token !== this.#content.token) return;
    try {
      unlinkSync(this.file);
    } catch {
      // Already gone.
    }
  }
}

const held = new Set<DataLock>();
let exitHookInstalled = false;

/**
 * Takes the lock of the PGlite data folder `dataDir` (an absolute path that exists) for `holder`,
 * or throws DataFolderInUse. A stale lock (its process gone) is taken over: `tookOver` says so.
 */
export async function acquireDataLock(dataDir: string, holder: string): Promise<DataLock> {
  const file = join(dataDir, LOCK_FILE);
  const mine: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    bootId: bootId(),
    processStart: procStat(process.pid)?.start,
    since: new Date().toISOString(),
    holder,
    dataDir,
    token: randomBytes(12).toString('hex'),
  };
  // A few rounds: the file may vanish or change between reading and acting while others race for it.
  for (let round = 0; round < 50; round++) {
    if (createExclusive(file, mine)) return hold(new DataLock(file, mine));
    const raw = readRaw(file);
    if (raw === undefined) continue; // released meanwhile
    const found = parse(raw);
    let stale: string | undefined;
    if (!found) {
      // Created, not yet written (the writer is between open and write), or left so by a crash then.
      if (ageMs(file) < 2_000) {
        await sleep(50);
        continue;
      }
      stale = 'its lock file was left unfinished by a process that stopped while writing it';
    } else {
      const verdict = judge(found, dataDir);
      if (verdict.inUse) throw new DataFolderInUse(dataDir, file, found, verdict.inUse);
      stale = `${describeHolder(found)} held it, and ${verdict.stale}`;
    }
    if (replace(file, raw, mine))
      return hold(new DataLock(file, mine, `took over the lock of ${dataDir}: ${stale}`));
    await sleep(50);
  }
  throw new Error(`could not take the lock ${file}: other processes keep changing it. Try again.`);
}

function hold(lock: DataLock): DataLock {
  held.add(lock);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A process that exits without closing its database (process.exit, an uncaught error) still
    // leaves the folder free. kill -9 cannot be caught: the next opener finds that lock stale.
    process.on('exit', () => {
      for (const lock of [...held]) lock.release();
    });
  }
  return lock;
}

/** A live holder: why not to take over (`inUse`); a dead one: why it is stale. */
export function judge(h: LockHolder, dataDir: string): { inUse?: InUseReason; stale?: string } {
  if (h.dataDir !== dataDir) return { stale: `the lock was copied here with the folder ${h.dataDir}` };
  if (h.hostname !== hostname()) return { inUse: 'other-host' };
  const boot = bootId();
  if (boot && h.bootId && boot !== h.bootId) return { stale: 'the machine has restarted since' };
  if (h.pid === process.pid) {
    if ([...held].some((l) => l.holder.token === h.token)) return { inUse: 'this-process' };
    // An earlier process with the pid this one has now (a container's pid 1, restarted).
    return { stale: 'that process is no longer running' };
  }
  if (!alive(h.pid)) return { stale: 'that process is no longer running' };
  const stat = procStat(h.pid);
  if (stat?.state === 'Z') return { stale: 'that process has exited' };
  if (stat && h.processStart !== undefined && stat.start !== h.processStart)
    return { stale: `that process is gone and pid ${h.pid} is another's now` };
  return { inUse: 'running' };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Linux: a process's state letter and start time (ticks since boot), from /proc/<pid>/stat. */
function procStat(pid: number): { state: string; start: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], start: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Creates `file` with `content` unless it exists; false when it does. */
function createExclusive(file: string, content: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify(content));
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Replaces the stale lock `staleRaw` with `mine`. Two openers may find the same stale lock; the
 * takeover file lets one of them replace it, and the other then finds the new, live lock.
 */
function replace(file: string, staleRaw: string, mine: LockHolder): boolean {
  const guard = `${file}.takeover`;
  if (!createExclusive(guard, mine)) {
    // Its maker died within the few statements below: no one else will remove it.
    if (ageMs(guard) > 10_000) removeFile(guard);
    return false;
  }
  try {
    if (readRaw(file) !== staleRaw) return false;
    removeFile(file);
    return createExclusive(file, mine);
  } finally {
    removeFile(guard);
  }
}

function readRaw(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function parse(raw: string): LockHolder | undefined {
  try {
    const h = JSON.parse(raw) as LockHolder;
    return typeof h?.pid === 'number' && typeof h.token === 'string' ? h : undefined;
  } catch {
    return undefined;
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
