import { describe, expect, test } from 'vitest';
import { Admission } from '../../src/http/admission.js';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('the Admission semaphore', () => {
  test('runs up to `slots` at once and hands slots over first come, first served', async () => {
    const a = new Admission({ slots: 2, maxWaitMs: 10_000 });
    const r1 = await a.acquire();
    const r2 = await a.acquire();
    const order: number[] = [];
    const inTurn = (n: number) => (release: () => void) => {
      order.push(n);
      return release;
    };
    const w3 = a.acquire().then(inTurn(3));
    const w4 = a.acquire().then(inTurn(4));
    await tick();
    expect(a.load).toEqual({ running: 2, waiting: 2 });
    r1();
    r1(); // a second call is a no-op, not a second slot
    const r3 = await w3;
    await tick();
    expect(order).toEqual([3]);
    r2();
    const r4 = await w4;
    expect(order).toEqual([3, 4]);
    r3();
    r4();
    expect(a.load).toEqual({ running: 0, waiting: 0 });
  });

  test('a waiter gives up with OVERLOADED after maxWaitMs, or when its signal aborts', async () => {
    const a = new Admission({ slots: 1, maxWaitMs: 30 });
    const held = await a.acquire();
    await expect(a.acquire()).rejects.toMatchObject({ code: 'OVERLOADED', status: 503 });
    const gone = new AbortController();
    const waiting = a.acquire(gone.signal);
    await tick();
    expect(a.load.waiting).toBe(1);
    gone.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    expect(a.load).toEqual({ running: 1, waiting: 0 });
    held();
    expect(a.load.running).toBe(0);
  });

  test('slots 0 turns it off', async () => {
    const a = new Admission({ slots: 0, maxWaitMs: 0 });
    await Promise.all(Array.from({ length: 50 }, () => a.acquire()));
    expect(a.load).toEqual({ running: 0, waiting: 0 });
  });
});
