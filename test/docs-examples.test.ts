import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import type { DemoOutput } from '../src/seed/demo.js';
import { openSeededDatabase } from './helpers/database.js';
import { type Block, codeBlocks, exampleFiles } from './helpers/markdown.js';

/**
 * Every curl and GraphQL example of the README and the guides in docs/ runs against a server on a
 * seeded demo database, in file order, and must succeed, or fail as its marker says (the markers are
 * described in test/helpers/markdown.ts). The curl examples run in bash with the real curl, with the
 * shell variables docs/getting-started.md tells a reader to set.
 */

const run = promisify(execFile);
/** Variables the reader sets once (docs/getting-started.md); a line that only sets these is skipped. */
const PRESET = ['BASE', 'KEY', 'ORG', 'PF', 'PROJECT', 'CONTACT', 'PARCEL'];
const SHELLS = new Set(['sh', 'bash', 'shell']);

interface Example {
  block: Block;
  kind: 'curl' | 'graphql';
  variables?: string;
}

/** The runnable examples of one file: sh blocks that call curl, and graphql blocks (with their variables). */
function examplesOf(blocks: Block[]): Example[] {
  const out: Example[] = [];
  blocks.forEach((block, i) => {
    if (SHELLS.has(block.lang) && /\bcurl\b/.test(block.text)) out.push({ block, kind: 'curl' });
    if (block.lang === 'graphql') {
      const next = blocks[i + 1];
      const variables = next?.lang === 'json' && 'variables' in next.markers ? next.text : undefined;
      out.push({ block, kind: 'graphql', variables });
    }
  });
  return out;
}

/** Drops lines that only assign the preset variables (`KEY=sdg_…   # alice's key`): the runner sets those. */
function withoutPresets(script: string): string {
  const assign = new RegExp(`^\\s*(export\\s+)?((${PRESET.join('|')})=\\S*\\s*)+(#.*)?$`);
  return script
    .split('\n')
    .filter((l) => !assign.test(l))
    .join('\n');
}

// Each curl call appends "<status> <body file>" to $SDG_DOCS_LOG, and prints the body as curl -s would.
const PRELUDE = `set -euo pipefail
curl() {
  local body status
  body=$(mktemp -p "$SDG_DOCS_TMP")
  status=$(command curl -sS -o "$body" -w '%{http_code}' "$@")
  echo "$status $body" >> "$SDG_DOCS_LOG"
  cat "$body"
}
`;

interface Call {
  status: number;
  body: any;
}

const errorCode = (body: any): string | undefined =>
  body?.error?.code ?? body?.errors?.[0]?.extensions?.code ?? undefined;

/** Why a call does not meet the block's expectation, or undefined when it does. */
function verdict(call: Call, expect: string | undefined): string | undefined {
  const code = errorCode(call.body);
  if (expect === undefined) {
    if (call.status < 200 || call.status > 299) return `answered ${call.status} ${code ?? ''}`;
    if (call.body?.errors) return `GraphQL errors: ${JSON.stringify(call.body.errors).slice(0, 300)}`;
    return undefined;
  }
  const [status, want] = /^\d{3}/.test(expect) ? expect.split(':') : [undefined, expect];
  if (status && call.status !== Number(status)) return `answered ${call.status}, the text says ${status}`;
  if (want && code !== want) return `code ${code}, the text says ${want}`;
  return undefined;
}

interface Demo {
  base: string;
  env: Record<string, string>;
  keys: Record<string, string>;
}

async function runCurl(ex: Example, demo: Demo): Promise<string[]> {
  return (await runScript(ex, demo)).problems;
}

