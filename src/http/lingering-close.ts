import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How much of a refused request body is read and discarded, and for how long, before closing. */
export const LINGER_MAX_BYTES = 8 * 1024 * 1024;
export const LINGER_MAX_MS = 5_000;

const lingering = new WeakSet<Socket>();

/** Whether the socket is reading and discarding the rest of a refused request's body. */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
}

/**
 * Lingering close, as nginx does it. A response sent before its request body has all arrived (413
 * for a body over the limit, 415, 429) went out with `Connection: close`, and Node reset the socket
 * as soon as it was written, while the client was still sending: clients that send the whole body
 * before reading the answer (Node's fetch among them, across processes) then saw EPIPE instead of
 * the 413. Now the rest of the body is read and discarded, up to LINGER_MAX_BYTES and
 * LINGER_MAX_MS; a body that ends within them leaves a usable keep-alive connection, one that does
 * not is cut there.
 */
export function installLingeringClose(
  app: FastifyInstance,
  bounds = { maxBytes: LINGER_MAX_BYTES, maxMs: LINGER_MAX_MS },
): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    const raw = req.raw;
    // inject() has no socket to linger on, and its requests never report themselves complete.
    if (raw.complete || raw.readableEnded || !(raw.socket instanceof Socket)) return done(null, payload);
    // Without this header Node keeps the socket and drains the body (a keep-alive connection does).
    reply.removeHeader('connection');
    const socket = raw.socket;
    let discarded = 0;
    const cut = () => {
      stop();
      socket.destroy();
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > bounds.maxBytes) cut();
    };
    const stop = () => {
      lingering.delete(socket);
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', stop);
      socket.off('close', stop);
    };
    lingering.add(socket);
    const timer = setTimeout(cut, bounds.maxMs);
    timer.unref();
    raw.on('data', onData);
    raw.once('end', stop);
    socket.once('close', stop);
    raw.resume();
    done(null, payload);
  });
}
