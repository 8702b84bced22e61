import { PROPERTY_TYPES } from '../modules/properties/index.js';
import { buildOpenApiDocument } from './document.js';

/**
 * docs/rest-v1.md, rendered from the same OpenAPI document /openapi.json serves (itself built from
 * the route table), so the reference cannot say what the code does not do. `npm run docs` writes it;
 * `npm run docs:check` fails when the committed file differs. Its curl examples use the shell
 * variables docs/getting-started.md sets, and test/docs-examples.test.ts runs every one of them.
 */

type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'delete'] as const;

/** Demo-schema property values the write examples send (src/seed/schema.ts defines these ids). */
const CREATE_BODY: Record<string, Json> = {
  projects: { name: { text: 'Prairie Wind Solar' }, capacity_mw: { number: 120.5 } },
  contacts: { first_name: { text: 'Hal' }, last_name: { text: 'Halvorsen' } },
};
const UPDATE_BODY: Record<string, Json> = {
  projects: { capacity_mw: { number: 150 }, website: { text: null } },
  contacts: { phone: { text: '+1 555 0100' } },
  parcels: { acreage: { number: 212.5 } },
};
/** The shell variable holding a demo record of each kind (docs/getting-started.md sets them). */
const VAR: Record<string, string> = { projects: 'PROJECT', contacts: 'CONTACT', parcels: 'PARCEL' };

const refName = (r: Json) => String(r.$ref).split('/').pop()!;
const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const anchor = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

function typeOf(s: Json | undefined): string {
  if (!s) return '';
  // Property inputs are described together under "Property values"; every other schema has its heading.
  if (s.$ref)
    return `[${refName(s)}](#${refName(s) === 'PropertiesInput' ? 'property-values' : anchor(refName(s))})`;
  if (s.oneOf) return s.oneOf.map(typeOf).join(' or ');
  if (s.allOf) return typeOf(s.allOf[0]);
  const t = Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
  if (t === 'array') return `array of ${typeOf(s.items)}`;
  return t + (s.format ? ` (${s.format})` : '') + (s.enum ? `: ${s.enum.map(code).join(', ')}` : '');
}

/** The curl command of one operation, with the variables of docs/getting-started.md. */
function curlExample(method: string, path: string, op: Json): string {
  const plural = path.split('/')[1];
  const params = (op.parameters as Json[]).map((p) => (p.$ref ? refName(p) : p.name));
  let url = path.replace('{id}', `$${VAR[plural]}`).replace('{contactId}', '$CONTACT').replace(/^/, '$BASE');
  const query = [];
  if (params.includes('orgId')) query.push('orgId=$ORG');
  if (params.includes('portfolioId')) query.push('portfolioId=$PF');
  if (params.includes('limit')) query.push('limit=2');
  if (query.length) url += `?${query.join('&')}`;
  const auth = '-H "X-API-Key: $KEY"';
  const json = "-H 'Content-Type: application/json'";
  const M = method.toUpperCase();
  if (M === 'GET') return `curl -s ${auth} "${url}"`;
  if (M === 'POST' && path.endsWith('/contacts'))
    return `curl -s -X POST ${auth} ${json} "${url}" \\\n  -d "{\\"contactId\\": \\"$CONTACT\\"}"`;
  if (M === 'POST')
    return `curl -s -X POST ${auth} ${json} "${url}" \\\n  -d '${JSON.stringify({ properties: CREATE_BODY[plural] })}'`;
  if (M === 'PUT')
    return `curl -s -X PUT ${auth} ${json} "${url}" \\\n  -d '${JSON.stringify({ properties: UPDATE_BODY[plural] })}'`;
  if (M === 'DELETE' && path.endsWith('{id}')) {
    // Delete a record made for the purpose, so the demo's own records stay.
    const create = curlExample('post', `/${plural}/v1`, { parameters: op.parameters });
    return `ID=$(${create} | jq -r .id)\n${curlExample('delete', `/${plural}/v1/{new}`, op).replace('{new}', '$ID')}`;
  }
  return `curl -s -X DELETE ${auth} "${url}"`;
}