/** Runs a curl example in bash; `after` is appended (the setup reads variables back with it). */
async function runScript(
  ex: Example,
  demo: Demo,
  after = '',
): Promise<{ problems: string[]; stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sdg-docs-'));
  try {
    const log = join(dir, 'calls.log');
    writeFileSync(log, '');
    const as = ex.block.markers.as;
    const env = {
      ...process.env,
      ...demo.env,
      ...(as ? { KEY: demo.keys[as] } : {}),
      SDG_DOCS_LOG: log,
      SDG_DOCS_TMP: dir,
    };
    const script = PRELUDE + withoutPresets(ex.block.text) + after;
    const problems: string[] = [];
    let stdout = '';
    try {
      ({ stdout } = await run('bash', ['-c', script], { env, timeout: 60_000 }));
    } catch (e: any) {
      problems.push(`the script failed (exit ${e.code}): ${String(e.stderr).slice(0, 500)}`);
    }
    const calls = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
    if (!calls.length) problems.push('ran no curl');
    for (const line of calls) {
      const [status, file] = line.split(' ');
      const raw = readFileSync(file, 'utf8');
      let body: any = raw;
      try {
        body = JSON.parse(raw);
      } catch {}
      const why = verdict({ status: Number(status), body }, ex.block.markers.expect);
      if (why) problems.push(`${why}; body: ${raw.slice(0, 300)}`);
    }
    return { problems, stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Variables of a GraphQL example: its json block ("$PF" strings filled in), else by declared name. */
function graphqlVariables(ex: Example, env: Record<string, string>): Record<string, unknown> {
  const fill = (s: string) => s.replace(/\$([A-Z]+)/g, (m, v) => env[v] ?? m);
  if (ex.variables) return JSON.parse(fill(ex.variables));
  const byName: Record<string, string> = {
    org: 'ORG',
    orgId: 'ORG',
    pf: 'PF',
    portfolioId: 'PF',
    project: 'PROJECT',
    projectId: 'PROJECT',
    contact: 'CONTACT',
    contactId: 'CONTACT',
    parcel: 'PARCEL',
    parcelId: 'PARCEL',
  };
  const vars: Record<string, unknown> = {};
  for (const m of ex.block.text.matchAll(/\$(\w+)\s*:/g)) if (byName[m[1]]) vars[m[1]] = env[byName[m[1]]];
  return vars;
}

async function runGraphql(ex: Example, demo: Demo): Promise<string[]> {
  const key = demo.keys[ex.block.markers.as ?? 'alice'];
  const res = await fetch(`${demo.base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: ex.block.text, variables: graphqlVariables(ex, demo.env) }),
  });
  const raw = await res.text();
  let body: any = raw;
  try {
    body = JSON.parse(raw);
  } catch {}
  const why = verdict({ status: res.status, body }, ex.block.markers.expect);
  return why ? [`${why}; body: ${raw.slice(0, 300)}`] : [];
}

const examples = exampleFiles().flatMap((f) => examplesOf(codeBlocks(f)));
/** The one block marked `setup`: it sets the shell variables every other example uses. */
const setup = () => {
  const found = examples.filter((e) => 'setup' in e.block.markers);
  if (found.length !== 1) throw new Error(`expected one sh setup block, found ${found.length}`);
  return found[0];
};
const name = (ex: Example) =>
  `${ex.block.file}:${ex.block.line} ${ex.kind}${ex.block.markers.expect ? ` expect=${ex.block.markers.expect}` : ''}`;

let database: Database;
let demoData: DemoOutput;
let demo: Demo;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ database, demo: demoData } = await openSeededDatabase());
  // A few demo projects have no parcels, and which project lists first depends on random ids. The
  // setup block must not rely on luck: the project a `limit=1` list gives first loses its parcels.
  const { orgs } = demoData;
  const first = await database.db
    .selectFrom('projects')
    .select('id')
    .where('org_id', '=', orgs.A.id)
    .where('portfolio_id', '=', orgs.A.portfolios.A1)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirstOrThrow();
  await database.db
    .deleteFrom('project_parcels')
    .where('org_id', '=', orgs.A.id)
    .where('project_id', '=', first.id)
    .execute();
  const app = await buildApp({ database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  close = () => app.close();
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const keys = Object.fromEntries(Object.entries(demoData.users).map(([n, u]) => [n, u.apiKey]));
  demo = { base, keys, env: { BASE: base, KEY: keys.alice } };
  // The other variables come from running the setup block of docs/getting-started.md, as a reader would.
  const print = PRESET.map((v) => `echo "SDG_VAR ${v}=\${${v}:-}"`).join('\n');
  const { problems, stdout } = await runScript(setup(), demo, `\n${print}\n`);
  if (problems.length) throw new Error(`the setup block failed: ${problems.join('; ')}`);
  for (const m of stdout.matchAll(/^SDG_VAR (\w+)=(.*)$/gm)) demo.env[m[1]] = m[2];
});

afterAll(async () => {
  await close?.();
  await database?.close();
});

describe('the examples in README.md and docs/', () => {
  test('there are examples of both kinds in the README and every guide that has code', () => {
    expect(examples.filter((e) => e.kind === 'curl').length).toBeGreaterThan(20);
    expect(examples.filter((e) => e.kind === 'graphql').length).toBeGreaterThan(3);
    expect(new Set(examples.map((e) => e.block.file))).toContain('README.md');
  });

  test('the setup block of getting-started sets every variable to a demo id', () => {
    expect(setup().block.file).toBe('docs/getting-started.md');
    const ids = { ORG: 'org', PF: 'pf', PROJECT: 'prj', CONTACT: 'con', PARCEL: 'par' };
    for (const [v, prefix] of Object.entries(ids))
      expect(demo.env[v], v).toMatch(new RegExp(`^${prefix}_\\w{22}$`));
    expect(demo.env.ORG).toBe(demoData.orgs.A.id);
  });

  test('every skip names its reason, and skips stay rare', () => {
    const skips = examples.filter((e) => 'skip' in e.block.markers);
    for (const s of skips) expect(s.block.markers.skip, name(s)).toMatch(/\w/);
    expect(skips.length).toBeLessThanOrEqual(Math.max(2, examples.length / 20));
  });

  test('only known markers are used', () => {
    for (const e of examples)
      for (const m of Object.keys(e.block.markers))
        expect(['expect', 'as', 'skip', 'setup'], `${name(e)} marker ${m}`).toContain(m);
  });

  // Each example on its own, in file order (later examples may rely on earlier writes, as a reader's would).
  for (const ex of examples) {
    const t = 'skip' in ex.block.markers ? test.skip : test;
    t(name(ex), async () => {
      const problems = ex.kind === 'curl' ? await runCurl(ex, demo) : await runGraphql(ex, demo);
      expect(problems, `${name(ex)}\n${ex.block.text}`).toEqual([]);
    });
  }

  // The runner itself: a wrong expectation and a failing call are caught, not waved through.
  test('the runner catches an example that fails, and one that fails otherwise than its text says', async () => {
    const block = (text: string, markers: Record<string, string> = {}): Example => ({
      block: { file: 'x.md', line: 1, lang: 'sh', markers, text },
      kind: 'curl',
    });
    const missing = `curl -s -H "X-API-Key: $KEY" "$BASE/projects/v1/prj_0000000000000000000000?orgId=$ORG&portfolioId=$PF" -X DELETE`;
    expect(await runCurl(block(missing), demo)).toEqual([expect.stringMatching(/answered 404/)]);
    expect(await runCurl(block(missing, { expect: '404:NOT_FOUND' }), demo)).toEqual([]);
    expect(await runCurl(block(missing, { expect: '400' }), demo)).toEqual([
      expect.stringMatching(/the text says 400/),
    ]);
    expect(await runCurl(block('echo no curl here'), demo)).toEqual(['ran no curl']);
    const gql: Example = {
      block: { file: 'x.md', line: 1, lang: 'graphql', markers: {}, text: '{ nope }' },
      kind: 'graphql',
    };
    expect(await runGraphql(gql, demo)).toEqual([expect.stringMatching(/GRAPHQL_VALIDATION_FAILED/)]);
    expect(withoutPresets('KEY=sdg_…   # alice\nBASE=http://x ORG=org_…\nA=1\ncurl x')).toBe('A=1\ncurl x');
  });
});
