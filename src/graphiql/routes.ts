import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../errors.js';
import { AssetFolder } from './assets.js';

/** Paths served without an API key; the page asks for the key itself. */
export const GRAPHIQL_PUBLIC_PATHS = ['/graphiql', '/graphiql/', '/graphiql/:file'];

/**
 * Only same-origin resources: the page can load nothing from another host even if a dependency
 * tried. Monaco injects style elements, hence 'unsafe-inline' for styles only.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Headers for the HTML pages (GraphiQL, /docs). */
export function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
    .type('text/html; charset=utf-8');
}

// Every URL is relative to the page (/…/graphiql), so a proxy can mount the server under any prefix.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · Solar Data Gateway</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="graphiql/app.css">
<script type="module" src="graphiql/app.js"></script>
</head>
<body>
<div id="root"><noscript>GraphiQL needs JavaScript.</noscript></div>
</body>
</html>
`;

export const notBuiltPage = (what: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${what} is not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto">
<h1>${what} is not built</h1>
<p>The browser assets are built by <code>npm run build</code> (which <code>npm install</code> and
<code>npm start</code> run). Build them now with:</p>
<pre>npm run build:graphiql</pre>
<p>then restart the server.</p>
</body></html>
`;

const wantsHtml = (accept: string | undefined) => !!accept && /\btext\/html\b/i.test(accept);

/**
 * A browser navigating to /graphql asks for HTML and is sent to GraphiQL; API clients ask for JSON
 * and are left alone. Installed on the /graphql route's own scope (graphql/server.ts).
 */
export function redirectBrowsersToGraphiQL(graphql: FastifyInstance): void {
  graphql.addHook('onRequest', async (req, reply) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && wantsHtml(req.headers.accept)) {
      // Relative, so it stays under whatever prefix the browser used.
      return reply.redirect('graphiql', 302);
    }
  });
}

/** GraphiQL at /graphiql, from local assets only. */
export function registerGraphiQL(app: FastifyInstance): void {
  const assets = new AssetFolder('graphiql');
  registerPage(app, { path: 'graphiql', html: PAGE, assets, title: 'GraphiQL', assetsOf: 'GraphiQL' });
}

/**
 * A page at `/<path>` and its built assets at `/<path>/<file>`: GraphiQL and the /docs reference.
 * `title` names the page when it is not built, `assetsOf` its assets when one is missing.
 */
export function registerPage(
  app: FastifyInstance,
  o: { path: string; html: string; assets: AssetFolder; title: string; assetsOf: string },
): void {
  app.get(`/${o.path}`, async (_req, reply) => {
    if (!o.assets.built) return pageHeaders(reply).status(503).send(notBuiltPage(o.title));
    return pageHeaders(reply).send(o.html);
  });
  // With a trailing slash the relative asset URLs would resolve one level too deep.
  app.get(`/${o.path}/`, async (_req, reply) => reply.redirect(`../${o.path}`, 301));
  app.get<{ Params: { file: string } }>(`/${o.path}/:file`, async (req, reply) => {
    const sent = await o.assets.send(req, reply, req.params.file);
    if (sent) return sent;
    // Thrown rather than callNotFound(): the not-found route is not public and would answer 401.
    throw new AppError('NOT_FOUND', `No ${o.assetsOf} asset named ${req.params.file}.`);
  });
}