function parametersTable(op: Json, doc: Json): string[] {
  const rows = (op.parameters as Json[]).map((p) => (p.$ref ? doc.components.parameters[refName(p)] : p));
  if (!rows.length) return ['No parameters.', ''];
  return [
    '| parameter | in | required | type | description |',
    '|---|---|---|---|---|',
    ...rows.map(
      (p) =>
        `| ${code(p.name)} | ${p.in} | ${p.required ? 'yes' : 'no'} | ${cell(typeOf(p.schema))} | ${cell(p.description ?? '')} |`,
    ),
    '',
  ];
}

function bodySection(op: Json): string[] {
  const schema = op.requestBody?.content['application/json'].schema;
  if (!schema) return [];
  const out = ['Body (`Content-Type: application/json`; every member required, no others):', ''];
  for (const [name, s] of Object.entries(schema.properties as Record<string, Json>)) {
    const note = s.description ?? (s.type === 'string' ? 'A non-blank string.' : '');
    out.push(`- ${code(name)}: ${typeOf(s)}. ${note}`.trimEnd());
  }
  return [...out, ''];
}

function responsesSection(op: Json, doc: Json): string[] {
  const out: string[] = [];
  const ok = op.responses[200];
  const schema = ok.content?.['application/json']?.schema;
  out.push(`- **200**: ${ok.description}${schema ? ` ${typeOf(schema)}` : ''}`);
  const errors = Object.keys(op.responses).filter((s) => s !== '200');
  const codes = errors.map((s) => {
    const enumOf = doc.components.schemas[`Error${s}`].properties.error.properties.code.enum as string[];
    return `${s} (${enumOf.join(', ')})`;
  });
  out.push(`- **Errors**: ${codes.join('; ')}. See [Errors](#errors).`, '');
  return out;
}

function operationSection(method: string, path: string, op: Json, doc: Json): string[] {
  return [
    `### ${method.toUpperCase()} ${path}`,
    '',
    `${op.summary}. Operation id ${code(op.operationId)}.`,
    '',
    ...parametersTable(op, doc),
    ...bodySection(op),
    ...responsesSection(op, doc),
    'Example:',
    '',
    '```sh',
    curlExample(method, path, op),
    '```',
    '',
    '<details><summary>The GraphQL operation it runs</summary>',
    '',
    '```text',
    op['x-graphql-operation'],
    '```',
    '',
    '</details>',
    '',
  ];
}

function valueShapes(doc: Json): string[] {
  const s = doc.components.schemas;
  const shapeOf = new Map(PROPERTY_TYPES.map((t) => [t.name, t.shape.openapi.name]));
  const out = [
    '## Property values',
    '',
    "A record's `properties` map schema property ids (from `GET /{projects|contacts|parcels}/v1/schema`) to value objects with exactly one member. Reads may add `labels`; writes may send them back, and they are ignored.",
    '',
    '| property type | value shape |',
    '|---|---|',
    ...[...shapeOf].map(([type, shape]) => `| ${code(type)} | [${shape}](#${anchor(shape)}) |`),
    '',
  ];
  for (const ref of s.PropertyValueInput.oneOf as Json[]) {
    const input = refName(ref);
    const name = input.replace(/Input$/, '');
    const example = s[name].examples?.[0];
    out.push(`### ${name}`, '', `Read: ${s[name].description}`, '', `Write: ${s[input].description}`, '');
    if (example) out.push(`Example: ${code(JSON.stringify(example))}`, '');
  }
  out.push(
    '### LocationValue',
    '',
    `${s.LocationValue.description} Inside a project's \`properties\` as \`"location": { "location": { "type": "Point", "coordinates": [longitude, latitude] } }\`; writing it gets 400.`,
    '',
    `At most ${s.PropertiesInput.maxProperties} properties per write.`,
    '',
  );
  return out;
}

