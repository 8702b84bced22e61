import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** The status answered (undefined while the answer is held back). */
  status?: number;
}

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests. `answer` decides each response: a status, a
 * redirect, or 'hang' (the request is held open until close()).
 */
export async function startReceiver(
  answer: (
    r: Received,
    n: number,
  ) => number | 'hang' | { redirect: string } | { status: number; afterMs: number } = () => 200,
) {
  const got: Received[] = [];
  const held: ServerResponse[] = [];
  const open = { now: 0, max: 0 };
  const server = createServer((req, res) => {
    open.now++;
    open.max = Math.max(open.max, open.now);
    // Answered (or dropped): no longer open.
    let counted = true;
    const done = () => {
      if (counted) open.now--;
      counted = false;
    };
    res.on('finish', done);
    res.on('close', done);
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const r: Received = { headers: req.headers, body };
      got.push(r);
      const a = answer(r, got.length);
      if (a === 'hang') {
        held.push(res);
        return;
      }
      if (typeof a === 'object' && 'afterMs' in a) {
        setTimeout(() => {
          r.status = a.status;
          done();
          res.writeHead(a.status).end('ok');
        }, a.afterMs);
        return;
      }
      if (typeof a === 'object') {
        r.status = 302;
        res.writeHead(302, { location: a.redirect }).end();
        return;
      }
      r.status = a;
      res.writeHead(a).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    /** The most requests that were open at once. */
    open,
    /** Requests answered with a 2xx. */
    acked: () => got.filter((r) => r.status !== undefined && r.status >= 200 && r.status < 300),
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Polls until `check` holds (or throws after `ms`). */
export async function until(check: () => boolean | Promise<boolean>, ms = 15_000, what = 'condition') {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
