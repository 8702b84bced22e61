import { expect, test } from 'vitest';
import { cpuSecondsSince } from '../proc.js';

test('CPU of a process set over a window: a process that exits meanwhile never makes it negative', () => {
  // pid 2 exited during the window (other test files close their Postgres connections); pid 3 started.
  const before = new Map([
    [1, 5],
    [2, 3],
  ]);
  const after = new Map([
    [1, 6],
    [3, 2],
  ]);
  expect(cpuSecondsSince(before, after)).toBe(3);
});
