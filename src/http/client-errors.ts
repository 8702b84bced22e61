import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { refusalSampler } from '../observability/sampling.js';
import { errorResponse, rawErrorResponse } from './error-response.js';
import { isLingering } from './lingering-close.js';

/**
 * Node's HTTP parser refuses some requests before Fastify sees them: a request line and headers over
 * Node's header limit (an oversized startKey in the URL), a request not received within REQUEST_TIMEOUT_MS, or bytes
 * that are not HTTP. Fastify's default answer has its own body; this one is the documented
 * `{ error: { code, message } }`, with a code from the closed set.
 */
function answerFor(code: string | undefined): AppError {
  if (code === 'HPE_HEADER_OVERFLOW')
    return new AppError(
      'HEADERS_TOO_LARGE',
      'The request line and headers are larger than 16 KB. Ids, startKey and cursors are far shorter: send them exactly as returned, and large data in the body.',
    );
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new AppError('REQUEST_TIMEOUT', 'The request was not received in time; send it again.');
  return new AppError('BAD_REQUEST', 'The request is not valid HTTP/1.1.');
}

/** Fastify binds it to the app, whose log and metrics see these refusals like any other. */
export function clientErrorHandler(
  this: Partial<Pick<FastifyInstance, 'log' | 'metrics'>> | undefined,
  err: NodeJS.ErrnoException,
  socket: Socket,
): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // A refused request whose body is being discarded was answered already; the lingering bounds end it.
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && isLingering(socket)) return;
  // Node's response in flight on this socket; a second status line would corrupt it.
  const answered = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && !answered) {
    const r = errorResponse(answerFor(err.code));
    const { code } = r.error;
    // Limits (header size, receive time): at warn with the code, sampled, as for requests (observability/http.ts).
    if (code !== 'BAD_REQUEST') {
      const sampled = this ? refusalSampler(this).take(code) : {};
      if (sampled)
        this?.log?.warn(
          { code, status: r.status, remoteAddress: socket.remoteAddress, ...sampled },
          'request refused or failed',
        );
      this?.metrics?.refusals.inc({ code });
    }
    socket.end(rawErrorResponse(r));
  }
  // end() sends the answer first; a client that never closes its side is cut after a second.
  setTimeout(() => socket.destroy(), 1000).unref();
}
