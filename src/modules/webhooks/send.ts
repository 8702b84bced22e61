import http from 'node:http';
import https from 'node:https';
import { checkUrlShape, resolveTarget, TargetRefused } from './targets.js';

export interface SendResult {
  ok: boolean;
  status?: number;
  error?: string;
}

/**
 * One POST to an endpoint. The host is resolved and checked here, on every attempt, and the
 * connection goes to the address that was checked (the `lookup` option), so DNS cannot swap in a
 * private address between check and connect. Redirects are never followed: a 3xx is a failed
 * attempt, so a public URL cannot bounce the request to a private one. The answer's body is
 * discarded, read up to nothing; only its status counts (2xx is success).
 */
export async function postSigned(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  let target: { address: string; family: number };
  let url: URL;
  try {
    url = checkUrlShape(rawUrl);
    target = await resolveTarget(url, opts.allowPrivate);
  } catch (err) {
    return { ok: false, error: err instanceof TargetRefused ? `refused: ${err.message}` : String(err) };
  }
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    const req = mod.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: opts.timeoutMs,
        lookup: (_h, o, cb) =>
          (o as { all?: boolean }).all
            ? (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [target])
            : cb(null, target.address, target.family),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        res.destroy();
        if (status >= 300 && status < 400)
          resolve({ ok: false, status, error: 'redirect refused: webhooks do not follow redirects' });
        else
          resolve({
            ok: status >= 200 && status < 300,
            status,
            error: status >= 300 ? `HTTP ${status}` : undefined,
          });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', (err) => resolve({ ok: false, error: err.message }));
    req.end(body);
  });
}
