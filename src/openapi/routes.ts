import type { FastifyInstance } from 'fastify';
import { AssetFolder } from '../graphiql/assets.js';
import { registerPage } from '../graphiql/routes.js';
import { JSON_UTF8 } from '../http/json-bytes.js';
import { buildOpenApiDocument } from './document.js';

/** Paths served without an API key: the contract and its reference page are public. */
export const OPENAPI_PUBLIC_PATHS = ['/openapi.json', '/docs', '/docs/', '/docs/:file'];

// Relative URLs, like GraphiQL, so the page works under any path prefix.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>REST v1 reference · Solar Data Gateway</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"><noscript>This reference needs JavaScript; the raw document is at <a href="openapi.json">openapi.json</a>.</noscript></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/docs.js"></script>
</body>
</html>
`;

/** GET /openapi.json (OpenAPI 3.1 of REST v1) and a Swagger UI reference at /docs, from local assets. */
export function registerOpenApi(app: FastifyInstance): void {
  const document = JSON.stringify(buildOpenApiDocument());
  const assets = new AssetFolder('docs');

  app.get('/openapi.json', async (_req, reply) =>
    reply.header('cache-control', 'no-cache').type(JSON_UTF8).send(document),
  );
  registerPage(app, { path: 'docs', html: PAGE, assets, title: 'The /docs page', assetsOf: '/docs' });
}
