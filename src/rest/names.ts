import type { RestRoute } from './routes.js';

const segments = (path: string) => path.split('/').filter(Boolean);
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
const singular = (s: string) => (s.endsWith('ies') ? `${s.slice(0, -3)}y` : s.replace(/s$/, ''));

/**
 * Readable, unique ids: listProjects, getProjectSchema, updateParcel, linkProjectContact, … They
 * are the OpenAPI operationIds, and (capitalised) the names codegen gives each route's GraphQL
 * operation, so `ListProjectsQuery` in src/generated/rest.ts is the result of GET /projects/v1.
 */
export function operationId(route: RestRoute): string {
  const segs = segments(route.path).filter((s) => s !== 'v1');
  const params = segs.filter((s) => s.startsWith(':')).length;
  const words = segs
    .map((s, i) =>
      s.startsWith(':') ? '' : segs[i + 1]?.startsWith(':') || segs[i + 1] === 'schema' ? singular(s) : s,
    )
    .filter(Boolean)
    .map(cap);
  const list = route.returns === 'page' || ['organizations', 'portfolios', 'users'].includes(route.returns);
  let verb: string;
  if (route.method === 'GET') verb = list ? 'list' : 'get';
  else if (route.method === 'PUT') verb = 'update';
  else if (route.method === 'POST') verb = params ? 'link' : 'create';
  else verb = params > 1 ? 'unlink' : 'delete';
  if (verb === 'link' || verb === 'create') words[words.length - 1] = singular(words[words.length - 1]);
  return verb + words.join('');
}

/** The route's document with its operation named, for codegen (REST sends it anonymous, as OpenAPI shows it). */
export const namedDocument = (route: RestRoute) =>
  route.document.replace(/^(query|mutation)\b\s*/, (_m, kind: string) => {
    const id = operationId(route);
    return `${kind} ${id[0].toUpperCase()}${id.slice(1)} `;
  });
