import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  acquireDataLock,
  DataFolderInUse,
  type DataLock,
  LOCK_FILE,
  type LockHolder,
} from '../../src/db/data-lock.js';

/** The rules of the PGlite data folder lock, on lock files written by hand; no database is opened. */

const dirs: string[] = [];
const locks: DataLock[] = [];
afterEach(() => {
  for (const l of locks.splice(0)) l.release();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'sdg-lock-')));
  dirs.push(d);
  return d;
}

async function take(dir: string, holder = 'sdg user create'): Promise<DataLock> {
  const lock = await acquireDataLock(dir, holder);
  locks.push(lock);
  return lock;
}

const onLinux = existsSync('/proc/self/stat');
const bootId = () => (onLinux ? readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : undefined);
/** Above any pid_max (Linux allows at most 2^22): no process has it. */
const DEAD_PID = 4_200_000;

/** A lock file as another process would have left it in `dir`. */
function leave(dir: string, h: Partial<LockHolder>): void {
  const lock: LockHolder = {
    pid: process.ppid,
    hostname: hostname(),
    bootId: bootId(),
    since: new Date().toISOString(),
    holder: 'server',
    url: 'http://127.0.0.1:4000',
    dataDir: dir,
    token: 'theirs',
    ...h,
  };
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lock));
}

const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;

async function refusal(dir: string): Promise<DataFolderInUse> {
  const err = await acquireDataLock(dir, 'sdg user create').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DataFolderInUse);
  return err as DataFolderInUse;
}

describe('the data folder lock', () => {
  test('is a file naming its holder, removed on release', async () => {
    const dir = folder();
    const lock = await take(dir, 'server');
    expect(lockOf(dir)).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      holder: 'server',
      dataDir: dir,
    });
    expect(lock.tookOver).toBeUndefined();
    lock.serving('http://127.0.0.1:4123');
    expect(lockOf(dir).url).toBe('http://127.0.0.1:4123');
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  test('refuses a folder this process holds already', async () => {
    const dir = folder();
    await take(dir);
    expect((await refusal(dir)).reason).toBe('this-process');
  });

  test('refuses a folder a running server holds, naming the folder, the server and its address', async () => {
    const dir = folder();
    leave(dir, {});
    const err = await refusal(dir);
    expect(err.reason).toBe('running');
    expect(err.message).toContain(`the data folder ${dir} is in use by the server at http://127.0.0.1:4000`);
    expect(err.message).toContain(`pid ${process.ppid}`);
    expect(err.message).toMatch(/stop that process first/);
    // Refused, the lock is left as it was.
    expect(lockOf(dir).token).toBe('theirs');
  });

  test('takes over the lock of a process that is gone, and says so', async () => {
    const dir = folder();
    leave(dir, { pid: DEAD_PID });
    const lock = await take(dir);
    expect(lock.tookOver).toMatch(
      new RegExp(`took over the lock of ${dir}: the server .*pid ${DEAD_PID}.* no longer running`),
    );
    expect(lockOf(dir)).toMatchObject({ pid: process.pid, holder: 'sdg user create' });
  });

  test.skipIf(!onLinux)(
    'takes over when the pid now belongs to another process (its start time differs)',
    async () => {
      const dir = folder();
      leave(dir, { processStart: 1 });
      expect((await take(dir)).tookOver).toMatch(/another's now/);
    },
  );

  test.skipIf(!onLinux)('takes over a lock from before the machine restarted', async () => {
    const dir = folder();
    leave(dir, { bootId: 'an-earlier-boot' });
    expect((await take(dir)).tookOver).toMatch(/restarted/);
  });

  test('takes over a lock that was copied with the folder from elsewhere', async () => {
    const dir = folder();
    leave(dir, { dataDir: '/somewhere/else' });
    expect((await take(dir)).tookOver).toMatch(/copied here with the folder \/somewhere\/else/);
  });

  test('refuses a lock of another host, which it cannot check, and says which file to delete', async () => {
    const dir = folder();
    leave(dir, { hostname: 'elsewhere', pid: DEAD_PID });
    const err = await refusal(dir);
    expect(err.reason).toBe('other-host');
    expect(err.message).toContain('on host elsewhere');
    expect(err.message).toContain(`delete ${join(dir, LOCK_FILE)}`);
  });

  test('takes over a lock file left empty, once it is not being written any more', async () => {
    const dir = folder();
    writeFileSync(join(dir, LOCK_FILE), '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, LOCK_FILE), old, old);
    expect((await take(dir)).tookOver).toMatch(/unfinished/);
  });

  test('two openers of one stale lock: one takes it, the other is refused', async () => {
    const dir = folder();
    leave(dir, { pid: DEAD_PID });
    const results = await Promise.allSettled([take(dir), take(dir)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  test('release removes only its own lock', async () => {
    const dir = folder();
    const lock = await take(dir);
    leave(dir, { token: 'a later holder' });
    lock.release();
    expect(lockOf(dir).token).toBe('a later holder');
  });
});