function recordSchemas(doc: Json): string[] {
  const s = doc.components.schemas;
  const names = ['Organization', 'Portfolio', 'User', 'Schema', 'SchemaProperty', 'SelectOption'];
  const out = ['## Response shapes', ''];
  for (const kind of ['Project', 'Contact', 'Parcel']) names.push(kind, `${kind}Page`);
  for (const name of names) {
    const schema = s[name];
    out.push(`### ${name}`, '');
    if (schema.description) out.push(schema.description, '');
    out.push('| member | type | required | description |', '|---|---|---|---|');
    for (const [m, p] of Object.entries(schema.properties as Record<string, Json>)) {
      const req = (schema.required as string[]).includes(m) ? 'yes' : 'no';
      out.push(`| ${code(m)} | ${cell(typeOf(p))} | ${req} | ${cell(p.description ?? '')} |`);
    }
    out.push('');
  }
  return out;
}

function errorsSection(doc: Json): string[] {
  const r = doc.components.responses;
  const out = [
    '## Errors',
    '',
    'Every error has the body `{ "error": { "code", "message", "details"? } }`; `details` lists every problem (`field`, `reason`).',
    '',
    '| status | meaning and codes |',
    '|---|---|',
    ...Object.keys(r).map((name) => `| ${name.replace('Error', '')} | ${cell(r[name].description)} |`),
    '',
    'Examples (each fails as its marker says; the docs test checks the status and the code):',
    '',
    '```sh expect=401:UNAUTHENTICATED',
    'curl -s "$BASE/organizations/v1"',
    '```',
    '',
    '```sh expect=400:VALIDATION_FAILED',
    'curl -s -H "X-API-Key: $KEY" "$BASE/projects/v1?orgId=$ORG&portfolioId=$PF&limit=0"',
    '```',
    '',
    '```sh expect=404:NOT_FOUND',
    'curl -s -H "X-API-Key: $KEY" "$BASE/projects/v1/prj_0000000000000000000000?orgId=$ORG&portfolioId=$PF" -X DELETE',
    '```',
    '',
    '```sh expect=405:METHOD_NOT_ALLOWED',
    `curl -s -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/json' "$BASE/parcels/v1?orgId=$ORG&portfolioId=$PF" -d '{"properties":{}}'`,
    '```',
    '',
  ];
  return out;
}

export function renderRestReference(doc: Json = buildOpenApiDocument()): string {
  const out: string[] = [
    '# REST v1 reference',
    '',
    '<!-- Generated from src/rest/routes.ts (via src/openapi/) by `npm run docs`. Do not edit; CI runs `npm run docs:check`. -->',
    '',
    `${doc.info.title}, version ${doc.info.version}. The same content is served as OpenAPI 3.1 at \`/openapi.json\` and as a browsable page at \`/docs\`.`,
    '',
    doc.info.description,
    '',
    'The examples use the shell variables set in [Getting started](getting-started.md#shell-variables-for-the-examples) (`BASE`, `KEY`, `ORG`, `PF`, `PROJECT`, `CONTACT`, `PARCEL`) and need `curl` (and `jq` for the delete examples).',
    '',
    '## Contents',
    '',
  ];
  const sections: string[] = [];
  for (const tag of doc.tags as Json[]) {
    out.push(`- [${tag.name}](#${anchor(tag.name)})`);
    sections.push(`## ${tag.name}`, '', tag.description, '');
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op || op.tags[0] !== tag.name) continue;
        out.push(`  - [${method.toUpperCase()} ${path}](#${anchor(`${method} ${path}`)})`);
        sections.push(...operationSection(method, path, op, doc));
        if (item.description && method === METHODS.find((m) => item[m]))
          sections.push(`Note: ${item.description}`, '');
      }
    }
  }
  out.push(
    '- [Property values](#property-values)',
    '- [Response shapes](#response-shapes)',
    '- [Errors](#errors)',
    '',
  );
  return [...out, ...sections, ...valueShapes(doc), ...recordSchemas(doc), ...errorsSection(doc)]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}
