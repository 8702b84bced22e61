import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ServerProcess } from '../proc.js';

/**
 * A bench server that dies while starting names why in the error itself: the smoke tests delete
 * their log folder, so "see its log" (the message before) left a CI failure with nothing to read.
 */
test('a server that exits during start-up is reported with its last output', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdg-proc-'));
  try {
    const s = new ServerProcess(
      'gateway 1',
      process.execPath,
      ['-e', "console.log('starting'); console.error('Error: listen EADDRINUSE 127.0.0.1'); process.exit(1)"],
      {},
      1,
      join(dir, 'server.log'),
    );
    const err = await s.ready(10_000).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^gateway 1 exited during start-up \(exit code 1\); its last output:\n/);
    // Both pipes are kept; which one arrives first is up to the operating system.
    expect(err?.message).toContain('starting');
    expect(err?.message).toContain('Error: listen EADDRINUSE 127.0.0.1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
